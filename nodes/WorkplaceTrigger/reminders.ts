/**
 * The questions with reminders or escalation (Send and Wait, Options > Remind Approvers and
 * Escalate) this trigger's clock keeps, in its static data: each with the waiting node's signed
 * clock URL and its progress (../shared/inChatClock.ts). Messages to the clock come signed with
 * the webhook secret, through the trigger's own URL, so they reach any n8n process:
 * - `register`: a Send and Wait keeps its question here before it sends it;
 * - `tick` (clock.ts, every 30 s on the process that runs triggers): due questions are posted to
 *   their waiting node, which posts the reminder or escalation and answers its new progress;
 * - `keep`: a process that changed a question posts it again 3 s and 45 s later, since n8n
 *   saves static data whole and a delivery saved meanwhile by another process may have dropped it.
 * A question is forgotten when it has nothing left, or its execution no longer waits.
 */
import type { IDataObject, IHttpRequestOptions, IWebhookFunctions } from 'n8n-workflow';

import type { ClockEntry, ClockMessage } from '../shared/inChatClock';
import { CLOCK_FIELD, readClockReply, signBody } from '../shared/inChatClock';
import { processMap } from '../shared/processMemory';
import type { BallotStore } from './ballots';
import { heldBallots } from './ballots';
import { logTrigger } from './log';
import { postLater } from './recheck';
import { signingSecret } from './secret';
import { keep, requestOf, stored, write, forgetQuestion } from './reminderStore';
import { waitingBase } from './answers';

/** The most questions one tick posts to (the rest wait for the next tick). */
const MAX_DUE_PER_TICK = 20;

/** How long the waiting node may take: its posts have their own limits (15 s each). */
const TICK_FORWARD_TIMEOUT_MS = 40_000;

/** Whether this process's clock should tick soon (a question was registered here, or the last tick left some). */
const armed = processMap<string, boolean>();

export function isArmed(scope: string): boolean {
	return armed.get(scope) === true;
}

export function setArmed(scope: string, value: boolean): void {
	armed.set(scope, value);
	while (armed.size > 500) armed.delete(armed.keys().next().value as string);
}


/** After a change, the question is posted to the trigger's own URL again (see the top of the file). */
function keepAgainLater(ctx: IWebhookFunctions, request: string, entry: ClockEntry, resumeBaseUrl: unknown): void {
	postLater(ctx, resumeBaseUrl, {
		purpose: 'reminders',
		message: { [CLOCK_FIELD]: { keep: { ...entry, request } } },
		failed: "a reminder's progress could not be posted again; another n8n process's save may repeat one reminder",
	});
}

type TickOutcome = { kind: 'progress'; step: number; nextAt: string | null; message: string } | { kind: 'notWaiting' } | { kind: 'failed'; message: string };

/**
 * Where to post a tick: the waiting node's clock URL (execution, node, signed query) under n8n's
 * base URL of waiting executions as the trigger reaches it (its Resume Base URL, else derived from
 * its own URL), as taps are posted (answers.ts).
 */
function tickTarget(ctx: IWebhookFunctions, entry: ClockEntry, resumeBaseUrl: unknown): { url: string; host?: string } | undefined {
	const base = waitingBase(ctx, resumeBaseUrl);
	if (!base) return undefined;
	const url = new URL(entry.url);
	const [execution, node] = url.pathname.split('/').filter(Boolean).slice(-2);
	return { url: `${base.url}/${execution}/${node}${url.search}`, host: base.host };
}

