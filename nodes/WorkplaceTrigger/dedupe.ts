import type { IDataObject } from 'n8n-workflow';

import { RecentSet } from './delivery';

/** How many event keys (and learned direct chats) a trigger node remembers. */
export const RECENT_EVENT_LIMIT = 1000;

const MAX_SCOPES = 500;

/**
 * Batched saving: n8n answers a production delivery only after it has saved changed static data,
 * so writing the keys on every delivery puts one database write in front of every answer (with
 * SQLite at 20 deliveries in flight, about 3.6 times fewer deliveries per second; bench/RESULTS.md).
 * Keys are therefore copied into the static data at most once a second or every 50 new keys;
 * the process-wide set below recognises every duplicate meanwhile.
 */
export const SAVE_INTERVAL_MS = 1000;
export const SAVE_EVERY_KEYS = 50;

/**
 * Event keys per trigger node (workflow id + node id) in this n8n process. n8n builds a new
 * Workflow with the stored static data for every production request and saves it after
 * answering, so two deliveries arriving at the same time would both read the static data
 * before either saved it. This process-wide set is checked and updated synchronously (no
 * await between the check and the claim), so the second of two simultaneous identical
 * deliveries is recognised; the static data keeps the keys across restarts.
 */
interface Scope {
	keys: RecentSet;
	/** When the keys were last copied into the static data (0: never in this process). */
	savedAt: number;
	/** New keys since then. */
	unsaved: number;
	/** A released key may sit in a saved copy: the next claim saves again. */
	mustSave: boolean;
}

const scopes = new Map<string, Scope>();

function scopeOf(scope: string): Scope {
	let entry = scopes.get(scope);
	if (entry) {
		// Most recently used last, so the oldest scope is evicted first.
		scopes.delete(scope);
		scopes.set(scope, entry);
		return entry;
	}
	entry = { keys: new RecentSet(RECENT_EVENT_LIMIT), savedAt: 0, unsaved: 0, mustSave: false };
	scopes.set(scope, entry);
	while (scopes.size > MAX_SCOPES) scopes.delete(scopes.keys().next().value as string);
	return entry;
}

function storedKeys(staticData: IDataObject, field: string): string[] {
	const value = staticData[field];
	return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export interface Claim {
	/** For each key: true when this delivery is the first to bring it. */
	fresh: boolean[];
	/** Forget the keys this claim added (the run could not start; a redelivery may run). */
	release(): void;
}

export interface ClaimOptions {
	/** Copy the keys into the static data on every delivery that brings a new one. */
	saveEveryDelivery?: boolean;
}

/**
 * Marks event keys as seen, in this process and in the node's static data (bounded, oldest
 * dropped first; batched, see SAVE_INTERVAL_MS). Synchronous on purpose: see `scopes`.
 */
export function claimEventKeys(
	scope: string,
	staticData: IDataObject,
	field: string,
	keys: string[],
	options: ClaimOptions = {},
): Claim {
	const entry = scopeOf(scope);
	const set = entry.keys;
	set.addOlder(storedKeys(staticData, field));
	const claimed: string[] = [];
	const fresh = keys.map((key) => {
		if (set.has(key)) return false;
		set.add(key);
		claimed.push(key);
		return true;
	});
	if (claimed.length) {
		entry.unsaved += claimed.length;
		const now = Date.now();
		if (
			options.saveEveryDelivery ||
			entry.mustSave ||
			entry.unsaved >= SAVE_EVERY_KEYS ||
			now - entry.savedAt >= SAVE_INTERVAL_MS
		) {
			staticData[field] = set.toArray();
			entry.savedAt = now;
			entry.unsaved = 0;
			entry.mustSave = false;
		}
	}
	return {
		fresh,
		release() {
			if (!claimed.length) return;
			for (const key of claimed) set.delete(key);
			staticData[field] = set.toArray();
			entry.mustSave = true;
		},
	};
}

/** Remembers values (bounded) in a static data field; returns the current list. */
export function rememberValues(staticData: IDataObject, field: string, values: string[]): string[] {
	const set = new RecentSet(RECENT_EVENT_LIMIT);
	set.addOlder(storedKeys(staticData, field));
	const before = set.toArray().length;
	let added = false;
	for (const value of values) {
		if (!set.has(value)) added = true;
		set.add(value);
	}
	if (added || set.toArray().length !== before) staticData[field] = set.toArray();
	return set.toArray();
}

/** For tests: forget every process-wide key. */
export function resetEventKeyCache(): void {
	scopes.clear();
}
