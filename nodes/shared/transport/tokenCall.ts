import type { ICredentialDataDecryptedObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Outcome, Send } from './attempt';
import { attempt } from './attempt';
import { parseRetryAfter } from './retryPolicy';
import type { ExpirableToken, TokenOutcome, TokenRequestFailure } from './token';
import type { Watchdog } from './timeLimit';
import { secondsText } from './timeLimit';
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

/**
 * `clock`: the call's watchdog (timeLimit.ts) and its limit. The wait for a token another call is
 * fetching is not counted in this call's time (the watchdog is held until the call is sent). When
 * this call fetches the token, the token request gets the call's limit and the clock does not run
 * while it is under way; the calls waiting for the token go on when this call ends, or when it runs
 * out of time (a call given up may never end, e.g. an upload the platform stopped reading).
 */
export async function sendWithSharedToken(
	sharedToken: ReturnType<typeof sharedTokenFor>,
	spec: ExpirableToken,
	credentials: ICredentialDataDecryptedObject,
	send: (tokenData: ICredentialDataDecryptedObject) => Send,
	clock?: { watchdog: Watchdog; tokenTimeoutMs: number },
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
	let unwatch: (() => void) | undefined;
	if (acquired.primer && clock) {
		let fetched: string | undefined;
		unwatch = watchTokenRequests(credentials, spec.identityFields, {
			timeoutMs: clock.tokenTimeoutMs,
			started: () => clock.watchdog.hold(),
			ended: (token) => {
				fetched = token;
				clock.watchdog.release();
			},
		});
		void clock.watchdog.expired.then(() =>
			settle(
				fetched
					? { token: fetched }
					: { error: new Error(`No access token within ${secondsText(clock.tokenTimeoutMs)}: the call that requested it ran out of time`) },
			),
		);
	}
	let outcome: Outcome;
	try {
		outcome = await attempt(send(tokenData), true);
	} finally {
		unwatch?.();
	}
	// n8n writes a token it fetched (preAuthentication) into the data it was given.
	const token = String(tokenData[spec.property] ?? '');
	if (!acquired.primer) return { outcome, token };
	if (token !== '') {
		settle({ token });
		return { outcome, token, primed: true };
	}
	const tokenNote = takeTokenRequestFailure(credentials, spec.identityFields);
	const error = 'networkError' in outcome ? outcome.networkError : new Error('The platform gave no access token');
	settle({ error, note: tokenNote });
	return { outcome: { tokenError: error }, primed: true, tokenNote };
}
