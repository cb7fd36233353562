import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { UserDelivery } from '../shared/delivery';
import { USER_ACTIONS } from '../shared/delivery';
import { isPlainObject } from '../shared/validation';

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

/**
 * Group and topic of a bot event: message.groupId/topicId, else source.gid (join), else the
 * sessionId (group id and topic id joined by an underscore).
 */
export function chatOf(event: IDataObject): { groupId?: string; topicId?: string } {
	const message = isPlainObject(event.message) ? event.message : {};
	const source = isPlainObject(event.source) ? event.source : {};
	const [sessionGroup, sessionTopic] = (str(event.sessionId) ?? '').split('_');
	return {
		groupId: str(message.groupId) ?? str(source.gid) ?? str(source.groupId) ?? str(sessionGroup),
		topicId: str(message.topicId) ?? str(source.tid) ?? str(source.topicId) ?? str(sessionTopic),
	};
}

/**
 * The conversation a bot event belongs to, as the team assistant keys its agent memory:
 * `<groupId>_<topicId>` in a topic, `<groupId>` in a group's main chat or a direct chat, undefined
 * when the event names no group (user events).
 */
export function conversationKeyOf(event: IDataObject): string | undefined {
	const { groupId, topicId } = chatOf(event);
	if (!groupId) return undefined;
	return topicId ? `${groupId}_${topicId}` : groupId;
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
