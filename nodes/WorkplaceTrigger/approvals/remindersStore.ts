/**
 * Where the Workplace Trigger keeps the questions of its clock (clockTicks.ts): its static data,
 * request (execution:node:nonce) -> ClockEntry. Outcomes of taps (handOn.ts) mark a question done once decided.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ClockEntry } from '../../shared/approvals/clockProtocol';
import { DONE_KEPT_MS } from '../../shared/approvals/timing';
import { processMap } from '../../shared/processMemory';
import { isPlainObject } from '../../shared/validation';

/** The static data field: request (execution:node:nonce) -> ClockEntry. */
export const REMINDERS_FIELD = 'inChatReminders';

/** The most questions one trigger keeps; the oldest go first. */
const MAX_QUESTIONS = 500;

/** The execution, node and query of a waiting node's clock URL (`…/<execution>/<node>?nonce=…`). */
export function clockUrlParts(url: string): { execution: string; node: string; search: string; nonce: string } | undefined {
	try {
		const parsed = new URL(url);
		const [execution, node] = parsed.pathname.split('/').filter(Boolean).slice(-2);
		const nonce = parsed.searchParams.get('nonce');
		return execution && node && nonce ? { execution, node, search: parsed.search, nonce } : undefined;
	} catch {
		return undefined;
	}
}

/** The request key (execution:node:nonce) of a waiting node's clock URL. */
export function requestOf(url: string): string | undefined {
	const parts = clockUrlParts(url);
	try {
		return parts && `${decodeURIComponent(parts.execution)}:${decodeURIComponent(parts.node)}:${parts.nonce}`;
	} catch {
		return undefined;
	}
}

export function stored(staticData: IDataObject): Record<string, ClockEntry> {
	const field = staticData[REMINDERS_FIELD];
	return isPlainObject(field) ? (field as unknown as Record<string, ClockEntry>) : {};
}


export function write(staticData: IDataObject, entries: Record<string, ClockEntry>): void {
	const now = Date.now();
	for (const [key, entry] of Object.entries(entries)) {
		if (entry.nextAt === null && typeof entry.doneAt === 'number' && now - entry.doneAt > DONE_KEPT_MS) delete entries[key];
	}
	const keys = Object.keys(entries);
	for (const key of keys.slice(0, Math.max(0, keys.length - MAX_QUESTIONS))) delete entries[key];
	staticData[REMINDERS_FIELD] = entries as unknown as IDataObject;
}

/** Stores one question as it is now. */
export function put(staticData: IDataObject, request: string, entry: ClockEntry): void {
	write(staticData, { ...stored(staticData), [request]: entry });
}

/** The questions that still have an action to come (request keys). */
export function waitingRequests(staticData: IDataObject): string[] {
	return Object.entries(stored(staticData))
		.filter(([, entry]) => entry.nextAt !== null)
		.map(([request]) => request);
}

/** Keeps a question, unless the stored copy is already as far or done. */
export function keep(staticData: IDataObject, request: string, entry: ClockEntry): boolean {
	const entries = stored(staticData);
	const known = entries[request];
	if (known && (known.nextAt === null || known.step >= entry.step)) return false;
	put(staticData, request, entry);
	return true;
}

/**
 * A question needs nothing more (answered, or its execution no longer waits): kept a while as
 * done, so that a late copy of an earlier step (`keep`) cannot bring it back.
 */
export function finishQuestion(staticData: IDataObject | undefined, request: string): void {
	if (!staticData) return;
	const entries = stored(staticData);
	const known = entries[request];
	if (!known || known.nextAt === null) return;
	put(staticData, request, { url: known.url, step: known.step, nextAt: null, doneAt: Date.now() });
}


/** The most overdue action among the stored questions (ms late), 0 when none is. */
export function mostOverdue(staticData: IDataObject, now = Date.now()): number {
	let late = 0;
	for (const entry of Object.values(stored(staticData))) {
		if (entry.nextAt !== null) late = Math.max(late, now - Date.parse(entry.nextAt));
	}
	return late;
}

/**
 * When this process's clock should tick next (ms), per trigger: set by the last tick's answer, and
 * earlier by a question registered or a vote counted here. Nothing due: the clock of one n8n
 * process posts nothing (reminderClock.ts).
 */
const dueAt = processMap<string, number>();

export function clockDueAt(scope: string): number | undefined {
	return dueAt.get(scope);
}

/** The clock's next tick as the last one found it (undefined: nothing waits). */
export function setClockDue(scope: string, at: number | undefined): void {
	if (at === undefined) dueAt.delete(scope);
	else dueAt.set(scope, at);
	while (dueAt.size > 500) dueAt.delete(dueAt.keys().next().value as string);
}

/** Something is due at `at` at the latest (a question registered, a vote counted in this process). */
export function armClock(scope: string, at: number): void {
	const known = dueAt.get(scope);
	setClockDue(scope, known === undefined ? at : Math.min(known, at));
}

/** When the earliest stored action is due (ms), undefined when none waits. */
export function nextActionAt(staticData: IDataObject): number | undefined {
	let next: number | undefined;
	for (const entry of Object.values(stored(staticData))) {
		if (entry.nextAt === null) continue;
		const at = Date.parse(entry.nextAt);
		next = next === undefined ? at : Math.min(next, at);
	}
	return next;
}
