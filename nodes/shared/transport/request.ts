import type { ICredentialDataDecryptedObject, IHttpRequestOptions, INode } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { Send } from './attempt';
import { attempt, headerValue, isCancellation, networkErrorCode, readErrorBody } from './attempt';
import { connectionError, parsePlatformError, platformApiError, timeoutError } from './errors';
import type { CallOutcome } from './limiter';
import { getLimiter } from './limiter';
import { backoffMs, getRetryPolicy, parseRetryAfter } from './retryPolicy';
import { sharedTokenFor } from './token';
import type { Sent, TokenFailure } from './tokenCall';
import {
	CLIENT_TIMEOUT_GRACE_MS,
	countUploadProgress,
	isBodyStream,
	isClientTimeout,
	NOT_SENT,
	TIMED_OUT,
	Watchdog,
	watchDownload,
	withinLimit,
} from './timeLimit';
import { sendWithSharedToken, tokenError, tokenFailure } from './tokenCall';
import type { ApiDefinition, RequestContext, WorkplaceRequest, WorkplaceResponse } from './types';

const IDEMPOTENT_METHODS = new Set<string>(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * Token requests the platform refused for good (e.g. a wrong client secret), per node run: the
 * run's other items fail with the same reason without asking again.
 */
const refusedTokens = new WeakMap<object, Map<string, TokenFailure>>();

const credentialReads = new WeakMap<object, Map<string, Promise<ICredentialDataDecryptedObject>>>();

/**
 * The interface's credential, read once per node run: n8n decrypts a credential on every
 * getCredentials call, and each request would read it again for the auth.
 */
async function credentialsFor(
	ctx: RequestContext,
	api: ApiDefinition,
	itemIndex: number,
): Promise<ICredentialDataDecryptedObject> {
	let perRun = credentialReads.get(ctx);
	if (!perRun) {
		perRun = new Map();
		credentialReads.set(ctx, perRun);
	}
	let credentials = perRun.get(api.credentialType);
	if (!credentials) {
		credentials = ctx.getCredentials(api.credentialType, itemIndex);
		// A failed read is not kept, so the next item reports its own error.
		credentials.catch(() => perRun?.delete(api.credentialType));
		perRun.set(api.credentialType, credentials);
	}
	return await credentials;
}

/** The call's path on the platform (with the base address's own path, e.g. /api/v1), for messages. */
function platformPath(baseUrl: string, path: string): string {
	try {
		return new URL(`${baseUrl}${path}`).pathname;
	} catch {
		return path;
	}
}

/**
 * The one request function of every Workplace node: credential from n8n's request
 * helper, base address, retries and the platform's error mapping.
 *
 * Retries: a 429 is always retried after Retry-After (the platform did not process
 * the call), bounded by the item's retry policy, which the router hands over (retryPolicy.ts).
 * A 5xx or a lost connection is retried only for idempotent calls (GET, PUT, DELETE, or a POST
 * with an Idempotency-Key the user says the platform honours): a POST that may have reached the
 * platform is otherwise never sent twice.
 * A 401 on a credential with a process-wide token (token.ts) renews the token and sends the
 * call again; a token request that fails sends nothing, so it is retried like a lost connection.
 * A 404 to a call sent again after a 5xx, a lost connection or a timeout is returned, not thrown,
 * when the call asks so (`notFoundAfterRetrySucceeds`: a DELETE an earlier attempt may have done).
 *
 * Time limit (timeLimit.ts): each attempt of a call must be answered within the item's "Timeout",
 * an upload or download must not go that long without a byte moving (a download's body too, read
 * after this returns). An attempt that runs out of time counts as a lost connection: retried only
 * when idempotent, else it fails with an error that says it may have reached the platform.
 *
 * In a node run every attempt first waits for the run's limiter (limiter.ts), which learns from
 * each answer how many calls may be in flight and, after a 429, how fast they may leave.
 */
export async function workplaceRequest<T = unknown>(
	ctx: RequestContext,
	api: ApiDefinition,
	request: WorkplaceRequest,
	itemIndex = 0,
): Promise<WorkplaceResponse<T>> {
	const node: INode = ctx.getNode();
	const credentials = await credentialsFor(ctx, api, itemIndex);
	const baseUrl = api.baseUrl(credentials).replace(/\/+$/, '');
	const policy = getRetryPolicy(ctx, itemIndex);
	const idempotent = IDEMPOTENT_METHODS.has(request.method) || Boolean(request.idempotencyKey && request.retryWithKey);
	const tokenSpec = api.expirableToken;
	const sharedToken = tokenSpec ? sharedTokenFor(node, api.credentialType, credentials, tokenSpec) : undefined;

	// The time limit (timeLimit.ts): a call's whole answer, or a transfer's progress.
	const transfer = typeof request.body === 'function' ? 'upload' : request.stream ? 'download' : undefined;
	const limitMs = policy.timeoutSeconds * 1000;

	/**
	 * `watchdog`: this attempt's clock; an upload's file parts restart it as they are sent.
	 * `tokenData`: the credential with the token to send (n8n writes a token it fetched into it).
	 */
	const send = (target: WorkplaceRequest, watchdog: Watchdog, tokenData?: ICredentialDataDecryptedObject): Send => async (ignoreHttpStatusErrors) => {
		// Out of time while it waited for a token: it is not sent late (the attempt was given up).
		if (watchdog.ranOut) throw new Error('Not sent: the time limit ran out while the call waited for an access token');
		// The call leaves now: its clock runs from here (waiting for a token another call fetches does not count).
		watchdog.release();
		const options: IHttpRequestOptions = {
			method: target.method,
			url: `${baseUrl}${target.path}`,
			qs: target.qs,
			headers: {
				accept: 'application/json',
				...(target.idempotencyKey ? { 'Idempotency-Key': target.idempotencyKey } : {}),
				...(target.headers ?? {}),
			},
			returnFullResponse: true,
			ignoreHttpStatusErrors,
			// The watchdog decides; n8n's client closes what still waits a moment later. An upload gets
			// none (0: not n8n's default 300 s either): its client limits the time until the answer,
			// which would cut a large file off while it flows.
			timeout: transfer === 'upload' ? 0 : limitMs + CLIENT_TIMEOUT_GRACE_MS,
		};
		if (typeof target.body === 'function') {
			options.body = await target.body();
		} else if (target.body !== undefined) {
			options.body = target.body;
		}
		if (options.body instanceof FormData) {
			options.body = countUploadProgress(options.body, watchdog);
			// n8n follows redirects through a client that keeps every byte sent until the answer (to
			// send them again), so a streamed file would end up whole in memory; a 3xx comes back as is.
			options.disableFollowRedirect = true;
		}
		if (target.stream) {
			options.encoding = 'stream';
		} else {
			options.json = true;
		}
		const reference = node.credentials?.[api.credentialType];
		return (await ctx.helpers.httpRequestWithAuthentication.call(
			ctx,
			api.credentialType,
			options,
			tokenData
				? { credentialsDecrypted: { id: reference?.id ?? '', name: reference?.name ?? '', type: api.credentialType, data: tokenData } }
				: undefined,
		)) as WorkplaceResponse<unknown>;
	};

	/** `attempts`: how many attempts ran out of time; `notSent`: the last one waited for a token in vain. */
	const timedOut = (attempts: number, more: { cutOffAfterBytes?: number; notSent?: boolean } = {}) =>
		timeoutError(
			node,
			{ method: request.method, path: platformPath(baseUrl, request.path), limitMs, transfer, idempotent, attempts, ...more },
			itemIndex,
		);

	/** The token saved with the credential (read again: another call or process may have renewed it). */
	const storedToken = async (property: string): Promise<string> => {
		const stored = await ctx.getCredentials(api.credentialType, itemIndex);
		return String(stored[property] ?? '');
	};

	const limiter = getLimiter(ctx);
	/**
	 * One attempt within its time limit; TIMED_OUT when the limit ran out first (the attempt goes on
	 * unobserved), NOT_SENT when it ran out while the call still waited for a token.
	 */
	const sendOnce = async (): Promise<Sent | typeof TIMED_OUT | typeof NOT_SENT> => {
		const permit = await limiter?.acquire();
		let callOutcome: CallOutcome = 'answered';
		const watchdog = new Watchdog(limitMs);
		// Held until the call leaves (send() releases it): a token another call fetches may be awaited first.
		watchdog.hold();
		let bodyWatched = false;
		try {
			const refused = refusedTokens.get(ctx)?.get(api.credentialType);
			if (refused) throw tokenError(node, refused, itemIndex);
			const sending: Promise<Sent> = sharedToken && tokenSpec
				? sendWithSharedToken(
						sharedToken,
						tokenSpec,
						credentials,
						(tokenData) => send(request, watchdog, tokenData),
						{ watchdog, tokenTimeoutMs: limitMs },
						{ readStored: () => storedToken(tokenSpec.property), logger: ctx.logger },
					)
				: attempt(send(request, watchdog), true).then((outcome) => ({ outcome }));
			const sent = await withinLimit(sending, watchdog);
			if (sent === TIMED_OUT) {
				// A late answer's streamed body is closed; a late failure is of no interest any more.
				sending.then(
					(late) => {
						if ('response' in late.outcome && isBodyStream(late.outcome.response.body)) late.outcome.response.body.destroy();
					},
					() => undefined,
				);
				callOutcome = 'connectionError';
				return watchdog.released ? TIMED_OUT : NOT_SENT;
			}
			if ('networkError' in sent.outcome && !isCancellation(ctx, sent.outcome.networkError)) callOutcome = 'connectionError';
			if ('response' in sent.outcome && sent.outcome.response.statusCode === 429) callOutcome = 'throttled';
			if ('response' in sent.outcome && transfer === 'download') {
				// The answer began: from here its body is read by the operation, limited by the same clock.
				watchDownload(sent.outcome.response.body, watchdog, (bytes) => timedOut(1, { cutOffAfterBytes: bytes }));
				bodyWatched = true;
			}
			return sent;
		} finally {
			if (!bodyWatched) watchdog.stop();
			if (permit) limiter?.release(permit, callOutcome);
		}
	};

	let rateLimitRetries = 0;
	let serverErrorRetries = 0;
	let tokenRenewals = 0;
	let timeouts = 0;
	// An attempt sent again after a timeout, a lost connection or a 5xx may have been processed.
	let resentAfterLoss = false;
	for (;;) {
		const sent = await sendOnce();

		if (sent === NOT_SENT) {
			// Nothing left: any call may be tried again, as after a failed token request.
			if (isCancellation(ctx, {})) throw new NodeOperationError(node, 'The execution was cancelled', { itemIndex });
			timeouts++;
			if (serverErrorRetries < policy.maxServerErrorRetries) {
				await sleep(backoffMs(serverErrorRetries));
				serverErrorRetries++;
				continue;
			}
			throw timedOut(timeouts, { notSent: true });
		}
		const clientError = sent !== TIMED_OUT && 'networkError' in sent.outcome ? sent.outcome.networkError : undefined;
		if (sent === TIMED_OUT || isClientTimeout(clientError)) {
			// No answer in time. The user's cancellation is not a timeout.
			if (isCancellation(ctx, clientError ?? {})) {
				throw new NodeOperationError(node, 'The execution was cancelled', { itemIndex });
			}
			timeouts++;
			// Only a call the platform can receive twice is sent again (a create or send may have reached it).
			if (idempotent && serverErrorRetries < policy.maxServerErrorRetries) {
				await sleep(backoffMs(serverErrorRetries));
				serverErrorRetries++;
				resentAfterLoss = true;
				continue;
			}
			throw timedOut(timeouts);
		}
		const { outcome } = sent;

		if ('tokenError' in outcome) {
			// The token request failed before the call was sent, so any call may be sent again.
			const failure = tokenFailure(outcome.tokenError, sent.tokenNote);
			if (!failure.transient) {
				const perRun = refusedTokens.get(ctx) ?? new Map<string, TokenFailure>();
				perRun.set(api.credentialType, failure);
				refusedTokens.set(ctx, perRun);
			}
			if (failure.transient && serverErrorRetries < policy.maxServerErrorRetries) {
				await sleep(Math.min(failure.retryAfterMs ?? backoffMs(serverErrorRetries), policy.maxRetryWaitSeconds * 1000));
				serverErrorRetries++;
				continue;
			}
			throw tokenError(node, failure, itemIndex);
		}

		if ('networkError' in outcome) {
			const error = outcome.networkError;
			if (isCancellation(ctx, error)) throw new NodeOperationError(node, error as Error, { itemIndex });
			const code = networkErrorCode(error);
			if (idempotent && serverErrorRetries < policy.maxServerErrorRetries) {
				await sleep(backoffMs(serverErrorRetries));
				serverErrorRetries++;
				resentAfterLoss = true;
				continue;
			}
			const reason = code ?? (error as Error).message ?? 'unknown network error';
			throw connectionError(node, reason, code, itemIndex);
		}

		const response = outcome.response;
		const status = response.statusCode;
		if (status < 300) return response as WorkplaceResponse<T>;

		const errorBody = await readErrorBody(response.body);
		if (status < 400) {
			// Only an upload gets here (n8n follows other redirects): its file is not sent twice.
			const location = headerValue(response.headers ?? {}, 'location');
			throw platformApiError(
				node,
				parsePlatformError(status, errorBody),
				itemIndex,
				`The platform redirected the file upload${location ? ` to ${location}` : ''}; a file is not sent a second time. Put the address it redirects to in the credential.`,
			);
		}

		const sentToken = sent.token;
		if (status === 401 && sharedToken && tokenSpec && !sent.primed && sentToken && tokenRenewals < 2) {
			// The platform rejected the token before doing anything: send the call again with a
			// renewed one (a token just fetched for this call that is rejected is a real error).
			tokenRenewals++;
			await sharedToken.renew(sentToken, () => storedToken(tokenSpec.property));
			continue;
		}

		const retryAfter = parseRetryAfter(headerValue(response.headers ?? {}, 'retry-after'));
		const platformError = parsePlatformError(status, errorBody);
		// The wait the platform asked for goes with its error, for a caller that retries on its own (the trigger's picture).
		const failure = (hint?: string, causes?: readonly string[]) => {
			const error = platformApiError(node, platformError, itemIndex, hint, causes);
			if (retryAfter !== undefined) error.context.retryAfterMs = retryAfter;
			return error;
		};

		if (status === 429) {
			const waitMs = retryAfter ?? backoffMs(rateLimitRetries);
			if (waitMs > policy.maxRetryWaitSeconds * 1000) {
				throw failure(
					`The platform asked to wait ${Math.ceil(waitMs / 1000)} s, longer than "Max Retry Wait" (${policy.maxRetryWaitSeconds} s).`,
				);
			}
			if (rateLimitRetries < policy.maxRateLimitRetries) {
				rateLimitRetries++;
				await sleep(waitMs);
				continue;
			}
			throw failure(
				`Still rate limited after ${rateLimitRetries} retries ("Max Rate Limit Retries").`,
			);
		}
		if (status >= 500 && idempotent && serverErrorRetries < policy.maxServerErrorRetries) {
			const waitMs = Math.min(
				retryAfter ?? backoffMs(serverErrorRetries),
				policy.maxRetryWaitSeconds * 1000,
			);
			serverErrorRetries++;
			resentAfterLoss = true;
			await sleep(waitMs);
			continue;
		}
		if (status === 404 && resentAfterLoss && request.notFoundAfterRetrySucceeds) {
			return { ...response, body: errorBody } as WorkplaceResponse<T>;
		}
		throw failure(undefined, api.forbiddenCauses);
	}
}
