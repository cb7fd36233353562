/**
 * The counted taps of in-chat approvals that need several approvers (Approvals Required above 1),
 * kept by the trigger until the question is decided: the waiting Send and Wait node has no place
 * of its own between two taps (n8n saves no static data on its waiting route, and a resumed node
 * cannot wait again), so every forward carries the earlier taps and the node counts them again
 * (../WorkplaceBot/actions/message/sendAndWait/votes.ts).
 *
 * Read and written through questionStore.ts. They live in this process's memory and in the
 * workflow's static data, which n8n loads from the database for each delivery and saves whole after it. A save of another delivery that read the
 * stored copy before a tap was added would drop that tap there; so every delivery of the trigger
 * writes back what this process holds (for HOLD_MS, when it starts and when it ends), and one
 * process alone never loses a tap. Several processes (queue mode) each hold only their own taps:
 * recounts.ts brings them together. A decided or ended question is kept as done, without its
 * taps, for DONE_KEPT_MS, so that an older copy saved meanwhile cannot bring its taps back.
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { Ballot } from '../../shared/approvals/tapProtocol';
import { MAX_BALLOTS, isBallot } from '../../shared/approvals/tapProtocol';
import { CHECK_IDLE_QUESTION_AFTER_MS, DONE_KEPT_MS, GIVE_UP_UNREACHABLE_AFTER_MS, HOLD_MS } from '../../shared/approvals/timing';
import { processMap } from '../../shared/processMemory';
import { isPlainObject } from '../../shared/validation';
import type { Finish, QuestionStore } from './questionStore';
import { votesFieldOf } from './questionStore';

/** A question unanswered this long is forgotten (n8n's longest useful wait is far shorter). */
const KEEP_MS = 35 * 24 * 3600 * 1000;

/** The most questions one trigger keeps; the oldest go first, and the admin is told. */
export const MAX_REQUESTS = 200;

interface Held {
	at: number;
	ballots: Ballot[];
	/** When the question was decided or ended: its taps are gone, the entry stays DONE_KEPT_MS. */
	done?: number;
	/** Set when a done question ended without a decision (stopped, timed out, gone, given up). */
	ended?: true;
	/** Since when its waiting node has not answered (given up after GIVE_UP_UNREACHABLE_AFTER_MS). */
	failingSince?: number;
}

/** scope -> request -> held taps, in this process. */
const memory = processMap<string, Map<string, Held>>();

/** The most triggers whose taps one process holds; beyond it the oldest trigger's are forgotten (the stored copy keeps them). */
export const MAX_TRIGGERS_HELD = 2_000;

/** 'reached': the bound was reached and not yet said; 'said': said once in this process. */
const triggersBound = processMap<'bound', 'reached' | 'said'>();

/** Whether MAX_TRIGGERS_HELD was reached and is to be said now (once per process). */
export function triggerBoundToSay(): boolean {
	if (triggersBound.get('bound') !== 'reached') return false;
	triggersBound.set('bound', 'said');
	return true;
}

/** A tap's ID: a hash of its delivery. */
export function ballotId(ballot: Ballot): string {
	return createHash('sha256').update(ballot.delivery).digest('base64url').slice(0, 22);
}

function heldIn(scope: string): Map<string, Held> {
	let held = memory.get(scope);
	if (!held) {
		held = new Map();
		memory.set(scope, held);
		while (memory.size > MAX_TRIGGERS_HELD) {
			memory.delete(memory.keys().next().value as string);
			if (!triggersBound.has('bound')) triggersBound.set('bound', 'reached');
		}
	}
	return held;
}

function stored(store: QuestionStore): Record<string, Held> {
	const field = store.staticData?.[votesFieldOf(store.key)];
	if (!isPlainObject(field)) return {};
	const out: Record<string, Held> = {};
	for (const [request, value] of Object.entries(field)) {
		if (!isPlainObject(value) || !Array.isArray(value.ballots)) continue;
		const at = typeof value.at === 'number' ? value.at : 0;
		if (typeof value.done === 'number') out[request] = { at, ballots: [], done: value.done, ...(value.ended === true ? { ended: true as const } : {}) };
		else {
			out[request] = { at, ballots: value.ballots.filter(isBallot) };
			if (typeof value.failingSince === 'number') out[request].failingSince = value.failingSince;
		}
	}
	return out;
}

/** The union of taps, each once, in the order first seen. */
export function unionOf(...lists: Ballot[][]): Ballot[] {
	const seen = new Set<string>();
	const out: Ballot[] = [];
	for (const ballot of lists.flat()) {
		const id = ballotId(ballot);
		if (seen.has(id)) continue;
		seen.add(id);
		out.push(ballot);
	}
	return out.slice(-MAX_BALLOTS);
}

/** Whether `all` holds a tap that `some` lacks. */
export function addsTo(some: Ballot[], all: Ballot[]): boolean {
	const ids = new Set(some.map(ballotId));
	return all.some((ballot) => !ids.has(ballotId(ballot)));
}

/**
 * Two copies of one question as one: done wins (its taps are gone; decided when either copy says
 * so), else the union of the taps, failing as the newer says.
 */
