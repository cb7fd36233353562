import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { invalidInput, requireString } from '../../../shared/validation';
import { botRequest } from '../../transport';
import type { BuildResult } from './build';
import { buildMessagesFromFields, buildMessagesFromJson } from './build';
import { pushFields } from './fields';
import type { Violation } from './validate';
import { displayPath, validateMessages, wirePath } from './validate';

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['push'] } }, pushFields);

/** Every problem of the built messages: JSON that did not parse, then the spec's limits and required fields. */
export function collectViolations(built: BuildResult): Violation[] {
	if (built.messages === undefined) return built.violations;
	const reported = new Set(built.violations.map((v) => wirePath(v.path)));
	const checked = validateMessages(built.messages).filter((v) => !reported.has(wirePath(v.path)));
	return [...built.violations, ...checked];
}

/**
 * One error for all problems of an item: the first in the message, all of them in the
 * description, e.g. `Item 3: "Messages > 2 > Template > Actions > 1 > Label" must be at
 * most 20 characters, got "A label that is far too long" (28 characters)`.
 */
export function violationsError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	root: string,
	violations: Violation[],
): NodeOperationError {
	const lines = violations.map((v) => `"${displayPath(root, v.path)}" ${v.rule}, got ${v.got}`);
	const more = violations.length - 1;
	const message = `Item ${itemIndex}: ${lines[0]}${more > 0 ? ` (and ${more} more problem${more > 1 ? 's' : ''})` : ''}`;
	const description = [
		`Nothing was sent for this item. ${violations.length === 1 ? 'Problem' : `${violations.length} problems`}:`,
		...lines.map((line, k) => `${k + 1}. ${line} [${wirePath(violations[k].path)}]`),
		`Positions count from 1 ("${root} > 2" is the second message); the part in brackets is the place in the request body.`,
	].join('\n');
	return new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
}

/** The `messages` array of the item, checked; throws before anything is sent. */
export function getMessages(ctx: IExecuteFunctions, itemIndex: number): IDataObject[] {
	const mode = ctx.getNodeParameter('defineMessages', itemIndex, 'fields') as string;
	const json = mode === 'json';
	const built = json
		? buildMessagesFromJson(ctx.getNodeParameter('messagesJson', itemIndex, '') as unknown)
		: buildMessagesFromFields(ctx.getNodeParameter('messages', itemIndex, {}) as unknown);
	const violations = collectViolations(built);
	if (violations.length > 0) {
		throw violationsError(ctx, itemIndex, json ? 'Messages (JSON)' : 'Messages', violations);
	}
	return built.messages as IDataObject[];
}

function requireThreadPart(ctx: IExecuteFunctions, itemIndex: number, parameter: string, field: string): string {
	const value = requireString(ctx, itemIndex, parameter, field);
	if (/\s/.test(value)) throw invalidInput(ctx, itemIndex, field, 'must be an ID without spaces', value);
	return value;
}

/** Messages to one thread leave in item order; different threads may be sent to concurrently. */
export function conversationKey(this: IExecuteFunctions, itemIndex: number): string {
	const gid = String(this.getNodeParameter('groupId', itemIndex, '') ?? '').trim();
	const tid = String(this.getNodeParameter('threadId', itemIndex, '') ?? '').trim();
	return `thread:${gid}:${tid}`;
}

/**
 * POST /bot/v2/message/push. Output: one item `{ gid, tid, results }`, where `results` is
 * the platform's answer, one `{ status, message }` per message sent.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const gid = requireThreadPart(this, itemIndex, 'groupId', 'Group ID');
	const tid = requireThreadPart(this, itemIndex, 'threadId', 'Thread ID');
	const messages = getMessages(this, itemIndex);
	const { body } = await botRequest<unknown>(
		this,
		{ method: 'POST', path: '/bot/v2/message/push', body: { gid, tid, messages } },
		itemIndex,
	);
	const results = (Array.isArray(body) ? body : body === undefined || body === null || body === '' ? [] : [body]) as IDataObject[];
	return { gid, tid, results };
}
