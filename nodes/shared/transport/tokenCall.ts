import type { ICredentialDataDecryptedObject, INode, JsonObject, Logger } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Outcome, Send } from './attempt';
import { attempt } from './attempt';
import { parseRetryAfter } from './retryPolicy';
import type { ExpirableToken, TokenOutcome, TokenRequestFailure } from './token';
import { warnOnce } from '../reliance';
import type { Watchdog } from './timeLimit';
import { DEFAULT_TIMEOUT_MS, secondsText } from './timeLimit';
import { sharedTokenFor, takeTokenRequestFailure, watchTokenRequests } from './token';

/** Calls sent with a process-wide token (token.ts), and how a failed token request reads. */

export interface TokenFailure {
	message: string;
	httpCode?: string;
	/** A throttled, failing or unreachable token endpoint may answer the next time. */
	transient: boolean;
	retryAfterMs?: number;
}

/** A failed token request: n8n's error (its message) and what the credential noted (token.ts). */
export function tokenFailure(error: unknown, noted: TokenRequestFailure | undefined): TokenFailure {
	const status = noted?.status;
	return {
		message: String((error as { message?: unknown })?.message ?? 'unknown error'),
		httpCode: status === undefined ? undefined : String(status),
		transient: status === undefined || status === 429 || status >= 500,
		retryAfterMs: parseRetryAfter(noted?.retryAfter),
	};
}

export function tokenError(node: INode, failure: TokenFailure, itemIndex: number): NodeApiError {
	return new NodeApiError(node, { message: failure.message, httpCode: failure.httpCode ?? null } as JsonObject, {
		message: failure.message,
		httpCode: failure.httpCode,
		itemIndex,
	});
}

/** A call sent (or not) with the process-wide token. */
export interface Sent {
	outcome: Outcome;
	/** The token the call carried. */
	token?: string;
	/** Whether this call fetched the token (n8n ran preAuthentication before sending it). */
	primed?: boolean;
	/** How the token request failed, as the credential noted it. */
	tokenNote?: TokenRequestFailure;
}

/** What the token request of a primer call (the one n8n fetches the token for) told: the token, or that it failed. */
interface PrimerWatch {
	/** The token the credential's preAuthentication fetched (it reports it, token.ts). */
	fetched?: string;
	/** The token request ran and ended without a token. */
	failed: boolean;
	stop(): void;
}

function watchPrimer(
	credentials: ICredentialDataDecryptedObject,
	spec: ExpirableToken,
	clock: { watchdog: Watchdog; tokenTimeoutMs: number } | undefined,
	settle: (outcome: TokenOutcome) => void,
): PrimerWatch {
	const watch: PrimerWatch = { failed: false, stop: () => {} };
	watch.stop = watchTokenRequests(credentials, spec.identityFields, {
		timeoutMs: clock?.tokenTimeoutMs ?? DEFAULT_TIMEOUT_MS,
		started: () => clock?.watchdog.hold(),
		ended: (token) => {
			if (token) watch.fetched = token;
			else watch.failed = true;
			clock?.watchdog.release();
		},
	});
	void clock?.watchdog.expired.then(() =>
		settle(
			watch.fetched
				? { token: watch.fetched }
				: { error: new Error(`No access token within ${secondsText(clock.tokenTimeoutMs)}: the call that requested it ran out of time`) },
		),
	);
	return watch;
}

/** How a primer call's token is found when n8n did not write it back, and whom to tell. */
export interface TokenFallback {
	/** The token of the stored credential (n8n saves a fetched one with it). */
	readStored(): Promise<string>;
	logger: Logger;
}

/**
 * The token a primer call was sent with when n8n did not write it into the data it was given:
 * the one the credential's preAuthentication reported, else (the call was answered) the stored
 * credential's. The admin is told once per process; '' when none could be read.
 */
async function tokenNotWrittenBack(watch: PrimerWatch, outcome: Outcome, fallback: TokenFallback | undefined): Promise<string> {
	if (!watch.fetched && !('response' in outcome)) return '';
	const token = watch.fetched ?? (await fallback?.readStored().catch(() => '')) ?? '';
	if (fallback) {
		const source = watch.fetched ? 'the token its token request reported' : token ? 'the token saved with the credential' : 'no token: the next call fetches one again';
		warnOnce(
			fallback.logger,
			'tokenWrittenBack',
			`Workplace: n8n did not write the access token it fetched for a call (the credential's preAuthentication) into the credential data the call was given; the package took ${source}. The call itself was sent once and its answer is kept; nothing is sent twice.`,
		);
	}
	return token;
}

/**
 * `clock`: the call's watchdog (timeLimit.ts) and its limit. The wait for a token another call is
 * fetching is not counted in this call's time (the watchdog is held until the call is sent). When
 * this call fetches the token, the token request gets the call's limit and the clock does not run
 * while it is under way; the calls waiting for the token go on when this call ends, or when it runs
 * out of time (a call given up may never end, e.g. an upload the platform stopped reading).
 *
 * A call that was answered (any HTTP status) keeps its answer: it is never turned into a token
 * failure, which would send it again. Only a call with no answer whose token request failed is one.
 */
export async function sendWithSharedToken(
	sharedToken: ReturnType<typeof sharedTokenFor>,
	spec: ExpirableToken,
	credentials: ICredentialDataDecryptedObject,
	send: (tokenData: ICredentialDataDecryptedObject) => Send,
	clock?: { watchdog: Watchdog; tokenTimeoutMs: number },
	fallback?: TokenFallback,
): Promise<Sent> {
	const acquired = await sharedToken.acquire();
	if ('failed' in acquired) {
		// The call that fetched the token for this process could not get one: this one is not sent.
		return { outcome: { tokenError: acquired.failed.error }, tokenNote: acquired.failed.note };
	}
	const tokenData = { ...credentials, [spec.property]: acquired.token };
	let settled = false;
	const settle = (outcome: TokenOutcome) => {
		if (settled || !acquired.primer) return;
		settled = true;
		acquired.primer(outcome);
	};
	const watch = acquired.primer ? watchPrimer(credentials, spec, clock, settle) : undefined;
	let outcome: Outcome;
	try {
		outcome = await attempt(send(tokenData), true);
	} finally {
		watch?.stop();
	}
	// n8n writes a token it fetched (preAuthentication) into the data it was given.
	const written = String(tokenData[spec.property] ?? '');
	if (!watch) return { outcome, token: written };
	const token = written || (await tokenNotWrittenBack(watch, outcome, fallback));
	if (token !== '') {
		settle({ token });
		return { outcome, token, primed: true };
	}
	if (!('networkError' in outcome) || !watch.failed) {
		// Answered (or lost after it left) without a token to share: the next call fetches one.
		settle({ token: '' });
		return { outcome, primed: true };
	}
	const tokenNote = takeTokenRequestFailure(credentials, spec.identityFields);
	const error = outcome.networkError;
	settle({ error, note: tokenNote });
	return { outcome: { tokenError: error }, primed: true, tokenNote };
}
