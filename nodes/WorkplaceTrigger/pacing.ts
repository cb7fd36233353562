import type { INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';
import { Expression } from 'n8n-workflow';

import { n8nWorkflowVersion } from '../shared/reliance';
import { pause } from '../shared/transport/timeLimit';
import { logTriggerOnce } from './log';

/**
 * Answers a delivery once n8n has started its run, as n8n's own Webhook node does: its answer
 * waits for WorkflowRunner.run, so a sender sending N at a time never gets ahead of the runs.
 *
 * The trigger must leave its answer to itself (`noWebhookResponse`) so that n8n 2 saves the
 * received events before the run starts, which lets a plain answer go before the run exists; a
 * burst then queued hundreds of runs in n8n 2, each with its own expression isolate (+12.8 GiB
 * for 2,000 deliveries, bench (c) in bench/RESULTS.md). Now webhook() hands its items to the run without answering, and the
 * answer goes when the run reaches the trigger node: n8n's engine calls the node's execute()
 * with those very items (`runStarted`).
 *
 * Only where that cost exists: n8n 2's default expression engine (a pool of isolates,
 * `Expression.vmEvaluator`, n8n-workflow 2.x) gives every execution and every webhook request of a
 * trigger other than the Webhook node an isolate of its own. Without it (n8n 1.x, or n8n 2 with
 * N8N_EXPRESSION_ENGINE=legacy) a run waiting to start costs little, and the answer goes at once:
 * there the Webhook node answers ahead of its runs too, and holding would only slow the sender.
 *
 * Runs that start in another process (queue mode: workers) never reach this one: while no run
 * of a held delivery has started here, an answer waits at most PROBE_LIMIT_MS, and once one
 * such wait has run out with no run seen, answers go at once. A run seen later (even late)
 * switches this process to holding again.
 *
 * Both signals are n8n internals (docs/ARCHITECTURE.md, "What we rely on in n8n"). When n8n 2 shows
 * no `Expression.vmEvaluator`, or when no run is seen here within PROBE_LIMIT_MS + HOLD_LIMIT_MS
 * of a held delivery, the trigger answers at once and says so once per process (logTriggerOnce).
 */

/** Longest wait for a run to start, in a process where runs start: the answer then goes anyway. */
const HOLD_LIMIT_MS = 10_000;

/** Longest wait while this process has not yet seen a run of a held delivery start here. */
const PROBE_LIMIT_MS = 2_000;

type RunsStart = 'unknown' | 'here' | 'elsewhere';

let runsStart: RunsStart = 'unknown';

type LogContext = Parameters<typeof logTriggerOnce>[0];

/**
 * n8n-workflow releases from this one on were checked to carry the isolate engine
 * (`Expression.expressionEngine`, `vmEvaluator`: 2.20.3 in n8n 2.20.12); n8n 2.0.3's 2.0.1 has
 * neither, and there runs cost no isolate.
 */
const ISOLATE_ENGINE_SINCE: [number, number] = [2, 20];

/**
 * Whether n8n gives each run an expression isolate (n8n 2's default engine): read each time, n8n
 * starts it at launch. An engine other than "legacy" without the evaluator, or an n8n-workflow
 * known to carry the engine where neither can be read, is an n8n that changed where it keeps them:
 * pacing is off then, and the admin is told once.
 */
function runsCostAnIsolate(ctx: LogContext): boolean {
	const expression = Expression as unknown as { vmEvaluator?: unknown; expressionEngine?: unknown };
	if (expression.vmEvaluator) return true;
	const engine = expression.expressionEngine;
	const version = n8nWorkflowVersion();
	const knownToCarryIt = version !== undefined && (version[0] > ISOLATE_ENGINE_SINCE[0] || (version[0] === ISOLATE_ENGINE_SINCE[0] && version[1] >= ISOLATE_ENGINE_SINCE[1]));
	if ((typeof engine === 'string' && engine !== 'legacy') || (engine === undefined && knownToCarryIt)) {
		const named = typeof engine === 'string' ? `"${engine}"` : 'not readable (Expression.expressionEngine)';
		logTriggerOnce(
			ctx,
			'pacingEngine',
			`n8n-workflow ${version?.join('.') ?? '?'} shows no Expression.vmEvaluator while its expression engine is ${named}, so the trigger cannot tell whether each run costs an expression isolate: it answers every delivery at once instead of once its run has started (pacing off). Nothing is lost; a burst of deliveries may queue many runs at once. With N8N_EXPRESSION_ENGINE=legacy this is expected.`,
		);
	}
	return false;
}

/** The wait of reportWhenNoRunComes, ended by a run seen here. */
let reportWait: AbortController | undefined;

/** Why a wait is aborted: without one, every abort builds a DOMException. */
const RUN_SEEN = 'run seen';

/** After a held delivery's first wait ran out: if no run is seen here for HOLD_LIMIT_MS more, the admin is told once. */
function reportWhenNoRunComes(ctx: LogContext): void {
	const wait = new AbortController();
	reportWait = wait;
	void pause(HOLD_LIMIT_MS, wait.signal).then(() => {
		if (runsStart !== 'elsewhere') return;
		logTriggerOnce(
			ctx,
			'pacingRuns',
			`no run of a delivery this process held started here within ${(PROBE_LIMIT_MS + HOLD_LIMIT_MS) / 1000} s, so deliveries are answered at once from now on (until a run starts here). Either runs start in other processes (queue mode: webhook processes hand them to workers; expected there, nothing to do), or n8n no longer hands the items webhook() returned to the trigger's execute() (answers then go ahead of their runs; nothing is lost).`,
		);
	});
}

/** The answer of each held delivery, by the `json` object of its first item (the run gets the same object). */
const held = new WeakMap<object, () => void>();

/**
 * Sends `answer` when the run of `items` starts in this process, or when the wait runs out.
 * Never awaited by webhook(): n8n starts the run only after webhook() has returned.
 */
export function answerWhenRunStarts(ctx: IWebhookFunctions, items: INodeExecutionData[], answer: () => void): void {
	let answered = false;
	// Answered, the wait's timer goes too: it would keep this context for up to HOLD_LIMIT_MS.
	const wait = new AbortController();
	const send = () => {
		if (answered) return;
		answered = true;
		wait.abort(RUN_SEEN);
		answer();
	};
	const first = items[0]?.json;
	if (!first || !runsCostAnIsolate(ctx)) return send();
	// Kept also when answered at once, so that a run starting here is still seen.
	held.set(first, send);
	if (runsStart === 'elsewhere') return send();
	void pause(runsStart === 'here' ? HOLD_LIMIT_MS : PROBE_LIMIT_MS, wait.signal).then(() => {
		if (answered) return;
		if (runsStart === 'unknown') {
			runsStart = 'elsewhere';
			reportWhenNoRunComes(ctx);
		}
		send();
	});
}

/** Called from the trigger's execute(): the run of these items has started; answer their delivery. */
export function runStarted(items: INodeExecutionData[]): void {
	const send = items.length ? held.get(items[0].json) : undefined;
	if (!send) return;
	held.delete(items[0].json);
	runsStart = 'here';
	reportWait?.abort(RUN_SEEN);
	reportWait = undefined;
	send();
}

