/**
 * The questions with reminders or escalation (Send and Wait, Options > Remind Approvers and
 * Escalate) this trigger's clock keeps, in its static data: each with the waiting node's signed
 * clock URL and its progress (../../shared/approvals/clockProtocol.ts). Messages to the clock come signed with
 * the webhook secret, through the trigger's own URL, so they reach any n8n process:
 * - `register`: a Send and Wait keeps its question here before it sends it;
 * - `tick` (reminderClock.ts, every 30 s on the process that runs triggers): due questions are posted to
 *   their waiting node, which posts the reminder or escalation and answers its new progress;
 * - `keep`: a process that changed a question posts it again at RECHECK_DELAYS_MS, since n8n
 *   saves static data whole and a request saved meanwhile by another process may have dropped it.
 * A question is done when it has nothing left, or its execution no longer waits; done questions
 * are kept 10 minutes (so a late `keep` cannot bring them back), then dropped.
 */
import type { IDataObject, IHttpRequestOptions, IWebhookFunctions } from 'n8n-workflow';

import type { ClockEntry } from '../../shared/approvals/clockProtocol';
import { readClockReply, signBody } from '../../shared/approvals/clockProtocol';
import type { OwnMessage } from '../../shared/approvals/ownMessages';
import { logTrigger } from '../log';
import { postLater } from './ownUrl';
import { askWhetherWaiting } from './recounts';
import { learned } from './questionLife';
import { GIVE_UP_UNREACHABLE_AFTER_MS, TICK_FORWARD_TIMEOUT_MS, TICK_START_WITHIN_MS } from '../../shared/approvals/timing';
import { signingSecret } from '../secret';
import type { QuestionStore } from './questionStore';
import { armClock, clockUrlParts, countingRequests, endReminders, heldBallots, idleQuestions, keep, nextActionAt, nextIdleCheckAt, put, requestOf, storedReminders, waitingRequests } from './questionStore';
import { waitingBase } from './handOn';

/** The most questions one tick posts to (the rest wait for the next tick). */
const MAX_DUE_PER_TICK = 20;

/** After a change, the question is posted to the trigger's own URL again (see the top of the file). */
function keepAgainLater(ctx: IWebhookFunctions, request: string, entry: ClockEntry, resumeBaseUrl: unknown): void {
	postLater(ctx, resumeBaseUrl, {
		purpose: 'reminders',
		message: { kind: 'keep', request, entry },
		failed: "a reminder's progress could not be posted again; another n8n process's save may repeat one reminder",
	});
}

/**
 * What a hand-over came to. `failed`: it did not reach the waiting node (`reached: false`, tried
 * again at the next tick), or perhaps it did and its answer was lost (`reached: true`).
 */
type TickOutcome =
	| { kind: 'progress'; step: number; nextAt: string | null; message: string }
	/** n8n answered instead of the node: decided, stopped or timed out (`status` 409 or a page), or refused (`refusal`). */
	| { kind: 'notWaiting'; refusal?: string }
	| { kind: 'failed'; message: string; reached: boolean };

/** Why n8n refused a tick, and what to fix: the question's reminders end. */
function refusalOf(status: number): string | undefined {
	if (status === 401 || status === 403) return `n8n refused the clock URL (${status}): n8n 1.x checks the Host of waiting URLs against its own (set the trigger's Resume Base URL to n8n's public address), or the webhook secrets of the trigger and the Send and Wait node differ`;
	if (status === 404) return "n8n answered 404: the execution is gone, or n8n's waiting endpoint is not /webhook-waiting (N8N_ENDPOINT_WEBHOOK_WAIT): set the trigger's Resume Base URL";
	return undefined;
}

/** Errors of a connection that never carried the request. */
const NOT_SENT = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/;

/**
 * Where to post a tick: the waiting node's clock URL (execution, node, signed query) under n8n's
 * base URL of waiting executions as the trigger reaches it (its Resume Base URL, else derived from
 * its own URL), as taps are posted (handOn.ts).
 */
function tickTarget(ctx: IWebhookFunctions, entry: ClockEntry, resumeBaseUrl: unknown): { url: string; host?: string } | undefined {
	const base = waitingBase(ctx, resumeBaseUrl);
	const parts = clockUrlParts(entry.url);
	if (!base || !parts) return undefined;
	return { url: `${base.url}/${parts.execution}/${parts.node}${parts.search}`, host: base.host };
}

/** Posts a tick to one waiting node: its progress and the question's counted taps, signed. */
async function postTick(ctx: IWebhookFunctions, entry: ClockEntry, ballots: IDataObject[], secret: string, resumeBaseUrl: unknown): Promise<TickOutcome> {
	const target = tickTarget(ctx, entry, resumeBaseUrl);
	if (!target) return { kind: 'failed', message: 'the option Resume Base URL or the clock URL is not a URL', reached: false };
	const payload = JSON.stringify({ step: entry.step, ballots, ...(entry.uncertain ? { skipDue: true } : {}) });
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
		const { message, code } = error as Error & { code?: unknown };
		return { kind: 'failed', message, reached: !NOT_SENT.test(`${String(code ?? '')} ${message}`) };
	}
	const reply = readClockReply(response.body);
	if (reply) return { kind: 'progress', step: reply.step, nextAt: reply.nextAt, message: reply.message };
	// 502 and 503: a proxy or n8n starting up answered; the node did not run.
	if (response.statusCode >= 500) return { kind: 'failed', message: `n8n answered ${response.statusCode}`, reached: ![502, 503].includes(response.statusCode) };
	// n8n answered instead of the node (finished, stopped or gone), or the node refused the tick.
	return { kind: 'notWaiting', refusal: refusalOf(response.statusCode) };
}

