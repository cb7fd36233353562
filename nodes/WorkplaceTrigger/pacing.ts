import type { INodeExecutionData } from 'n8n-workflow';
import { Expression, sleep } from 'n8n-workflow';

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
 */

/** Longest wait for a run to start, in a process where runs start: the answer then goes anyway. */
const HOLD_LIMIT_MS = 10_000;

/** Longest wait while this process has not yet seen a run of a held delivery start here. */
const PROBE_LIMIT_MS = 2_000;

type RunsStart = 'unknown' | 'here' | 'elsewhere';

let runsStart: RunsStart = 'unknown';

/** Whether n8n gives each run an expression isolate (n8n 2's default engine): read each time, n8n starts it at launch. */
function runsCostAnIsolate(): boolean {
	return Boolean((Expression as unknown as { vmEvaluator?: unknown }).vmEvaluator);
}

/** The answer of each held delivery, by the `json` object of its first item (the run gets the same object). */
const held = new WeakMap<object, () => void>();

/**
 * Sends `answer` when the run of `items` starts in this process, or when the wait runs out.
 * Never awaited by webhook(): n8n starts the run only after webhook() has returned.
 */
export function answerWhenRunStarts(items: INodeExecutionData[], answer: () => void): void {
	let answered = false;
	const send = () => {
		if (answered) return;
		answered = true;
		answer();
	};
	const first = items[0]?.json;
	if (!first || !runsCostAnIsolate()) return send();
	// Kept also when answered at once, so that a run starting here is still seen.
	held.set(first, send);
	if (runsStart === 'elsewhere') return send();
	void sleep(runsStart === 'here' ? HOLD_LIMIT_MS : PROBE_LIMIT_MS).then(() => {
		if (answered) return;
		if (runsStart === 'unknown') runsStart = 'elsewhere';
		send();
	});
}

/** Called from the trigger's execute(): the run of these items has started; answer their delivery. */
export function runStarted(items: INodeExecutionData[]): void {
	const send = items.length ? held.get(items[0].json) : undefined;
	if (!send) return;
	held.delete(items[0].json);
	runsStart = 'here';
	send();
}

