/**
 * The user an operation acts on (parameter `userId`): the User resource locator, By ID or By
 * Username. A username is looked up with `GET /bot/v1/users?username=` once per distinct username
 * per node run: the items share one lookup, also while it is in flight.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { botRequest } from '../../shared/transport/botApi';
import { invalidInput, isPlainObject, requireId } from '../../shared/validation';
import { nodeParameter, savedLocatorMode } from '../../shared/parameters';

/** Who the item names: a checked ID, or a username still to look up. */
export type UserReference = { uid: string } | { username: string };

/** The username of a By Username value, or undefined for an ID (By ID, or a plain text ID from an expression). */
function usernameOf(ctx: IExecuteFunctions, itemIndex: number): { given: unknown } | undefined {
	// the saved mode tells without evaluating the value (an isolate call on n8n 2)
	const mode = savedLocatorMode(ctx, 'userId');
	if (mode !== undefined) {
		return mode === 'username' ? { given: nodeParameter(ctx, 'userId', itemIndex, '', { extractValue: true }) } : undefined;
	}
	const value = nodeParameter(ctx, 'userId', itemIndex, '') as unknown;
	if (isPlainObject(value) && value.mode === 'username') return { given: value.value };
	return undefined;
}

/** A username as it is looked up: trimmed, without a leading "@". */
function normalizeUsername(given: unknown): string {
	if (typeof given !== 'string' && typeof given !== 'number') return '';
	return String(given).trim().replace(/^@/, '').trim();
}

/** Reads and checks the user of an item, before anything is sent. */
export function readUser(ctx: IExecuteFunctions, itemIndex: number): UserReference {
	const byName = usernameOf(ctx, itemIndex);
	if (byName === undefined) return { uid: requireId(ctx, itemIndex, 'userId', 'User') };
	const username = normalizeUsername(byName.given);
	if (username === '') throw invalidInput(ctx, itemIndex, 'User', 'must be a username when By Username is selected', byName.given);
	return { username };
}

/** The items of one conversation (router): by ID `user:<uid>`, by username `username:<name, lower case>`. */
export function userConversationKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const byName = usernameOf(ctx, itemIndex);
	if (byName !== undefined) return `username:${normalizeUsername(byName.given).toLowerCase()}`;
	return `user:${String(nodeParameter(ctx, 'userId', itemIndex, '', { extractValue: true }) ?? '').trim()}`;
}

type Lookup = Promise<IDataObject[]>;

/** The lookups of each node run, by username as sent. */
const lookupsOfRun = new WeakMap<IExecuteFunctions, Map<string, Lookup>>();

function lookUp(ctx: IExecuteFunctions, itemIndex: number, username: string): Lookup {
	let lookups = lookupsOfRun.get(ctx);
	if (lookups === undefined) {
		lookups = new Map();
		lookupsOfRun.set(ctx, lookups);
	}
	let lookup = lookups.get(username);
	if (lookup === undefined) {
		const request = { method: 'GET' as const, path: '/bot/v1/users', qs: { username } };
		lookup = botRequest<{ users?: unknown }>(ctx, request, itemIndex).then(({ body }) =>
			Array.isArray(body?.users) ? body.users.filter(isPlainObject) : [],
		);
		lookups.set(username, lookup);
	}
	return lookup;
}

function idsOf(users: IDataObject[]): string {
	return users.map((user) => String(user._id)).join(', ');
}

/**
 * The one user a username names (docs/assumptions.md): the users found whose username equals it
 * ignoring case, deleted ones left out; of several, the one whose username has the same case.
 */
function pickUser(ctx: IExecuteFunctions, itemIndex: number, username: string, users: IDataObject[]): string {
	const lowerCase = username.toLowerCase();
	const named = users.filter((user) => typeof user.username === 'string' && user.username.toLowerCase() === lowerCase);
	const active = named.filter((user) => user.deleted !== true);
	const sameCase = active.filter((user) => user.username === username);
	const chosen = active.length === 1 ? active : sameCase;
	if (chosen.length === 1) {
		const uid = chosen[0]._id;
		if (typeof uid === 'string' && uid !== '') return uid;
		throw new NodeOperationError(ctx.getNode(), `Item ${itemIndex}: the user found for username "${username}" has no ID`, {
			itemIndex,
			description: 'The platform answered GET /bot/v1/users without an `_id` for this user. Nothing was sent for this item.',
		});
	}
	const fail = (rule: string, note: string) =>
		invalidInput(ctx, itemIndex, 'User', rule, username, `Nothing was sent for this item. ${note}`);
	if (active.length > 1) {
		throw fail(`must name one user, but ${active.length} users have this username (IDs ${idsOf(active)})`, 'Give the user by ID instead.');
	}
	if (named.length > 0) {
		throw fail(`must name a user who is not deleted, but the user with this username is deleted (ID ${idsOf(named)})`, 'Deleted users are never chosen.');
	}
	throw fail('must be the username of an existing user, but no user has this username', 'Give the username (e.g. alice), not the display name.');
}

/** The uid of the user: the ID given, or the user the username names (looked up once per run). */
export async function resolveUser(ctx: IExecuteFunctions, itemIndex: number, user: UserReference): Promise<string> {
	if ('uid' in user) return user.uid;
	return pickUser(ctx, itemIndex, user.username, await lookUp(ctx, itemIndex, user.username));
}

/** readUser then resolveUser, for operations with nothing else to check. */
export async function userId(ctx: IExecuteFunctions, itemIndex: number): Promise<string> {
	return await resolveUser(ctx, itemIndex, readUser(ctx, itemIndex));
}
