import type { Logger } from 'n8n-workflow';

import { processMap } from './processMemory';

/**
 * What the package relies on inside n8n beyond its documented node API (docs/ARCHITECTURE.md,
 * "What we rely on in n8n"). Where one of them is missing in a later n8n, the package falls back
 * to something safe and says so in n8n's log once per process (a warning), so that an admin
 * learns it without a flood of lines. The lines end with FALLBACK_MARK, which the end-to-end
 * suite looks for in n8n's output: none may appear on the n8n versions it runs.
 */
export type Reliance =
	/** n8n 2's expression isolates are seen through Expression.vmEvaluator (WorkplaceTrigger/pacing.ts). */
	| 'pacingEngine'
	/** n8n runs a delivery's items through the trigger's execute() in this process (pacing.ts). */
	| 'pacingRuns'
	/** n8n writes the token the credential fetched into the data the call was given (transport/tokenCall.ts). */
	| 'tokenWrittenBack'
	/** n8n has read a delivery's raw body (req.rawBody) before calling webhook() (WorkplaceTrigger/receiveDelivery.ts). */
	| 'rawBody'
	/** `{{ $json.field }}` in a parameter is the input item's field, as n8n documents `$json` (parameters.ts). */
	| 'inputFieldExpressions'
	/** n8n runs the Workplace Trigger's trigger(), its clock of reminders (WorkplaceTrigger/clock.ts). */
	| 'triggerClock'
	/** A node context holds the workflow it runs in, `workflow.nodes` (WorkplaceBot/actions/message/sendAndWait/reminderPosts.ts). */
	| 'workflowOfContext'
	/** n8n hands a node context the run's lifecycle hooks and runs workflowExecuteAfter when the run ends (WorkplaceTrigger/conversationTurns.ts). */
	| 'runEnd'
	/** An AI agent's tool run names its agent: n8n-core's tool context's `parentNode`, or the source of its input (WorkplaceBot/actions/message/reply/triggerEvent.ts). */
	| 'toolAgent'
	/** n8n's waiting route answers the trigger's process (WorkplaceTrigger/resumeRoute.ts); one per address. */
	| `resumeRoute:${string}`;

export const FALLBACK_MARK = '(a fallback of n8n-nodes-workplace, logged once per n8n process)';

/** Keys said so far; bounded, as the resume route's key holds an address. */
const said = processMap<string, true>();
const MAX_SAID = 100;

/** Whether this reliance has not been reported in this process yet (and records it). */
export function firstReport(reliance: Reliance): boolean {
	if (said.has(reliance)) return false;
	said.set(reliance, true);
	while (said.size > MAX_SAID) said.delete(said.keys().next().value as string);
	return true;
}

/** Logs a fallback as a warning, once per process and reliance. `message` holds no secret. */
export function warnOnce(logger: Logger, reliance: Reliance, message: string, metadata: Record<string, unknown> = {}): void {
	if (!firstReport(reliance)) return;
	logger.warn(`${message} ${FALLBACK_MARK}`, { reliance, ...metadata });
}

/**
 * The version of n8n-workflow as n8n loaded it (the package's peer dependency, resolved from n8n's
 * own node_modules) as [major, minor], or undefined when its package.json cannot be read. Read each
 * time it is asked (require caches the file).
 */
export function n8nWorkflowVersion(): [number, number] | undefined {
	try {
		// A guarded require, never an import: an unreadable file must not keep the node from loading.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { version } = require('n8n-workflow/package.json') as { version?: unknown };
		const [major, minor] = typeof version === 'string' ? version.split('.').map((part) => Number.parseInt(part, 10)) : [];
		return Number.isFinite(major) && Number.isFinite(minor) ? [major, minor] : undefined;
	} catch {
		return undefined;
	}
}
