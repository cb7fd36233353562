/**
 * The trigger's clock for reminders and escalation of in-chat approvals (../../shared/approvals/clockProtocol.ts
 * says why the clock must be an active trigger). When n8n registers the webhook for production,
 * recordClockAddress writes where the trigger listens into the workflow's static data, for Send
 * and Wait to find. n8n runs trigger() on the process that runs triggers (the leader in queue
 * mode) and again after a restart: every CLOCK_TICK it posts a signed tick to the trigger's own
 * URL, which any process answers from the stored questions (clockTicks.ts); the answer says when
 * the next one is due. Idle (nothing due) it posts nothing once ALONE_AFTER_OWN_ANSWERS ticks were
 * answered by its own process (one n8n process), and every IDLE_TICK_MS once another process
 * answered one (queue mode: questions registered there are seen within that).
 */
import type { IDataObject, IHookFunctions, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';

import type { ClockAddress } from '../../shared/approvals/clockProtocol';
import { CLOCKS_FIELD, clocksOf } from '../../shared/approvals/clockProtocol';
import { isPlainObject } from '../../shared/validation';
import { logTrigger } from '../log';
import { ownUrl, postToOwnUrl } from './ownUrl';
import { clockDueAt, clockMayBeForgotten, setClockDue } from './questionStore';
import { ALONE_AFTER_OWN_ANSWERS, CLOCK_RETRY_SLOW_MS, CLOCK_TICK, GIVE_UP_UNREACHABLE_AFTER_MS, IDLE_TICK_MS, TICK_ANSWER_TIMEOUT_MS } from '../../shared/approvals/timing';
import { processId } from '../../shared/processMemory';
/** The key of a trigger in the static data: its webhook ID, which stays when the node is renamed. */
function clockKey(node: { webhookId?: string; name: string }): string {
	return node.webhookId ?? node.name;
}

function usesSecret(ctx: Pick<IHookFunctions, 'getNodeParameter'>): boolean {
	return ctx.getNodeParameter('verification', 'secret') === 'secret';
}

/** At activation (not when listening for a test event): where this trigger listens, for Send and Wait. */
export function recordClockAddress(ctx: IHookFunctions): void {
	if (ctx.getMode() === 'manual' || !usesSecret(ctx)) return;
	const options = (ctx.getNodeParameter('options', {}) as IDataObject) ?? {};
	const address = ownUrl(ctx, options.resumeBaseUrl);
	if (!address) return;
	const global = ctx.getWorkflowStaticData('global');
	const clocks = clocksOf(global);
	const key = clockKey(ctx.getNode());
	// Written only when it changed: n8n saves static data it sees changed.
	if (JSON.stringify(clocks[key]) === JSON.stringify(address)) return;
	global[CLOCKS_FIELD] = { ...clocks, [key]: address } as unknown as IDataObject;
}

/**
 * n8n's registerCron takes `{expression}` since n8n 1.10x and a bare expression before; both are
 * its documented node API of their time, so the other form is tried when the first throws.
 */
function registerEvery(ctx: ITriggerFunctions, expression: string, onTick: () => void): void {
	const register = ctx.helpers.registerCron as unknown as (cron: unknown, tick: () => void) => unknown;
	try {
		register({ expression }, onTick);
	} catch {
		try {
			register(expression, onTick);
		} catch (error) {
			logTrigger(ctx, 'error', `its clock could not be started (${(error as Error).message}): reminders and escalation of in-chat approvals are not sent.`);
		}
	}
}

async function secretOf(ctx: ITriggerFunctions): Promise<string | undefined> {
	const { secret } = await ctx.getCredentials<{ secret?: string }>('workplaceWebhookApi');
	return typeof secret === 'string' && secret !== '' ? secret : undefined;
}

/** Posts one tick: when the next is due and which process answered, or undefined when the tick did not get through. */
async function postClockTick(ctx: ITriggerFunctions, address: ClockAddress): Promise<{ nextDueAt?: number; answeredBy: unknown } | undefined> {
	const secret = await secretOf(ctx);
	if (!secret) return undefined;
	const answer = await postToOwnUrl(ctx, address, secret, { kind: 'tick', at: new Date().toISOString() }, 'clock', TICK_ANSWER_TIMEOUT_MS);
	if (!isPlainObject(answer) || typeof answer.waiting !== 'number') return undefined;
	return typeof answer.nextDueAt === 'number' ? { nextDueAt: answer.nextDueAt, answeredBy: answer.answeredBy } : { answeredBy: answer.answeredBy };
}

/** trigger(): starts the clock in production; it stops with the workflow (n8n removes its crons). */
export async function startClock(ctx: ITriggerFunctions): Promise<ITriggerResponse> {
	if (ctx.getMode() === 'manual' || !usesSecret(ctx)) return {};
	const node = ctx.getNode();
	const scope = `${ctx.getWorkflow().id ?? ''}:${node.id ?? node.name}`;
	let lastPostAt = 0;
	let busy = false;
	let failingSince: number | undefined;
	let slowSaid = false;
	// The first tick after a start looks at what is stored; then another process answering means
	// queue mode (or several n8n processes behind one address): idle, the clock asks every minute.
	// Alone: only after ALONE_AFTER_OWN_ANSWERS answers of its own, since a proxy may pick any process.
	let first = true;
	let othersAnswer = false;
	let ownAnswers = 0;
	const onTick = () => {
		// A second less than the idle time: the cron's ticks come a few milliseconds early or late.
		// Failing for an hour, only `due` (every CLOCK_RETRY_SLOW_MS) says when to try again.
		const idlePollDue = !slowSaid && (othersAnswer || ownAnswers < ALONE_AFTER_OWN_ANSWERS || clockMayBeForgotten(scope)) && Date.now() - lastPostAt >= IDLE_TICK_MS - 1_000;
		const due = clockDueAt(scope);
		if (busy || !(first || (due !== undefined && Date.now() >= due - 1_000) || idlePollDue)) return;
		const address = clocksOf(ctx.getWorkflowStaticData('global'))[clockKey(node)];
		if (!address) return;
		busy = true;
		first = false;
		lastPostAt = Date.now();
		void postClockTick(ctx, address)
			.then((answer) => {
				if (answer === undefined) throw new Error('the trigger did not answer the tick');
				setClockDue(ctx, scope, answer.nextDueAt);
				if (answer.answeredBy !== processId()) othersAnswer = true;
				else ownAnswers++;
				failingSince = undefined;
				slowSaid = false;
			})
			.catch((error: Error) => {
				// Said once per outage; the next tick (30 s) tries again, after an hour of failures every
				// CLOCK_RETRY_SLOW_MS (said once more).
				const now = Date.now();
				if (failingSince === undefined) logTrigger(ctx, 'warn', `a tick of its clock did not reach ${address.url} (${error.message}); reminders wait for the next tick.`);
				const since = failingSince ?? now;
				const slow = now - since >= GIVE_UP_UNREACHABLE_AFTER_MS;
				if (slow && !slowSaid) {
					slowSaid = true;
					logTrigger(ctx, 'warn', `ticks of its clock have not reached ${address.url} for an hour (${error.message}); it now tries every ${CLOCK_RETRY_SLOW_MS / 60_000} minutes until one gets through.`);
				}
				failingSince = since;
				setClockDue(ctx, scope, slow ? now + CLOCK_RETRY_SLOW_MS : now);
			})
			.finally(() => {
				busy = false;
			});
	};
	registerEvery(ctx, CLOCK_TICK, onTick);
	return {};
}
