/**
 * Everything posted to the Workplace Trigger's own URL besides the platform's deliveries: one typed
 * message under one body field, signed like a delivery with the webhook secret, read in one place
 * (readOwnMessage, called by receiveDelivery). Kinds:
 * - `register`: a Send and Wait with reminders or escalation hands its question to the trigger's
 *   clock before it sends it;
 * - `keep`: a process that changed a question's progress posts it again (a request that loaded an
 *   older copy of the static data may have dropped it);
 * - `tick`: the clock's tick: due questions go to their waiting nodes;
 * - `recount`: a process that counted a tap posts the question's taps again, so that taps other
 *   processes counted come together.
 */
import type { Ballot } from './tapProtocol';
import { isBallot } from './tapProtocol';
import type { ClockEntry } from './clockProtocol';
import { isClockEntry } from './clockProtocol';
import { isPlainObject } from '../validation';

/** The one body field of a message to the trigger's own URL. */
export const OWN_MESSAGE_FIELD = 'workplaceApprovals';

/** The taps of one question, posted again after a counted tap (recounts.ts). */
export interface Recount {
	/** execution:node:nonce of the question. */
	request: string;
	ballots: Ballot[];
	round: number;
	/** false: the sender left these taps for another process to hand on (recounts.ts), so they were not counted together. */
	handed?: boolean;
}

export type OwnMessage =
	| { kind: 'register'; entry: ClockEntry }
	| { kind: 'keep'; request: string; entry: ClockEntry }
	| { kind: 'tick'; at: string }
	| { kind: 'recount'; recount: Recount };

/** The body of a message, as it is posted (and signed). */
export function ownMessageBody(message: OwnMessage): string {
	return JSON.stringify({ [OWN_MESSAGE_FIELD]: message });
}

function readRecount(value: unknown): Recount | undefined {
	if (!isPlainObject(value) || typeof value.request !== 'string' || !Array.isArray(value.ballots)) return undefined;
	const recount: Recount = { request: value.request, ballots: value.ballots.filter(isBallot), round: typeof value.round === 'number' ? value.round : 0 };
	if (value.handed === false) recount.handed = false;
	return recount;
}

/** The message a body is, or undefined for anything else (a delivery of the platform). */
export function readOwnMessage(body: Buffer): OwnMessage | undefined {
	if (!body.includes(OWN_MESSAGE_FIELD)) return undefined;
	let parsed: unknown;
	try {
		parsed = JSON.parse(body.toString('utf8'));
	} catch {
		return undefined;
	}
	const message = isPlainObject(parsed) ? parsed[OWN_MESSAGE_FIELD] : undefined;
	if (!isPlainObject(message)) return undefined;
	switch (message.kind) {
		case 'register':
			return isClockEntry(message.entry) ? { kind: 'register', entry: message.entry } : undefined;
		case 'keep':
			return isClockEntry(message.entry) && typeof message.request === 'string' ? { kind: 'keep', request: message.request, entry: message.entry } : undefined;
		case 'tick':
			return typeof message.at === 'string' ? { kind: 'tick', at: message.at } : undefined;
		case 'recount': {
			const recount = readRecount(message.recount);
			return recount ? { kind: 'recount', recount } : undefined;
		}
		default:
			return undefined;
	}
}
