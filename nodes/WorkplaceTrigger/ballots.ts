/**
 * The counted taps of in-chat approvals that need several approvers (Approvals Required above 1),
 * kept by the trigger until the question is decided: the waiting Send and Wait node has no place
 * of its own between two taps (n8n saves no static data on its waiting route, and a resumed node
 * cannot wait again), so every forward carries the earlier taps and the node counts them again
 * (../WorkplaceBot/actions/message/sendAndWait/votes.ts).
 *
 * They live in this process's memory and in the trigger's static data, which n8n loads from the
 * database for each delivery and saves whole after it. A save of another delivery that read the
 * stored copy before a tap was added would drop that tap there; so every delivery of the trigger
 * writes back what this process holds (for HOLD_MS), and one process alone never loses a tap. Several processes
 * (queue mode) each hold only their own taps: recount.ts brings them together.
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { Ballot } from '../shared/inChatAnswer';
import { MAX_BALLOTS, isBallot } from '../shared/inChatAnswer';
import { processMap } from '../shared/processMemory';
import { isPlainObject } from '../shared/validation';

/** The static data field: request (execution:node:nonce) -> { at: last change (ms), ballots }. */
export const BALLOTS_FIELD = 'inChatBallots';

/** A question unanswered this long is forgotten (n8n's longest useful wait is far shorter). */
const KEEP_MS = 35 * 24 * 3600 * 1000;

/**
 * How long this process holds a question's taps after its last counted tap: beyond any delivery
 * that could still save an older stored copy, and the last recheck (recheck.ts); then the stored
 * copy alone holds them.
 */
export const HOLD_MS = 120_000;

/** The most questions one trigger keeps; the oldest go first. */
const MAX_REQUESTS = 200;

interface Held {
	at: number;
	ballots: Ballot[];
}

/** Where one trigger node keeps the taps: its scope (workflow:node) and, in production, its static data. */
export interface BallotStore {
	scope: string;
	staticData?: IDataObject;
}

/** scope -> request -> held taps, in this process. */
const memory = processMap<string, Map<string, Held>>();

function idOf(ballot: Ballot): string {
	return createHash('sha256').update(ballot.delivery).digest('base64url').slice(0, 22);
}

function heldIn(scope: string): Map<string, Held> {
	let held = memory.get(scope);
	if (!held) {
		held = new Map();
		memory.set(scope, held);
		while (memory.size > 500) memory.delete(memory.keys().next().value as string);
	}
	return held;
}


function stored(staticData: IDataObject | undefined): Record<string, Held> {
	const field = staticData?.[BALLOTS_FIELD];
	if (!isPlainObject(field)) return {};
	const out: Record<string, Held> = {};
	for (const [request, value] of Object.entries(field)) {
		if (!isPlainObject(value) || !Array.isArray(value.ballots)) continue;
		out[request] = { at: typeof value.at === 'number' ? value.at : 0, ballots: value.ballots.filter(isBallot) };
	}
	return out;
}

/** The union of taps, each once, in the order first seen. */
export function unionOf(...lists: Ballot[][]): Ballot[] {
	const seen = new Set<string>();
	const out: Ballot[] = [];
	for (const ballot of lists.flat()) {
		const id = idOf(ballot);
		if (seen.has(id)) continue;
		seen.add(id);
		out.push(ballot);
	}
	return out.slice(-MAX_BALLOTS);
}

/** Whether `all` holds a tap that `some` lacks. */
export function addsTo(some: Ballot[], all: Ballot[]): boolean {
	const ids = new Set(some.map(idOf));
	return all.some((ballot) => !ids.has(idOf(ballot)));
}

/** The taps held for a question, here and in the stored copy. */
export function heldBallots(store: BallotStore, request: string): Ballot[] {
	const entry = heldIn(store.scope).get(request);
	const fresh = entry && Date.now() - entry.at <= HOLD_MS ? entry.ballots : [];
	return unionOf(stored(store.staticData)[request]?.ballots ?? [], fresh);
}

/** Writes what this process holds into the stored copy (also the taps another delivery's save dropped); drops old questions. */
export function writeBack(store: BallotStore): void {
	const held = memory.get(store.scope);
	if (!store.staticData || (!held?.size && store.staticData[BALLOTS_FIELD] === undefined)) return;
	const now = Date.now();
	const merged = stored(store.staticData);
	for (const [request, entry] of held ?? []) {
		if (now - entry.at > HOLD_MS) {
			held!.delete(request);
			continue;
		}
		const copy = merged[request];
		merged[request] = { at: Math.max(entry.at, copy?.at ?? 0), ballots: unionOf(copy?.ballots ?? [], entry.ballots) };
	}
	const kept = Object.entries(merged)
		.filter(([, entry]) => now - entry.at < KEEP_MS)
		.sort(([, a], [, b]) => a.at - b.at)
		.slice(-MAX_REQUESTS);
	const before = JSON.stringify(store.staticData[BALLOTS_FIELD] ?? {});
	const after = Object.fromEntries(kept);
	if (JSON.stringify(after) === before) return;
	if (kept.length === 0) delete store.staticData[BALLOTS_FIELD];
	else store.staticData[BALLOTS_FIELD] = after as unknown as IDataObject;
}

/** Keeps counted taps of a question (here and in the stored copy). */
export function keepBallots(store: BallotStore, request: string, ballots: Ballot[]): void {
	const held = heldIn(store.scope);
	const entry = held.get(request);
	held.set(request, { at: Date.now(), ballots: unionOf(entry?.ballots ?? [], ballots) });
	while (held.size > MAX_REQUESTS) held.delete(held.keys().next().value as string);
	writeBack(store);
}

/** Forgets a decided (or no longer waiting) question here and in the stored copy. */
export function forgetBallots(store: BallotStore, request: string): void {
	heldIn(store.scope).delete(request);
	const field = store.staticData?.[BALLOTS_FIELD];
	if (!isPlainObject(field) || !(request in field)) return;
	const rest = { ...field };
	delete rest[request];
	if (Object.keys(rest).length === 0) delete store.staticData![BALLOTS_FIELD];
	else store.staticData![BALLOTS_FIELD] = rest;
}

/** Whether this process still holds taps of the question (false once it was decided here). */
export function isHeld(store: BallotStore, request: string): boolean {
	return heldIn(store.scope).has(request);
}
