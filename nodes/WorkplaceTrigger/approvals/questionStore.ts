/**
 * Where the Workplace Trigger keeps its in-chat questions: the one way the rest of the trigger reads
 * and writes them. A question (`execution:node:nonce`) has up to two records, its counted votes
 * (votesStore.ts, several approvers) and its clock entry (remindersStore.ts, reminders or
 * escalation); both are done together (`finishQuestion`), saying whether it was decided or ended.
 *
 * They live in the workflow's global static data under fields named with the trigger's webhook
 * ID: node static data is keyed by the node's name, so renaming the trigger would orphan them
 * while its questions still wait (the webhook ID stays when the node is renamed, as its URL does).
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { endReminders } from './remindersStore';
import { finishVotes } from './votesStore';

/** One trigger's questions: where this process keeps them, and (in production) their static data. */
export interface QuestionStore {
	/** workflow:node, the key of this process's memory. */
	scope: string;
	/** The workflow's global static data; undefined when listening for a test event (nothing is kept). */
	staticData?: IDataObject;
	/** The trigger's webhook ID (its name when it has none), in the names of its fields. */
	key: string;
}

/** The static data field of a trigger's counted votes: request -> votes. */
export function votesFieldOf(key: string): string {
	return `workplaceVotes:${key}`;
}

/** The static data field of a trigger's clock: request -> clock entry. */
export function remindersFieldOf(key: string): string {
	return `workplaceReminders:${key}`;
}

/** The store of the trigger a request reached: kept in production only. */
export function questionStoreOf(ctx: IWebhookFunctions): QuestionStore {
	const node = ctx.getNode();
	const production = ctx.getMode() !== 'manual';
	return {
		scope: `${ctx.getWorkflow().id ?? ''}:${node.id ?? node.name}`,
		staticData: production ? ctx.getWorkflowStaticData('global') : undefined,
		key: node.webhookId ?? node.name,
	};
}

/** How a done question ended: decided (its node resumed or had its answer) or ended (stopped, timed out, gone, given up). */
export type Finish = 'decided' | 'ended';

/**
 * A question was decided or no longer waits: its votes are dropped and its reminders end, both
 * kept as done for DONE_KEPT_MS so that an older copy saved meanwhile cannot bring them back.
 */
export function finishQuestion(store: QuestionStore, request: string, how: Finish): void {
	finishVotes(store, request, how);
	endReminders(store, request);
}

export { addsTo, ballotId, countingRequests, finishedAs, heldBallots, idleQuestions, isHeld, keepBallots, MAX_REQUESTS, MAX_TRIGGERS_HELD, nextIdleCheckAt, noteUnreachable, triggerBoundToSay, unionOf, writeBack } from './votesStore';
export { armClock, clockDueAt, clockMayBeForgotten, clockUrlParts, endReminders, keep, MAX_CLOCKS, mostOverdue, nextActionAt, put, requestOf, setClockDue, storedReminders, waitingRequests } from './remindersStore';
