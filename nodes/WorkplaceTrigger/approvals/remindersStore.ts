/**
 * The clock entries of the Workplace Trigger's questions (clockTicks.ts), read and written through
 * questionStore.ts: request (execution:node:nonce) -> ClockEntry, in the field the store names.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ClockEntry } from '../../shared/approvals/clockProtocol';
import { DONE_KEPT_MS } from '../../shared/approvals/timing';
import { processMap } from '../../shared/processMemory';
import { isPlainObject } from '../../shared/validation';
import { logTrigger } from '../log';
import type { QuestionStore } from './questionStore';
import { remindersFieldOf } from './questionStore';

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

/** The stored clock entries (none when listening for a test event). */
export function storedReminders(store: QuestionStore): Record<string, ClockEntry> {
	const field = store.staticData?.[remindersFieldOf(store.key)];
	return isPlainObject(field) ? (field as unknown as Record<string, ClockEntry>) : {};
}

function write(store: QuestionStore, entries: Record<string, ClockEntry>): void {
	if (!store.staticData) return;
	const now = Date.now();
	for (const [key, entry] of Object.entries(entries)) {
		if (entry.nextAt === null && typeof entry.doneAt === 'number' && now - entry.doneAt > DONE_KEPT_MS) delete entries[key];
	}
	const keys = Object.keys(entries);
	for (const key of keys.slice(0, Math.max(0, keys.length - MAX_QUESTIONS))) delete entries[key];
	store.staticData[remindersFieldOf(store.key)] = entries as unknown as IDataObject;
}

/** Stores one question as it is now. */
export function put(store: QuestionStore, request: string, entry: ClockEntry): void {
	write(store, { ...storedReminders(store), [request]: entry });
}

/** The questions that still have an action to come (request keys). */
export function waitingRequests(store: QuestionStore): string[] {
	return Object.entries(storedReminders(store))
		.filter(([, entry]) => entry.nextAt !== null)
		.map(([request]) => request);
}

/** Keeps a question, unless the stored copy is already as far or done. */
export function keep(store: QuestionStore, request: string, entry: ClockEntry): boolean {
	const known = storedReminders(store)[request];
	if (known && (known.nextAt === null || known.step >= entry.step)) return false;
	put(store, request, entry);
	return true;
}

/**
 * A question needs no more reminders (answered, its execution no longer waits, or n8n refuses its
 * ticks): kept a while as done, so that a late copy of an earlier step (`keep`) cannot bring it back.
 */
export function endReminders(store: QuestionStore, request: string): void {
	const known = storedReminders(store)[request];
	if (!known || known.nextAt === null) return;
	put(store, request, { url: known.url, step: known.step, nextAt: null, doneAt: Date.now() });
}


/** The most overdue action among the stored questions (ms late), 0 when none is. */
export function mostOverdue(store: QuestionStore, now = Date.now()): number {
	let late = 0;
	for (const entry of Object.values(storedReminders(store))) {
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

/** The most triggers whose next tick one process remembers; beyond it the oldest is forgotten. */
export const MAX_CLOCKS = 2_000;

/** Whether this process forgot a trigger's next tick for the bound (then a clock without one asks every minute). */
const forgot = processMap<'forgot', true>();

type LogContext = Parameters<typeof logTrigger>[0];

export function clockDueAt(scope: string): number | undefined {
	return dueAt.get(scope);
}

/** Whether the clock of `scope` may have lost its next tick to the bound (reminderClock.ts polls then). */
export function clockMayBeForgotten(scope: string): boolean {
	return forgot.has('forgot') && !dueAt.has(scope);
}

/** The clock's next tick as the last one found it (undefined: nothing waits); reaching the bound is said once per process. */
export function setClockDue(ctx: LogContext, scope: string, at: number | undefined): void {
	if (at === undefined) dueAt.delete(scope);
	else dueAt.set(scope, at);
	if (dueAt.size <= MAX_CLOCKS) return;
	while (dueAt.size > MAX_CLOCKS) dueAt.delete(dueAt.keys().next().value as string);
	if (forgot.has('forgot')) return;
	forgot.set('forgot', true);
	logTrigger(ctx, 'warn', `this n8n process runs the clocks of more than ${MAX_CLOCKS} triggers with in-chat approvals: the clocks whose next tick it forgot ask every minute from now on.`);
}

/** Something is due at `at` at the latest (a question registered, a vote counted in this process). */
export function armClock(ctx: LogContext, scope: string, at: number): void {
	const known = dueAt.get(scope);
	setClockDue(ctx, scope, known === undefined ? at : Math.min(known, at));
}

/** When the earliest stored action is due (ms), undefined when none waits. */
export function nextActionAt(store: QuestionStore): number | undefined {
	let next: number | undefined;
	for (const entry of Object.values(storedReminders(store))) {
		if (entry.nextAt === null) continue;
		const at = Date.parse(entry.nextAt);
		next = next === undefined ? at : Math.min(next, at);
	}
	return next;
}
