import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { RecentSet } from './delivery';

/** How many event keys (and learned direct chats) a trigger node remembers. */
export const RECENT_EVENT_LIMIT = 1000;

const MAX_SCOPES = 500;

/**
 * Batched saving: n8n answers a production delivery only after it has saved changed static data,
 * and with SQLite each such save held up the answers of the deliveries in flight: saving on every
 * delivery made the trigger answer 3.6 times fewer deliveries per second than a Webhook node, every
 * 50 keys still 2 times (2,000 deliveries at 20 in flight; bench/RESULTS.md). Keys are therefore
 * copied into the static data at most every 5 seconds, or when 500 keys (half of what is kept) are
 * unsaved; the process-wide set below recognises every duplicate meanwhile.
 */
export const SAVE_INTERVAL_MS = 5000;
export const SAVE_EVERY_KEYS = RECENT_EVENT_LIMIT / 2;

/**
 * Event keys per trigger node (workflow id + node id) in this n8n process. n8n builds a new
 * Workflow with the stored static data for every production request and saves it after
 * answering, so two deliveries arriving at the same time would both read the static data
 * before either saved it. This process-wide set is checked and updated synchronously (no
 * await between the check and the claim), so the second of two simultaneous identical
 * deliveries is recognised; the static data keeps the keys across restarts.
 */
interface Scope {
	/** Compact keys (see compactKey). */
	keys: RecentSet;
	/** The saved list last merged into `keys` (or written from them): an unchanged one is skipped. */
	merged?: string;
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

/**
 * n8n reads the whole static data with the workflow for every delivery, so the saved event keys
 * are kept small: 16 characters of a SHA-256 (base64url, 96 bits) per key, in one comma-separated
 * string (about 17 KB for 1000 keys, and no per-element wrapping by n8n's observable object).
 */
export function compactKey(key: string): string {
	return createHash('sha256').update(key).digest('base64url').slice(0, 16);
}

function joinKeys(keys: string[]): string {
	return keys.join(',');
}

function splitKeys(value: unknown): string[] {
	if (typeof value === 'string') return value.split(',').filter(Boolean);
	// An earlier format: the keys themselves in an array.
	if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string').map(compactKey);
	return [];
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
	const stored = staticData[field];
	if (stored !== entry.merged) {
		// Saved by another process or before a restart: merge what this process does not hold.
		set.addOlder(splitKeys(stored));
		if (typeof stored === 'string') entry.merged = stored;
	}
	const claimed: string[] = [];
	const fresh = keys.map((key) => {
		const compact = compactKey(key);
		if (set.has(compact)) return false;
		set.add(compact);
		claimed.push(compact);
		return true;
	});
	const save = () => {
		const list = joinKeys(set.toArray());
		staticData[field] = list;
		entry.merged = list;
	};
	if (claimed.length) {
		entry.unsaved += claimed.length;
		const now = Date.now();
		if (
			options.saveEveryDelivery ||
			entry.mustSave ||
			entry.unsaved >= SAVE_EVERY_KEYS ||
			now - entry.savedAt >= SAVE_INTERVAL_MS
		) {
			save();
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
			save();
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
