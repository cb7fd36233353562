import type { IDataObject } from 'n8n-workflow';

import { RecentSet } from './delivery';

/** How many event keys (and learned direct chats) a trigger node remembers. */
export const RECENT_EVENT_LIMIT = 1000;

const MAX_SCOPES = 500;

/**
 * Event keys per trigger node (workflow id + node id) in this n8n process. n8n builds a new
 * Workflow with the stored static data for every production request and saves it after
 * answering, so two deliveries arriving at the same time would both read the static data
 * before either saved it. This process-wide set is checked and updated synchronously (no
 * await between the check and the claim), so the second of two simultaneous identical
 * deliveries is recognised; the static data keeps the keys across restarts.
 */
const scopes = new Map<string, RecentSet>();

function scopeSet(scope: string): RecentSet {
	let set = scopes.get(scope);
	if (set) {
		// Most recently used last, so the oldest scope is evicted first.
		scopes.delete(scope);
		scopes.set(scope, set);
		return set;
	}
	set = new RecentSet(RECENT_EVENT_LIMIT);
	scopes.set(scope, set);
	while (scopes.size > MAX_SCOPES) scopes.delete(scopes.keys().next().value as string);
	return set;
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

/**
 * Marks event keys as seen, in this process and in the node's static data (bounded, oldest
 * dropped first). Synchronous on purpose: see `scopes`.
 */
export function claimEventKeys(scope: string, staticData: IDataObject, field: string, keys: string[]): Claim {
	const set = scopeSet(scope);
	set.addOlder(storedKeys(staticData, field));
	const claimed: string[] = [];
	const fresh = keys.map((key) => {
		if (set.has(key)) return false;
		set.add(key);
		claimed.push(key);
		return true;
	});
	if (claimed.length) staticData[field] = set.toArray();
	return {
		fresh,
		release() {
			if (!claimed.length) return;
			for (const key of claimed) set.delete(key);
			staticData[field] = set.toArray();
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
