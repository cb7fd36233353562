import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { processMap } from '../shared/processMemory';

/** Bounded first-in-first-out set of strings. */
class RecentSet {
	private readonly items = new Set<string>();

	constructor(private readonly limit: number) {}

	has(key: string): boolean {
		return this.items.has(key);
	}

	add(key: string): void {
		if (this.items.has(key)) return;
		this.items.add(key);
		while (this.items.size > this.limit) {
			const oldest = this.items.values().next().value as string;
			this.items.delete(oldest);
		}
	}

	delete(key: string): void {
		this.items.delete(key);
	}

	/** Adds keys that are older than everything held (e.g. loaded from storage), within the limit. */
	addOlder(keys: string[]): void {
		const current = [...this.items];
		this.items.clear();
		for (const key of keys) this.items.add(key);
		for (const key of current) {
			this.items.delete(key);
			this.items.add(key);
		}
		while (this.items.size > this.limit) {
			const oldest = this.items.values().next().value as string;
			this.items.delete(oldest);
		}
	}

	toArray(): string[] {
		return [...this.items];
	}
}

/** How many event keys (and learned direct chats) a trigger node remembers. */
export const RECENT_EVENT_LIMIT = 1000;

const MAX_SCOPES = 500;

/**
 * "Batched": keys are copied into the static data at most every 5 seconds, or when 500 keys (half
 * of what is kept) are unsaved, so fewer deliveries cost a database write; the process-wide
 * memory below recognises every duplicate meanwhile, but a restart forgets the unsaved ones.
 */
export const SAVE_INTERVAL_MS = 5000;
export const SAVE_EVERY_KEYS = RECENT_EVENT_LIMIT / 2;

export type RememberEvents = 'batched' | 'everyDelivery';

/**
 * "On Every Delivery" writes like a database's group commit: after its answer a delivery waits up
 * to COALESCE_WAIT_MS for a later delivery of the same trigger; when one comes, that one writes the
 * keys of both (each written copy holds all the process knows), so a burst costs one write, not one
 * per event. The last delivery of a burst always writes, and while deliveries keep coming one writes
 * at least every COALESCE_MAX_MS.
 */
export const COALESCE_WAIT_MS = 20;
export const COALESCE_MAX_MS = 200;

/**
 * What one trigger node (workflow id + node id) remembers in this n8n process.
 *
 * n8n builds a new Workflow from the database for every production request and saves its static
 * data whole after the node answered, so two simultaneous deliveries read the same stored copy
 * and the later save drops what the earlier one added. This memory is checked and updated
 * synchronously (no await between check and record), so the second of two simultaneous
 * deliveries sees the first; every copy written to the static data holds all this process knows,
 * and a stored copy that lacks part of it (overwritten by an older copy, or by another process)
 * is written again.
 */
interface Scope {
	/** Compact event keys (see compactKey), oldest first. */
	keys: RecentSet;
	/** Group ids of direct chats named by join events, oldest first. */
	chats: RecentSet;
	/** Keys whose first delivery is still being worked on (picture, waiting for its run): not answered yet. */
	inProgress: Set<string>;
	/** The stored key list last merged into `keys`: an unchanged one is not parsed again. */
	mergedKeys?: string;
	mergedChats?: string;
	/** Batched mode: when the keys were last copied into the static data (0: never in this process). */
	savedAt: number;
	/** Batched mode: new keys since then. */
	unsaved: number;
	/** A released key may sit in a saved copy: the next claim writes again. */
	mustSave: boolean;
	/** On Every Delivery: deliveries that settled so far (see COALESCE_WAIT_MS). */
	settled: number;
	/** Woken when a delivery settles. */
	onSettle: Array<() => void>;
	/** When the oldest key not yet handed to a write was settled (0: none). */
	unwrittenSince: number;
}

const scopes = processMap<string, Scope>();

function scopeOf(scope: string): Scope {
	let entry = scopes.get(scope);
	if (entry) {
		// Most recently used last, so the oldest scope is evicted first.
		scopes.delete(scope);
		scopes.set(scope, entry);
		return entry;
	}
	entry = {
		keys: new RecentSet(RECENT_EVENT_LIMIT),
		chats: new RecentSet(RECENT_EVENT_LIMIT),
		inProgress: new Set(),
		savedAt: 0,
		unsaved: 0,
		mustSave: false,
		settled: 0,
		onSettle: [],
		unwrittenSince: 0,
	};
	scopes.set(scope, entry);
	while (scopes.size > MAX_SCOPES) scopes.delete(scopes.keys().next().value as string);
	return entry;
}

/**
 * n8n reads the whole static data with the workflow for every delivery, so the saved event keys
 * are kept small: 16 characters of a SHA-256 (base64url, 96 bits) per key, in one comma-separated
 * string (about 17 KB for 1000 keys, and no per-element wrapping by n8n's observable object).
 */
export function compactKey(key: string): string {
	return createHash('sha256').update(key).digest('base64url').slice(0, 16);
}

function splitKeys(value: unknown): string[] {
	if (typeof value === 'string') return value.split(',').filter(Boolean);
	// An earlier format: the keys themselves in an array.
	if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string').map(compactKey);
	return [];
}

