/**
 * The `data` the execution goes on with, named as n8n's own Send and Wait nodes name it (Slack
 * and Telegram in-chat approvals, n8n 2.30+): `approved`, `responder`, `respondedAt` and the
 * question's `messageId`, plus the message's `groupId` and `threadId` (the push answer's names).
 *
 * The message is only known once the push answered, after the resume URLs and answer tokens were
 * built, so it cannot travel in them. It is kept in the waiting node's stack item (the timed-out
 * item, `data`), which n8n stores with the waiting execution and hands to the node's webhook as
 * its input (`$json`) on n8n 1.x and 2.x alike; the node's own output while it waits is dropped
 * by n8n before the webhook runs.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { isPlainObject } from '../../../../shared/validation';

/** Who answered, as n8n's SendAndWaitResponder: `id`, `username`, `name` only where the platform tells them. */
export interface Responder extends IDataObject {
	/** The platform's user ID (in the chat). */
	id?: string;
	username?: string;
	name?: string;
	/** How the answer came: a tap in the chat, or a link opened in a browser (which tells nobody's identity). */
	source: 'chat' | 'link';
}

/** The question's message: the push answer's `message.id`, `groupId` and `threadId`. */
export interface SentMessage extends IDataObject {
	messageId?: string;
	groupId?: string;
	threadId?: string;
}

/** The fields the node adds to `data` next to the answer; a Custom Form field may not be labelled like one. */
export const OUTPUT_FIELDS = ['responder', 'respondedAt', 'responders', 'messageId', 'groupId', 'threadId', 'timedOut'] as const;

const MESSAGE_KEYS = ['messageId', 'groupId', 'threadId'] as const;

function nonEmpty(value: unknown): string | undefined {
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Copies the message fields that are known, in their order. */
function messageFields(source: IDataObject): SentMessage {
	const out: SentMessage = {};
	for (const key of MESSAGE_KEYS) {
		const value = nonEmpty(source[key]);
		if (value !== undefined) out[key] = value;
	}
	return out;
}

/**
 * The question's message from the push answer (`[{status, message: {id, type, groupId, threadId}}]`),
 * else the group and thread it was pushed to.
 */
export function sentMessageOf(results: IDataObject[], gid: string, tid: string): SentMessage {
	const first: unknown = results[0]?.message;
	const message: IDataObject = isPlainObject(first) ? first : {};
	return messageFields({
		messageId: nonEmpty(message.id),
		groupId: nonEmpty(message.groupId) ?? gid,
		threadId: nonEmpty(message.threadId) ?? tid,
	});
}

/** The question's message as the waiting node kept it in its stack item; empty when it cannot be read. */
export function waitingMessage(ctx: IWebhookFunctions): SentMessage {
	let kept: unknown;
	try {
		kept = ctx.evaluateExpression('{{ $json.data }}', 0);
	} catch {
		return {};
	}
	return isPlainObject(kept) ? messageFields(kept) : {};
}

/** A text parameter as the webhook evaluates it against the question's item ('' when it cannot be resolved here). */
export function textParameter(ctx: IWebhookFunctions, name: string): string {
	try {
		const value = ctx.getNodeParameter(name, '') as unknown;
		return typeof value === 'string' ? value.trim() : '';
	} catch {
		// An expression that needs the input items cannot be resolved here.
		return '';
	}
}

/** An answer's `data`: the answer's own fields, then who answered, when, and the question's message. */
export function answerData(answer: IDataObject, responder: Responder, respondedAt: string, message: SentMessage): IDataObject {
	return { ...answer, responder, respondedAt, ...message };
}