/** What a tick does with one question after its hand-over (questionLife.ts for a question that ended). */
function afterHandOver(ctx: IWebhookFunctions, store: QuestionStore, request: string, entry: ClockEntry, outcome: TickOutcome, resumeBaseUrl: unknown): void {
	const execution = request.split(':')[0];
	if (outcome.kind === 'notWaiting') {
		// Refused by n8n: its reminders end; its votes, if any, are asked about apart (recounts.ts).
		if (!outcome.refusal) return void learned(ctx, store, request, 'ended');
		logTrigger(ctx, 'warn', `the reminders of the in-chat approval of execution ${execution} ended: ${outcome.refusal}.`);
		return endReminders(store, request);
	}
	if (outcome.kind === 'failed') {
		const failingSince = entry.failingSince ?? Date.now();
		if (Date.now() - failingSince >= GIVE_UP_UNREACHABLE_AFTER_MS) {
			logTrigger(ctx, 'warn', `the reminders of the in-chat approval of execution ${execution} were given up: its waiting node has not answered a tick for an hour (last: ${outcome.message}).`);
			return void learned(ctx, store, request, 'givenUp');
		}
		// Said once per outage of a question; the next tick tries again.
		if (entry.failingSince === undefined) logTrigger(ctx, 'warn', `a reminder of execution ${execution} could not be handed to it (${outcome.message}); the next ticks try again, for an hour at most.`);
		if (!outcome.reached) return put(store, request, { ...entry, failingSince });
		// Perhaps posted: what was due is skipped rather than perhaps posted twice.
		logTrigger(ctx, 'warn', `a reminder of execution ${execution} may have been posted, its answer was lost (${outcome.message}); what was due is skipped, later ones come as planned.`);
		put(store, request, { ...entry, uncertain: true, failingSince });
		return;
	}
	const next: ClockEntry = outcome.nextAt === null ? { url: entry.url, step: outcome.step, nextAt: null, doneAt: Date.now() } : { url: entry.url, step: outcome.step, nextAt: outcome.nextAt };
	if (outcome.step === entry.step && !entry.uncertain) return void keep(store, request, next);
	logTrigger(ctx, 'info', `execution ${execution}: ${outcome.message}.`);
	put(store, request, next);
	keepAgainLater(ctx, request, next, resumeBaseUrl);
}

/**
 * A tick: the due questions go to their waiting nodes, one at a time, those started within
 * TICK_START_WITHIN_MS; then questions whose votes changed nothing for a while are asked whether
 * they still wait (votesStore.ts), so that stopped or timed-out ones end.
 */
async function tick(ctx: IWebhookFunctions, store: QuestionStore, resumeBaseUrl: unknown): Promise<string> {
	const startedAt = Date.now();
	const due = Object.entries(storedReminders(store))
		.filter(([, entry]) => entry.nextAt !== null && Date.parse(entry.nextAt) <= startedAt)
		.slice(0, MAX_DUE_PER_TICK);
	const secret = due.length ? await signingSecret(ctx) : undefined;
	let handed = 0;
	for (const [request, entry] of due) {
		if (!secret || Date.now() - startedAt > TICK_START_WITHIN_MS) break;
		const outcome = await postTick(ctx, entry, heldBallots(store, request) as unknown as IDataObject[], secret, resumeBaseUrl);
		afterHandOver(ctx, store, request, entry, outcome, resumeBaseUrl);
		handed++;
	}
	let asked = 0;
	for (const { request, ballots: taps } of idleQuestions(store).slice(0, MAX_DUE_PER_TICK)) {
		if (Date.now() - startedAt > TICK_START_WITHIN_MS) break;
		await askWhetherWaiting(ctx, store, request, taps, resumeBaseUrl);
		asked++;
	}
	return `${handed} of ${due.length} due handed on, ${asked} idle asked`;
}

/** What the clock is told after a message: how many questions wait, and when it should tick next (ms). */
export interface ClockAnswer {
	text: string;
	waiting: number;
	nextDueAt?: number;
}

function clockAnswer(text: string, store: QuestionStore): ClockAnswer {
	const times = [nextActionAt(store), nextIdleCheckAt(store)].filter((at): at is number => at !== undefined);
	const answer: ClockAnswer = { text, waiting: new Set([...waitingRequests(store), ...countingRequests(store)]).size };
	if (times.length) answer.nextDueAt = Math.min(...times);
	return answer;
}

/** One message to the clock, already verified with the webhook secret: what was done, for the answer. */
export async function answerClock(
	ctx: IWebhookFunctions,
	message: Exclude<OwnMessage, { kind: 'recount' }>,
	store: QuestionStore,
	resumeBaseUrl: unknown,
): Promise<ClockAnswer> {
	if (message.kind !== 'tick') {
		const { entry } = message;
		const request = message.kind === 'keep' ? message.request : requestOf(entry.url);
		if (!request) return { text: 'not a clock URL', waiting: 0 };
		const { url, step, nextAt, doneAt } = entry;
		const clean: ClockEntry = typeof doneAt === 'number' ? { url, step, nextAt, doneAt } : { url, step, nextAt };
		if (message.kind === 'register') {
			put(store, request, clean);
			keepAgainLater(ctx, request, clean, resumeBaseUrl);
		} else {
			keep(store, request, clean);
		}
		if (nextAt !== null) armClock(ctx, store.scope, Date.parse(nextAt));
		return clockAnswer('registered', store);
	}
	return clockAnswer(await tick(ctx, store, resumeBaseUrl), store);
}