function merge(a: Held | undefined, b: Held | undefined): Held {
	const at = Math.max(a?.at ?? 0, b?.at ?? 0);
	const done = Math.max(a?.done ?? 0, b?.done ?? 0);
	if (done > 0) {
		const ended = [a, b].every((copy) => copy?.done === undefined || copy.ended === true);
		return { at, ballots: [], done, ...(ended ? { ended: true as const } : {}) };
	}
	const merged: Held = { at, ballots: unionOf(a?.ballots ?? [], b?.ballots ?? []) };
	const failingSince = ((a?.at ?? 0) >= (b?.at ?? 0) ? a : b)?.failingSince;
	if (failingSince !== undefined) merged.failingSince = failingSince;
	return merged;
}

/** This process's entry of a question while it still writes it back. */
function fresh(store: QuestionStore, request: string, now = Date.now()): Held | undefined {
	const entry = heldIn(store.scope).get(request);
	return entry && now - entry.at <= HOLD_MS ? entry : undefined;
}

/** The taps held for a question, here and in the stored copy (none once it is done). */
export function heldBallots(store: QuestionStore, request: string): Ballot[] {
	return merge(stored(store)[request], fresh(store, request)).ballots;
}

/** How a question finished, as far as this process and the stored copy know; undefined while it waits. */
export function finishedAs(store: QuestionStore, request: string): Finish | undefined {
	const entry = merge(stored(store)[request], fresh(store, request));
	if (entry.done === undefined) return undefined;
	return entry.ended ? 'ended' : 'decided';
}

/**
 * Writes what this process holds into the stored copy (also what another request's save dropped);
 * drops done questions after DONE_KEPT_MS and, beyond MAX_REQUESTS, the oldest. How many were
 * dropped for the bound, for the caller's log line.
 */
export function writeBack(store: QuestionStore): number {
	const held = memory.get(store.scope);
	const field = votesFieldOf(store.key);
	if (!store.staticData || (!held?.size && store.staticData[field] === undefined)) return 0;
	const now = Date.now();
	const merged = stored(store);
	for (const [request, entry] of held ?? []) {
		if (now - entry.at > HOLD_MS) {
			held!.delete(request);
			continue;
		}
		merged[request] = merge(merged[request], entry);
	}
	const alive = Object.entries(merged)
		.filter(([, entry]) => (entry.done === undefined ? now - entry.at < KEEP_MS : now - entry.done < DONE_KEPT_MS))
		.sort(([, a], [, b]) => a.at - b.at);
	const kept = alive.slice(-MAX_REQUESTS);
	const before = JSON.stringify(store.staticData[field] ?? {});
	const after = Object.fromEntries(kept);
	if (JSON.stringify(after) !== before) {
		if (kept.length === 0) delete store.staticData[field];
		else store.staticData[field] = after as unknown as IDataObject;
	}
	return alive.length - kept.length;
}

/** Keeps counted taps of a question (here and in the stored copy); a done question stays done. */
export function keepBallots(store: QuestionStore, request: string, ballots: Ballot[]): number {
	const held = heldIn(store.scope);
	held.set(request, merge(held.get(request), { at: Date.now(), ballots }));
	while (held.size > MAX_REQUESTS) held.delete(held.keys().next().value as string);
	return writeBack(store);
}

/** A question was decided or no longer waits: its taps are dropped, here and in the stored copy, and it is kept as done (questionStore.ts). */
export function finishVotes(store: QuestionStore, request: string, how: Finish): void {
	const now = Date.now();
	heldIn(store.scope).set(request, { at: now, ballots: [], done: now, ...(how === 'ended' ? { ended: true as const } : {}) });
	if (store.staticData && stored(store)[request] !== undefined) writeBack(store);
}

/**
 * The waiting node of a question did not answer: it is asked again later, until
 * GIVE_UP_UNREACHABLE_AFTER_MS after the first time. Whether it is to be given up now (questionLife.ts).
 */
export function noteUnreachable(store: QuestionStore, request: string): boolean {
	const now = Date.now();
	const entry = merge(stored(store)[request], fresh(store, request));
	if (entry.done !== undefined) return false;
	const since = entry.failingSince ?? now;
	if (now - since >= GIVE_UP_UNREACHABLE_AFTER_MS) return true;
	heldIn(store.scope).set(request, { at: now, ballots: entry.ballots, failingSince: since });
	writeBack(store);
	return false;
}

/** Whether this process still writes back taps of a question it has not seen decided. */
export function isHeld(store: QuestionStore, request: string): boolean {
	const entry = fresh(store, request);
	return entry !== undefined && entry.done === undefined;
}

/** Questions with taps whose count changed nothing for CHECK_IDLE_QUESTION_AFTER_MS: the clock asks whether they still wait. */
export function idleQuestions(store: QuestionStore, now = Date.now()): Array<{ request: string; ballots: Ballot[] }> {
	return Object.entries(stored(store))
		.filter(([, entry]) => entry.done === undefined && entry.ballots.length > 0 && now - entry.at >= CHECK_IDLE_QUESTION_AFTER_MS)
		.map(([request, entry]) => ({ request, ballots: entry.ballots }));
}

/** The questions still counting votes (request keys), for the clock's "waiting" count. */
export function countingRequests(store: QuestionStore): string[] {
	return Object.entries(stored(store))
		.filter(([, entry]) => entry.done === undefined && entry.ballots.length > 0)
		.map(([request]) => request);
}

/** When the clock should next ask about a question still counting votes (ms), undefined when none is. */
export function nextIdleCheckAt(store: QuestionStore): number | undefined {
	const times = Object.values(stored(store))
		.filter((entry) => entry.done === undefined && entry.ballots.length > 0)
		.map((entry) => entry.at + CHECK_IDLE_QUESTION_AFTER_MS);
	return times.length ? Math.min(...times) : undefined;
}
