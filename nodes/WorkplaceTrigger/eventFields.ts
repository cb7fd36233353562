import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { UserDelivery } from '../shared/delivery';
import { USER_ACTIONS } from '../shared/delivery';
import { isPlainObject } from '../shared/validation';

// The conversation of an event: shared with Workplace Bot's Message > Reply to Event.
export { chatOf, conversationKeyOf, withConversationKey } from '../shared/conversation';

/** The "Events" value a user delivery belongs to. */
export function userEventValue(action: string): string {
	return USER_ACTIONS[action];
}

export function isSelected(selected: string[], value: string): boolean {
	return selected.includes('*') || selected.includes(value);
}

function str(value: unknown): string | undefined {
	return typeof value === 'string' && value !== '' ? value : undefined;
}

function sha256(data: string | Buffer): string {
	return createHash('sha256').update(data).digest('hex');
}

/**
 * What makes two deliveries "the same event":
 * - bot events: type + message.id, else type + replyToken, else type + a hash of the event;
 * - user events: action + user._id + a hash of the raw body (the platform's user events
 *   carry no event id; a genuine second update differs in the body).
 */
export function botEventKey(event: IDataObject): string {
	const type = String(event.type);
	const message = isPlainObject(event.message) ? event.message : {};
	const id = str(message.id) ?? str(event.replyToken);
	return id ? `${type}:${id}` : `${type}:#${sha256(JSON.stringify(event)).slice(0, 32)}`;
}

export function userEventKey(delivery: UserDelivery, rawBody: Buffer): string {
	const user = delivery.body.user as IDataObject;
	return `user:${delivery.action}:${str(user._id) ?? ''}:${sha256(rawBody).slice(0, 32)}`;
}

/**
 * The IDs of a filter option, separated by commas, spaces or line breaks; not validation's
 * parseCommaList, which splits at commas only and reads lists from expressions.
 */
export function splitIds(value: unknown): string[] {
	if (typeof value !== 'string') return [];
	return value
		.split(/[\s,]+/)
		.map((s) => s.trim())
		.filter(Boolean);
}