/** Posts a tick to one waiting node: its progress and the question's counted taps, signed. */
async function postTick(ctx: IWebhookFunctions, entry: ClockEntry, ballots: IDataObject[], secret: string, resumeBaseUrl: unknown): Promise<TickOutcome> {
	const target = tickTarget(ctx, entry, resumeBaseUrl);
	if (!target) return { kind: 'failed', message: 'the option Resume Base URL is not a URL' };
	const payload = JSON.stringify({ step: entry.step, ballots });
	const request: IHttpRequestOptions = {
		method: 'POST',
		url: target.url,
		body: { payload, signature: signBody(secret, payload) },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: TICK_FORWARD_TIMEOUT_MS,
		headers: { 'user-agent': 'n8n-nodes-workplace (Workplace Trigger clock)', ...(target.host ? { host: target.host } : {}) },
	};
	let response: { statusCode: number; body: unknown };
	try {
		response = (await ctx.helpers.httpRequest(request)) as { statusCode: number; body: unknown };
	} catch (error) {
		return { kind: 'failed', message: (error as Error).message };
	}
	const reply = readClockReply(response.body);
	if (reply) return { kind: 'progress', step: reply.step, nextAt: reply.nextAt, message: reply.message };
	if (response.statusCode >= 500) return { kind: 'failed', message: `n8n answered ${response.statusCode}` };
	// n8n answered instead of the node (finished, stopped or gone), or the node refused the tick.
	return { kind: 'notWaiting' };
}

/** A tick: every due question goes to its waiting node; what it answers is kept. How many were posted to. */
async function tick(ctx: IWebhookFunctions, staticData: IDataObject, ballots: BallotStore, resumeBaseUrl: unknown): Promise<string> {
	const now = Date.now();
	const entries = stored(staticData);
	const due = Object.entries(entries)
		.filter(([, entry]) => entry.nextAt !== null && Date.parse(entry.nextAt) <= now)
		.slice(0, MAX_DUE_PER_TICK);
	const secret = due.length ? await signingSecret(ctx) : undefined;
	for (const [request, entry] of due) {
		if (!secret) break;
		const outcome = await postTick(ctx, entry, heldBallots(ballots, request) as unknown as IDataObject[], secret, resumeBaseUrl);
		if (outcome.kind === 'failed') {
			logTrigger(ctx, 'warn', `a reminder of execution ${request.split(':')[0]} could not be handed to it (${outcome.message}); the next tick tries again.`);
			continue;
		}
		if (outcome.kind === 'notWaiting' || outcome.nextAt === null) {
			forgetQuestion(staticData, request);
			continue;
		}
		const next: ClockEntry = { ...entry, step: outcome.step, nextAt: outcome.nextAt };
		if (outcome.step !== entry.step) {
			logTrigger(ctx, 'info', `execution ${request.split(':')[0]}: ${outcome.message}.`);
			keep(staticData, request, next);
			keepAgainLater(ctx, request, next, resumeBaseUrl);
		} else {
			keep(staticData, request, next);
		}
	}
	const left = Object.values(stored(staticData)).filter((entry) => entry.nextAt !== null).length;
	return `${due.length} due, ${left} waiting`;
}

/** One message to the clock, already verified with the webhook secret: what was done, for the answer. */
export async function answerClock(
	ctx: IWebhookFunctions,
	message: ClockMessage,
	where: { scope: string; staticData: IDataObject; ballots: BallotStore; resumeBaseUrl: unknown },
): Promise<{ text: string; waiting: number }> {
	const { scope, staticData, resumeBaseUrl } = where;
	if ('register' in message || 'keep' in message) {
		const entry = 'register' in message ? message.register : message.keep;
		const request = 'keep' in message ? message.keep.request : requestOf(entry.url);
		if (!request) return { text: 'not a clock URL', waiting: 0 };
		const { url, step, nextAt } = entry;
		const clean: ClockEntry = { url, step, nextAt };
		if ('register' in message) {
			write(staticData, { ...stored(staticData), [request]: clean });
			keepAgainLater(ctx, request, clean, resumeBaseUrl);
		} else {
			keep(staticData, request, clean);
		}
		setArmed(scope, true);
		return { text: 'registered', waiting: Object.keys(stored(staticData)).length };
	}
	const text = await tick(ctx, staticData, where.ballots, resumeBaseUrl);
	const waiting = Object.values(stored(staticData)).filter((entry) => entry.nextAt !== null).length;
	return { text, waiting };
}
