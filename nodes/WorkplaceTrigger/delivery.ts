import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../shared/validation';

const USER_ACTIONS: Record<string, string> = {
	created: 'userCreated',
	updated: 'userUpdated',
	deleted: 'userDeleted',
};

export interface BotDelivery {
	kind: 'bot';
	events: IDataObject[];
}

export interface UserDelivery {
	kind: 'user';
	body: IDataObject;
	action: string;
}

export interface UnknownDelivery {
	kind: 'unknown';
	eventName: string;
}

export interface MalformedDelivery {
	kind: 'malformed';
	reason: string;
}

export type Delivery = BotDelivery | UserDelivery | UnknownDelivery | MalformedDelivery;

const malformed = (reason: string): MalformedDelivery => ({ kind: 'malformed', reason });

/**
 * Reads a delivery from its raw bytes: a bot envelope `{events: [...]}` or a user event
 * `{action, user}` (header X-Service-Event: user); `malformed` for bytes that are not JSON or
 * a body of neither shape.
 */
export function parseDelivery(rawBody: Buffer, eventHeader: unknown): Delivery {
	let text = rawBody.toString('utf8');
	if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch (error) {
		return malformed(`The body is not valid JSON (${(error as Error).message})`);
	}
	if (!isPlainObject(body)) return malformed('The body is not a JSON object');

	const eventName = (Array.isArray(eventHeader) ? eventHeader[0] : eventHeader) as string | undefined;
	const name = typeof eventName === 'string' ? eventName.trim().toLowerCase() : '';

	if (name === 'user' || (name === '' && 'action' in body && 'user' in body && !('events' in body))) {
		const action = body.action;
		if (typeof action !== 'string' || !(action in USER_ACTIONS)) {
			return malformed('A user event needs "action" created, updated or deleted');
		}
		if (!isPlainObject(body.user)) return malformed('A user event needs a "user" object');
		return { kind: 'user', body, action };
	}
	if ('events' in body) {
		const events = body.events;
		if (!Array.isArray(events)) return malformed('"events" is not an array');
		for (const [index, event] of events.entries()) {
			if (!isPlainObject(event) || typeof event.type !== 'string' || event.type === '') {
				return malformed(`event ${index + 1} of ${events.length} (events[${index}]) is not an event object with a "type"`);
			}
		}
		return { kind: 'bot', events: events as IDataObject[] };
	}
	if (name !== '') return { kind: 'unknown', eventName: name };
	return malformed('The body is neither a bot delivery {events} nor a user event {action, user}');
}

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
