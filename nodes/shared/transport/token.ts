import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject, INode } from 'n8n-workflow';

import { processMap } from '../processMemory';
import { DEFAULT_TIMEOUT_MS } from './timeLimit';

/**
 * The access token of a credential whose token n8n fetches through the credential's
 * preAuthentication (an expirable hidden property), shared by every execution in this n8n
 * process: a cold or rejected token costs one token request per process, not one per execution.
 *
 * A call is sent with the token this process holds. When it holds none, one call (the "primer")
 * is sent with an empty token: n8n then runs preAuthentication, saves the token with the
 * credential and sends the call with it, so the token costs the token request alone; the calls
 * that arrive meanwhile wait for it. After a 401, the stored credential is read again first:
 * another process (a queue-mode worker) may have renewed it already, and a platform that revokes
 * the previous token on each issue would otherwise see the processes take turns.
 */
export interface ExpirableToken {
	/** The hidden expirable property, e.g. `accessToken`. */
	property: string;
	/** Non-secret fields that identify the account (e.g. base URL and client ID). */
	identityFields: string[];
}

export type TokenOutcome = { token: string } | { error: unknown; note?: TokenRequestFailure };

export class SharedToken {
	/** The token calls are sent with ('' = none yet: the next call is the primer). */
	value = '';

	/** Whether `value` was taken from a stored credential or a fetch at least once. */
	seeded = false;

	/** While a primer is out: settles with its token, or with the error of its token request. */
	private priming?: Promise<TokenOutcome>;

	/**
	 * The token to send a call with. `primer` is set when this call must go with an empty token
	 * (n8n fetches one); it must then be called with the outcome. `failed`: the token request of
	 * the call this one waited for failed, so this call is not sent either.
	 */
	async acquire(): Promise<
		{ token: string; primer?: (outcome: TokenOutcome) => void } | { failed: { error: unknown; note?: TokenRequestFailure } }
	> {
		for (;;) {
			if (this.value) return { token: this.value };
			if (!this.priming) break;
			const outcome = await this.priming;
			if ('error' in outcome) return { failed: outcome };
		}
		let settle: (outcome: TokenOutcome) => void = () => {};
		this.priming = new Promise<TokenOutcome>((resolve) => {
			settle = resolve;
		});
		return {
			token: '',
			primer: (outcome) => {
				if ('token' in outcome && outcome.token) this.value = outcome.token;
				this.priming = undefined;
				settle(outcome);
			},
		};
	}

	/**
	 * A call sent with `rejected` was answered 401. Unless another call already moved on from that
	 * token, take the stored one when it is newer (renewed by another process), else clear it so
	 * that the next call fetches a new one.
	 */
	async renew(rejected: string, readStored: () => Promise<string>): Promise<void> {
		if (this.value !== rejected || this.priming) return;
		const stored = await readStored().catch(() => '');
		if (this.value !== rejected || this.priming) return;
		this.value = stored && stored !== rejected ? stored : '';
	}
}

const tokens = processMap<string, SharedToken>();
const MAX_TOKENS = 200;

function identityOf(credentials: ICredentialDataDecryptedObject, fields: string[]): string {
	const identity = fields.map((field) => String(credentials[field] ?? '')).join('\n');
	return createHash('sha256').update(identity).digest('hex');
}

/** How the last token request of an account failed: the HTTP status (none: unreachable) and Retry-After. */
export interface TokenRequestFailure {
	status?: number;
	retryAfter?: unknown;
}

const failures = processMap<string, TokenRequestFailure>();

/**
 * What the token request (the credential's preAuthentication) must know of the call that fetches
 * the token: its time limit, and when the request starts and ends, with the token it got (the
 * call's clock does not run meanwhile, see timeLimit.ts). Registered per account by that call
 * (tokenCall.ts).
 */
export interface TokenRequestWatch {
	timeoutMs: number;
	started(): void;
	ended(token?: string): void;
}

const tokenRequestWatches = processMap<string, Set<TokenRequestWatch>>();

/** Registers a call that fetches the account's token; returns its removal. */
export function watchTokenRequests(
	credentials: ICredentialDataDecryptedObject,
	fields: string[],
	watch: TokenRequestWatch,
): () => void {
	const key = identityOf(credentials, fields);
	const watches = tokenRequestWatches.get(key) ?? new Set<TokenRequestWatch>();
	watches.add(watch);
	tokenRequestWatches.set(key, watches);
	return () => {
		watches.delete(watch);
		if (watches.size === 0 && tokenRequestWatches.get(key) === watches) tokenRequestWatches.delete(key);
	};
}

/** For the credential's token request: its limit (the calls', else the default) and whom to tell when it runs. */
export function tokenRequestWatch(credentials: ICredentialDataDecryptedObject, fields: string[]): TokenRequestWatch {
	const watches = [...(tokenRequestWatches.get(identityOf(credentials, fields)) ?? [])];
	return {
		timeoutMs: watches.length ? Math.min(...watches.map((w) => w.timeoutMs)) : DEFAULT_TIMEOUT_MS,
		started: () => watches.forEach((w) => w.started()),
		ended: (token) => watches.forEach((w) => w.ended(token)),
	};
}

/**
 * Called by a credential's preAuthentication when its token request fails. n8n passes only the
 * error's message on to the node (n8n 1's NodeApiError drops the original error), so the status
 * and Retry-After the node needs to decide on a retry travel through this process-wide note.
 */
export function noteTokenRequestFailure(
	credentials: ICredentialDataDecryptedObject,
	fields: string[],
	failure: TokenRequestFailure,
): void {
	failures.set(identityOf(credentials, fields), failure);
	while (failures.size > MAX_TOKENS) failures.delete(failures.keys().next().value as string);
}

/** The failure noted for an account (and forgets it). */
export function takeTokenRequestFailure(
	credentials: ICredentialDataDecryptedObject,
	fields: string[],
): TokenRequestFailure | undefined {
	const key = identityOf(credentials, fields);
	const failure = failures.get(key);
	failures.delete(key);
	return failure;
}

/** The process-wide token of the credential a node uses: per credential id and account. */
export function sharedTokenFor(
	node: INode,
	credentialType: string,
	credentials: ICredentialDataDecryptedObject,
	spec: ExpirableToken,
): SharedToken {
	const reference = node.credentials?.[credentialType];
	const key = [credentialType, reference?.id ?? reference?.name ?? '', identityOf(credentials, spec.identityFields)].join(':');
	let token = tokens.get(key);
	if (!token) {
		token = new SharedToken();
		tokens.set(key, token);
		while (tokens.size > MAX_TOKENS) tokens.delete(tokens.keys().next().value as string);
	}
	if (!token.seeded) {
		token.seeded = true;
		const stored = credentials[spec.property];
		if (typeof stored === 'string') token.value = stored;
	}
	return token;
}
