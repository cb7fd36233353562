import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { invalidInput, requireString } from '../../../shared/validation';
import { botRequest } from '../../../shared/transport/botApi';
import { pushFields } from './fields';
import { getMessages } from './messages';
import { nodeParameter } from '../../../shared/parameters';

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['push'] } }, pushFields);

function requireThreadPart(ctx: IExecuteFunctions, itemIndex: number, parameter: string, field: string): string {
	const value = requireString(ctx, itemIndex, parameter, field);
	if (/\s/.test(value)) throw invalidInput(ctx, itemIndex, field, 'must be an ID without spaces', value);
	return value;
}

/**
 * The thread, a resource locator ("Main Chat", a topic, or By ID). Empty is the group's main chat.
 */
function optionalThreadId(ctx: IExecuteFunctions, itemIndex: number): string {
	const field = 'Thread'; // as the UI names it
	const value = nodeParameter(ctx, 'threadId', itemIndex, '', { extractValue: true }) as unknown;
	if (value === undefined || value === null) return '';
	if (typeof value !== 'string' && typeof value !== 'number') throw invalidInput(ctx, itemIndex, field, 'must be text', value);
	const text = String(value).trim();
	if (/\s/.test(text)) throw invalidInput(ctx, itemIndex, field, 'must be an ID without spaces', value);
	return text;
}

/** Messages to one thread leave in item order; different threads may be sent to concurrently. */
export function conversationKey(this: IExecuteFunctions, itemIndex: number): string {
	const gid = String(nodeParameter(this, 'groupId', itemIndex, '') ?? '').trim();
	const tid = nodeParameter(this, 'threadId', itemIndex, '', { extractValue: true }) as unknown;
	return `thread:${gid}:${typeof tid === 'string' || typeof tid === 'number' ? String(tid).trim() : ''}`;
}

/**
 * POST /bot/v2/message/push. An empty thread is sent as `tid: ""`, as Group Message > Send Text
 * sends the main chat (the spec says so for v1 and nothing for push: docs/assumptions.md).
 * Output: one item `{ gid, tid, results }`, where `results` is the platform's answer, one
 * `{ status, message }` per message sent.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const gid = requireThreadPart(this, itemIndex, 'groupId', 'Group ID');
	const tid = optionalThreadId(this, itemIndex);
	const messages = getMessages(this, itemIndex);
	const { body } = await botRequest<unknown>(
		this,
		{ method: 'POST', path: '/bot/v2/message/push', body: { gid, tid, messages } },
		itemIndex,
	);
	const results = (Array.isArray(body) ? body : body === undefined || body === null || body === '' ? [] : [body]) as IDataObject[];
	return { gid, tid, results };
}
