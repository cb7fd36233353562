/**
 * Where the Workplace Trigger keeps the questions of its clock (reminders.ts): its static data,
 * request (execution:node:nonce) -> ClockEntry. Answers (answers.ts) mark a question done once decided.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ClockEntry } from '../shared/inChatClock';
import { isPlainObject } from '../shared/validation';

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

/** How long a question whose actions are all done is kept: beyond the last `keep` of its last change (45 s). */
const DONE_KEPT_MS = 10 * 60_000;

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

/** The questions that still have an action to come. */
export function waitingCount(staticData: IDataObject): number {
	return Object.values(stored(staticData)).filter((entry) => entry.nextAt !== null).length;
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

/** How late a stored action may be before the clock is taken for stopped (it ticks every minute at least). */
export const CLOCK_STOPPED_AFTER_MS = 20 * 60_000;

/** The most overdue action among the stored questions (ms late), 0 when none is. */
export function mostOverdue(staticData: IDataObject, now = Date.now()): number {
	let late = 0;
	for (const entry of Object.values(stored(staticData))) {
		if (entry.nextAt !== null) late = Math.max(late, now - Date.parse(entry.nextAt));
	}
	return late;
}