function storedChats(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Whether the stored list lacks something the process holds (or holds it in another order). */
function storedLacks(held: string[], stored: string[]): boolean {
	if (stored.length < held.length) return true;
	const storedSet = new Set(stored);
	return held.some((value) => !storedSet.has(value));
}

export interface Claim {
	/** For each key: true when this delivery is the first to bring it. */
	fresh: boolean[];
	/** Whether a key that is not fresh belongs to a delivery still being worked on (not answered yet). */
	inProgress: boolean;
	/** Forget the keys this claim added, or only those of `keys` (the run could not start; a redelivery may run). */
	release(keys?: string[]): void;
	/** The delivery was answered: its keys are no longer in progress. */
	answered(): void;
	/**
	 * Once nothing can stop its run (its items are ready): writes the keys into the static data when
	 * they are due (n8n saves it, seeing it changed), or leaves them to a later delivery.
	 */
	settle(): Promise<void>;
}

/** Resolves true when another delivery settles within `ms`. */
async function laterSettles(entry: Scope, ms: number): Promise<boolean> {
	const seen = entry.settled;
	let wake = () => {};
	const settled = new Promise<void>((resolve) => {
		wake = resolve;
		entry.onSettle.push(resolve);
	});
	await Promise.race([settled, sleep(ms)]);
	entry.onSettle = entry.onSettle.filter((w) => w !== wake);
	return entry.settled > seen;
}

/** Merges the stored copy into the process's keys when it changed (another process, an earlier run, an older request). */
function mergeStoredKeys(entry: Scope, stored: unknown): void {
	if (stored === entry.mergedKeys) return;
	entry.keys.addOlder(splitKeys(stored));
	if (typeof stored === 'string') entry.mergedKeys = stored;
}

/** Marks each key seen; which were fresh, the keys this delivery added, and whether a seen key is still in progress. */
function claimKeys(entry: Scope, keys: string[]): { fresh: boolean[]; claimed: string[]; inProgress: boolean } {
	const claimed: string[] = [];
	let inProgress = false;
	const fresh = keys.map((key) => {
		const compact = compactKey(key);
		if (entry.keys.has(compact)) {
			if (entry.inProgress.has(compact)) inProgress = true;
			return false;
		}
		entry.keys.add(compact);
		entry.inProgress.add(compact);
		claimed.push(compact);
		return true;
	});
	return { fresh, claimed, inProgress };
}

/** "Batched": the keys are written when due (every SAVE_INTERVAL_MS, SAVE_EVERY_KEYS keys, or after a release). */
function batchedSettle(entry: Scope, claimed: string[], write: () => void): () => Promise<void> {
	const now = Date.now();
	entry.unsaved += claimed.length;
	const due = claimed.length > 0 && (entry.mustSave || entry.unsaved >= SAVE_EVERY_KEYS || now - entry.savedAt >= SAVE_INTERVAL_MS);
	return async () => {
		if (!due) return;
		write();
		entry.savedAt = now;
		entry.unsaved = 0;
		entry.mustSave = false;
	};
}

/** "On Every Delivery": written now, unless a later delivery within COALESCE_WAIT_MS writes a copy holding these keys too. */
function everyDeliverySettle(entry: Scope, claimed: string[], stored: unknown, write: () => void): () => Promise<void> {
	return async () => {
		if (!claimed.length && !entry.mustSave && !storedLacks(entry.keys.toArray(), splitKeys(stored))) return;
		if (!entry.unwrittenSince) entry.unwrittenSince = Date.now();
		entry.settled++;
		for (const wake of entry.onSettle.splice(0)) wake();
		// A later delivery writes a copy that holds these keys too, unless they waited too long.
		if ((await laterSettles(entry, COALESCE_WAIT_MS)) && Date.now() - entry.unwrittenSince < COALESCE_MAX_MS) {
			return;
		}
		write();
		entry.unwrittenSince = 0;
		entry.mustSave = false;
	};
}

/**
 * Marks event keys as seen, in this process and in the node's static data (bounded, oldest
 * dropped first). Synchronous on purpose: see `Scope`.
 */
export function claimEventKeys(
	scope: string,
	staticData: IDataObject,
	field: string,
	keys: string[],
	rememberEvents: RememberEvents,
): Claim {
	const entry = scopeOf(scope);
	const stored = staticData[field];
	mergeStoredKeys(entry, stored);
	const { fresh, claimed, inProgress } = claimKeys(entry, keys);
	const write = () => {
		const list = entry.keys.toArray().join(',');
		staticData[field] = list;
		entry.mergedKeys = list;
	};
	const answered = () => {
		for (const key of claimed) entry.inProgress.delete(key);
	};
	const release = (keys?: string[]) => {
		const only = keys && new Set(keys.map(compactKey));
		const released = only ? claimed.filter((key) => only.has(key)) : claimed;
		if (!released.length) return;
		for (const key of released) {
			entry.inProgress.delete(key);
			entry.keys.delete(key);
		}
		write();
		entry.mustSave = true;
	};
	const settle = rememberEvents === 'batched' ? batchedSettle(entry, claimed, write) : everyDeliverySettle(entry, claimed, stored, write);
	return { fresh, inProgress, release, answered, settle };
}

/**
 * Records the chats that join events named as direct, in this process and in the node's static
 * data, and returns every direct chat this trigger knows of. Written on every delivery that brings
 * a new chat, or finds the stored list lacking one (n8n saves the static data, seeing it changed):
 * a chat that is forgotten drops its messages silently.
 */
export function learnDirectChats(scope: string, staticData: IDataObject, field: string, joined: string[]): Set<string> {
	const entry = scopeOf(scope);
	const stored = storedChats(staticData[field]);
	const storedText = stored.join(',');
	if (storedText !== entry.mergedChats) {
		entry.chats.addOlder(stored);
		entry.mergedChats = storedText;
	}
	for (const chat of joined) entry.chats.add(chat);
	const held = entry.chats.toArray();
	if (storedLacks(held, stored)) {
		staticData[field] = held;
		entry.mergedChats = held.join(',');
	}
	return new Set(held);
}
