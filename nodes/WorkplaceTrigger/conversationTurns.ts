import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { processMap } from '../shared/processMemory';
import { pause } from '../shared/transport/timeLimit';
import { conversationKeyOf } from './eventFields';
import { logTrigger, logTriggerOnce } from './log';

/**
 * "One Run per Conversation at a Time": a run of a conversation (its items' `conversationKey`)
 * waits in the trigger node until the conversation's previous run in this process has ended, so its AI agent reads the memory the previous run wrote.
 *
 * Where it waits: in the trigger's execute(), the first step of the run, after the delivery was
 * answered (pacing.ts). Not in webhook(): a request holds the copy of the static data n8n loaded
 * when it began and saves whole when it ends (docs/ARCHITECTURE.md reliance 11), so a delivery held
 * there for minutes would write back old received-event keys and in-chat votes over newer ones; a
 * run holds nothing of the trigger's static data.
 *
 * How it learns a run ended: the run's lifecycle hooks, which n8n-core hands every node context
 * (`additionalData.hooks`, not part of IExecuteFunctions: reliance 14), and runs as
 * `workflowExecuteAfter` when the run ends: finished, failed, stopped, or paused in a Wait. Without
 * them the option does nothing and says so once per process.
 *
 * Bounded: a run waits at most the option's limit, then runs anyway with one log line; Stop ends
 * its wait. Per process: the turns live in this process's memory (lost with a restart, as the runs
 * are); in queue mode runs of one conversation wait for each other when they run on the same
 * worker. Idle, it holds nothing: a conversation's entry goes when its last run ends.
 */

/** The default and the largest "Max Wait" of a run for its conversation's previous run, in seconds. */
export const DEFAULT_TURN_WAIT_S = 300;
export const MAX_TURN_WAIT_S = 3600;

/** The end of the last run that took each conversation's turn here, by `<workflow>:<node>|<conversation key>`. */
const lastRuns = processMap<string, Promise<void>>();

/**
 * The most conversations whose last run one process remembers. An entry goes when its run ends;
 * only runs whose end n8n never reports pile up. Beyond it the oldest is forgotten (its next run
 * does not wait), said once per process.
 */
export const MAX_CONVERSATIONS_HELD = 10_000;

const boundSaid = processMap<'said', true>();

/** What the trigger uses of n8n-core's ExecutionLifecycleHooks. */
interface RunHooks {
	addHandler(name: 'workflowExecuteAfter', handler: () => void): void;
}

/** The run's lifecycle hooks as n8n-core hands them to a node context, or undefined. */
function runHooksOf(ctx: IExecuteFunctions): RunHooks | undefined {
	const hooks = (ctx as unknown as { additionalData?: { hooks?: { addHandler?: unknown } } }).additionalData?.hooks;
	return hooks && typeof hooks.addHandler === 'function' ? (hooks as RunHooks) : undefined;
}

/** Why the wait's timer is aborted: without one, every abort builds a DOMException. */
const TURN_CAME = 'turn came';

/** Tests only: how many conversations have a run holding their turn in this process. */
export function conversationsHeldForTests(): number {
	return lastRuns.size;
}

/**
 * Takes the turn of each conversation of `items` and waits (at most `limitS`) until the earlier
 * runs holding them in this process have ended. The turn passes on when this run ends.
 */
export async function waitForConversationTurn(ctx: IExecuteFunctions, items: INodeExecutionData[], limitS: number): Promise<void> {
	// The key the trigger gave the item (it knows the direct chats it saw joined), else the event's own.
	const keyOf = (item: INodeExecutionData) => (typeof item.json.conversationKey === 'string' ? item.json.conversationKey : conversationKeyOf(item.json));
	const conversations = [...new Set(items.map(keyOf).filter((key): key is string => key !== undefined))];
	if (!conversations.length) return;
	const hooks = runHooksOf(ctx);
	if (!hooks) {
		logTriggerOnce(
			ctx,
			'runEnd',
			'n8n hands the trigger\'s run no lifecycle hooks (additionalData.hooks.addHandler), so "One Run per Conversation at a Time" cannot learn when a run ends: runs of one conversation are not held and may read the agent\'s memory before the previous run wrote it. Nothing is lost otherwise.',
		);
		return;
	}
	const node = ctx.getNode();
	const scope = `${ctx.getWorkflow().id ?? ''}:${node.id ?? node.name}`;
	const keys = conversations.map((conversation) => `${scope}|${conversation}`);

	// One synchronous step for all of the run's conversations: every run waits only for runs that took
	// their turns before it, so no two runs wait for each other.
	let release = () => {};
	const ended = new Promise<void>((resolve) => {
		release = resolve;
	});
	const earlier: Array<Promise<void>> = [];
	for (const key of keys) {
		const previous = lastRuns.get(key);
		if (previous) earlier.push(previous);
		lastRuns.set(key, ended);
	}
	if (lastRuns.size > MAX_CONVERSATIONS_HELD) {
		while (lastRuns.size > MAX_CONVERSATIONS_HELD) lastRuns.delete(lastRuns.keys().next().value as string);
		if (!boundSaid.has('said')) {
			boundSaid.set('said', true);
			logTrigger(ctx, 'warn', `this n8n process holds the turns of more than ${MAX_CONVERSATIONS_HELD} conversations whose runs n8n did not report ended (One Run per Conversation at a Time): the oldest are forgotten, and their next runs do not wait.`);
		}
	}
	let over = false;
	hooks.addHandler('workflowExecuteAfter', () => {
		if (over) return;
		over = true;
		release();
		for (const key of keys) if (lastRuns.get(key) === ended) lastRuns.delete(key);
	});
	if (!earlier.length) return;

	const cancelled = ctx.getExecutionCancelSignal?.();
	if (cancelled?.aborted) return;
	const wait = new AbortController();
	const stopWaiting = () => wait.abort(TURN_CAME);
	cancelled?.addEventListener('abort', stopWaiting, { once: true });
	let turnCame = false;
	void Promise.all(earlier).then(() => {
		turnCame = true;
		stopWaiting();
	});
	await pause(limitS * 1000, wait.signal);
	cancelled?.removeEventListener('abort', stopWaiting);
	if (turnCame || cancelled?.aborted) return;
	stopWaiting();
	logTrigger(
		ctx,
		'warn',
		`a run of conversation ${conversations.join(', ')} waited ${limitS} s (One Run per Conversation at a Time: Max Wait) for the conversation's previous run to end and now runs anyway; its agent may not see the previous answer in memory. Raise Max Wait if the workflow's runs take longer.`,
	);
}
