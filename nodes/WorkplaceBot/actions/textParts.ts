/**
 * Text sends in parts: Message > Reply to Event, Direct Message > Send Text and Group Message >
 * Send Text. The text's Markdown is kept or made plain ("Markdown"), a text longer than "Split
 * Messages Longer Than" is cut into parts (nodes/shared/text/split.ts), and the parts are sent one
 * after another. When part k fails nothing after it is sent, and nothing is sent again: the error
 * says which parts reached the platform (`context.partial`, shown by the router's error item).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { optionsCollection } from '../../shared/descriptions/fields';
import { botRequest } from '../../shared/transport/botApi';
import { nodeParameter } from '../../shared/parameters';
import { markdownToPlainText } from '../../shared/text/markdown';
import { splitText } from '../../shared/text/split';
import { invalidInput, isPlainObject, requireInteger } from '../../shared/validation';

/** Reply to Event splits by default: an AI agent's answer is often longer than a chat message should be. */
export const REPLY_MAX_LENGTH = 2000;

export type MarkdownHandling = 'keep' | 'plain';

export interface TextOptions {
	maxLength: number;
	markdown: MarkdownHandling;
}

/** The "Options" of a text send: "Split Messages Longer Than" (default `maxLength`) and "Markdown". */
export function textOptionsField(maxLength: number): INodeProperties {
	return optionsCollection([
		{
			displayName: 'Markdown',
			name: 'markdown',
			type: 'options',
			options: [
				{ name: 'Keep (Send as Written)', value: 'keep', description: 'Send the text exactly as written, Markdown syntax included' },
				{
					name: 'Convert to Plain Text',
					value: 'plain',
					description:
						'Remove Markdown syntax: headings and emphasis become their text, [text](link) becomes "text (link)", code blocks keep their code, lists stay',
				},
			],
			default: 'keep',
			description: 'What to do with Markdown in the text (the platform does not document any formatting)',
		},
		{
			displayName: 'Split Messages Longer Than',
			name: 'maxLength',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: maxLength,
			description:
				'A text longer than this many characters is sent as several messages, in order, cut at paragraphs, else sentences, else words. 0 never splits.',
		},
	]);
}

/** The item's text options; `maxLength` is the operation's default. */
export function readTextOptions(ctx: IExecuteFunctions, itemIndex: number, maxLength: number): TextOptions {
	const options = nodeParameter(ctx, 'options', itemIndex, {}) as IDataObject;
	const given = isPlainObject(options) ? options : {};
	const markdown = given.markdown ?? 'keep';
	if (markdown !== 'keep' && markdown !== 'plain') {
		throw invalidInput(ctx, itemIndex, 'Options > Markdown', 'must be "keep" or "plain"', markdown);
	}
	const length = given.maxLength === undefined ? maxLength : requireInteger(ctx, itemIndex, 'Options > Split Messages Longer Than', given.maxLength, { min: 0 });
	return { maxLength: length, markdown };
}

/** The messages a text is sent as: Markdown handled, then split. */
export function textParts(text: string, { maxLength, markdown }: TextOptions): string[] {
	return splitText(markdown === 'plain' ? markdownToPlainText(text) : text, maxLength);
}

/** What a send in parts had done when it stopped: put in the error's context as `partial`. */
export interface PartialSend {
	partsSent: number;
	partsTotal: number;
	/** The platform's answers to the parts sent. */
	sent: IDataObject[];
}

function failureNote({ partsSent, partsTotal }: PartialSend): string {
	const failed = partsSent + 1;
	const sent = partsSent === 0 ? 'No part was sent' : partsSent === 1 ? 'Part 1 was sent' : `Parts 1-${partsSent} were sent`;
	const after = failed < partsTotal ? `; parts ${failed + 1}-${partsTotal} were not sent` : '';
	return `The text was split into ${partsTotal} messages. ${sent}; part ${failed} failed${after}. Nothing is sent again: a part that failed without an answer may still have reached the platform.`;
}

/** The error of a part, with what was sent before it when the text had several parts. */
function stoppedAt(ctx: IExecuteFunctions, itemIndex: number, error: unknown, partial: PartialSend): NodeApiError | NodeOperationError {
	const several = partial.partsTotal > 1;
	const note = failureNote(partial);
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (several) {
			error.description = error.description ? `${error.description}\n\n${note}` : note;
			error.context.partial = partial;
		}
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const wrapped = new NodeOperationError(ctx.getNode(), error as Error, { itemIndex, ...(several ? { description: note } : {}) });
	if (several) wrapped.context.partial = partial;
	return wrapped;
}

/**
 * Sends the parts in order with `send`; the platform's answers, one per part. A failure stops the
 * sends and is rethrown with what was sent (a single part's failure is rethrown as it is).
 */
export async function sendParts(
	ctx: IExecuteFunctions,
	itemIndex: number,
	parts: string[],
	send: (part: string) => Promise<IDataObject>,
): Promise<IDataObject[]> {
	const sent: IDataObject[] = [];
	for (const part of parts) {
		try {
			sent.push(await send(part));
		} catch (error) {
			throw stoppedAt(ctx, itemIndex, error, { partsSent: sent.length, partsTotal: parts.length, sent });
		}
	}
	return sent;
}

/** A text's parts posted to a group's topic or main chat (`tid` empty), in order: one sent-message result each. */
export async function sendTextToThread(ctx: IExecuteFunctions, itemIndex: number, thread: { gid: string; tid: string }, parts: string[]): Promise<IDataObject[]> {
	return await sendParts(ctx, itemIndex, parts, async (data) => {
		const { body } = await botRequest<IDataObject>(
			ctx,
			{ method: 'POST', path: '/bot/v1/group/message', body: { gid: thread.gid, tid: thread.tid, message: { type: 'text', data } } },
			itemIndex,
		);
		return body;
	});
}
