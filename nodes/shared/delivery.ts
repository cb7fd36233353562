/**
 * A webhook delivery of the platform read from its raw bytes: read by the Workplace Trigger for
 * every delivery, and by Send and Wait for the deliveries of in-chat answers the trigger hands on.
 */
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from './validation';

/** The user event actions, and the trigger's "Events" value of each. */
export const USER_ACTIONS: Record<string, string> = {
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
