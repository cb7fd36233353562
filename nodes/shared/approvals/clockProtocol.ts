/**
 * Reminders and escalation of in-chat approvals: what Workplace Bot and Workplace Trigger agree on.
 *
 * A waiting execution cannot wake itself and wait again (n8n disables a node it resumes by time),
 * so the clock is the Workplace Trigger's: an active trigger node, which n8n starts again after a
 * restart and runs on the leader alone in queue mode. The trigger writes where it listens into the
 * workflow's static data when n8n registers its webhook (CLOCKS_FIELD); Send and Wait reads it and
 * registers its question there, signed with the webhook secret both hold. The trigger keeps the
 * question with its progress (`step`, `nextAt`) in its static data, and on each tick of its clock
 * posts due questions to the waiting node's signed clock URL; the node posts what is due
 * (a reminder, the escalation) and answers its new progress.
 */
import type { IDataObject } from 'n8n-workflow';
import { createHmac } from 'crypto';

import { isPlainObject } from '../validation';

/** Where in the workflow's global static data the Workplace Triggers say where they listen (node name -> address). */
export const CLOCKS_FIELD = 'workplaceTriggerClocks';

/** Where to post to a trigger: its production URL, and the Host header n8n expects when the URL goes another way. */
export interface ClockAddress {
	url: string;
	host?: string;
}

/** One question the trigger keeps for its clock. */
export interface ClockEntry {
	/** The waiting node's signed clock URL (`via=clock`), as n8n made it. */
	url: string;
	/** Actions already done (reminders and the escalation, in time order). */
	step: number;
	/** When the next action is due (ISO); null: none left. */
	nextAt: string | null;
	/**
	 * The last hand-over may have reached the waiting node without its answer reaching the
	 * trigger: the next tick asks it to skip what is due rather than post it perhaps twice.
	 */
	uncertain?: boolean;
	/** When the last action was done (ms): the question is kept a while, so that a late `keep` cannot bring it back. */
	doneAt?: number;
	/** Since when its waiting node has not answered a tick (ms): given up after GIVE_UP_UNREACHABLE_AFTER_MS. */
	failingSince?: number;
}

/** What the trigger posts to a waiting node on a tick is `{payload, signature}`: the payload `{step, ballots, skipDue?}` as JSON, signed with the webhook secret. */

/** What the waiting node answers a tick: its new progress, and what it posted. */
export interface ClockReply {
	outcome: 'clock';
	step: number;
	nextAt: string | null;
	message: string;
}

export function signBody(secret: string, body: string): string {
	return createHmac('sha256', secret).update(body).digest('hex');
}

/** Whether a value is a question of the clock, as stored or posted. */
export function isClockEntry(value: unknown): value is ClockEntry {
	return (
		isPlainObject(value) &&
		typeof value.url === 'string' &&
		typeof value.step === 'number' &&
		Number.isInteger(value.step) &&
		value.step >= 0 &&
		(value.nextAt === null || (typeof value.nextAt === 'string' && !Number.isNaN(Date.parse(value.nextAt)))) &&
		(value.doneAt === undefined || typeof value.doneAt === 'number') &&
		(value.failingSince === undefined || typeof value.failingSince === 'number')
	);
}

export function readClockReply(body: unknown): ClockReply | undefined {
	if (!isPlainObject(body) || body.outcome !== 'clock' || typeof body.step !== 'number') return undefined;
	const nextAt = typeof body.nextAt === 'string' && !Number.isNaN(Date.parse(body.nextAt)) ? body.nextAt : null;
	return { outcome: 'clock', step: body.step, nextAt, message: typeof body.message === 'string' ? body.message : '' };
}

/** The trigger addresses in a workflow's global static data. */
export function clocksOf(globalStaticData: IDataObject): Record<string, ClockAddress> {
	const field = globalStaticData[CLOCKS_FIELD];
	if (!isPlainObject(field)) return {};
	const out: Record<string, ClockAddress> = {};
	for (const [name, value] of Object.entries(field)) {
		if (isPlainObject(value) && typeof value.url === 'string') {
			out[name] = typeof value.host === 'string' ? { url: value.url, host: value.host } : { url: value.url };
		}
	}
	return out;
}

/**
 * A question's nonce: random characters and, for questions with reminders or escalation, the
 * whole second it was asked (6 base64url digits, after 6 random ones). It is part of the URLs n8n
 * signs, so that time cannot be changed; 12 characters keep an answer token within
 * MAX_ANSWER_TOKEN_LENGTH for execution IDs of up to 12 digits.
 */
const TIMED_RANDOM_LENGTH = 6;
const TIME_DIGITS = 6;
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The nonce of a question with reminders or escalation asked at `now` (ms), and that time to the second. */
export function timedNonce(random: string, now: number): { nonce: string; askedAt: number } {
	let seconds = Math.floor(now / 1000);
	let time = '';
	for (let i = 0; i < TIME_DIGITS; i++) {
		time = DIGITS[seconds % 64] + time;
		seconds = Math.floor(seconds / 64);
	}
	return { nonce: `${random.slice(0, TIMED_RANDOM_LENGTH)}${time}`, askedAt: Math.floor(now / 1000) * 1000 };
}

/** When the question of a nonce was asked (ms); undefined for a nonce without a time. */
export function askedAtOf(nonce: string): number | undefined {
	if (nonce.length !== TIMED_RANDOM_LENGTH + TIME_DIGITS) return undefined;
	let seconds = 0;
	for (const digit of nonce.slice(TIMED_RANDOM_LENGTH)) {
		const value = DIGITS.indexOf(digit);
		if (value < 0) return undefined;
		seconds = seconds * 64 + value;
	}
	return seconds * 1000;
}
