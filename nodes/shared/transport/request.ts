import type { ICredentialDataDecryptedObject, IHttpRequestOptions, INode } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { Send } from './attempt';
import { attempt, headerValue, isCancellation, networkErrorCode, readErrorBody } from './attempt';
import { connectionError, parsePlatformError, platformApiError, timeoutError } from './errors';
import type { CallOutcome } from './limiter';
import { getLimiter } from './limiter';
import type { RetryPolicy } from './retryPolicy';
import { backoffMs, itemRetryPolicy, parseRetryAfter } from './retryPolicy';
import type { ExpirableToken, SharedToken } from './token';
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

/** One platform call, as it is prepared once before its first attempt. */
interface Call {
	ctx: RequestContext;
	api: ApiDefinition;
	request: WorkplaceRequest;
	itemIndex: number;
	node: INode;
	credentials: ICredentialDataDecryptedObject;
	baseUrl: string;
	/** Time limit and retries: the caller's, else the item's Request Options (retryPolicy.ts). */
	policy: RetryPolicy;
	/** Whether the platform may receive the call twice: only then is it sent again after a loss. */
	idempotent: boolean;
	/** The credential's process-wide token (token.ts), when its interface has one. */
	token?: { spec: ExpirableToken; shared: SharedToken };
	/** A file sent or received as a stream: its time limit watches the bytes moving. */
	transfer?: 'upload' | 'download';
	limitMs: number;
}

/** How a call fared so far: what its retries used up. */
interface Tally {
	rateLimitRetries: number;
	serverErrorRetries: number;
	tokenRenewals: number;
	timeouts: number;
	/** An attempt sent again after a timeout, a lost connection or a 5xx may have been processed. */
	resentAfterLoss: boolean;
}

/** What to do after an attempt: wait and send again, renew the token and send again, or the answer. */
type Next = { retryInMs: number } | { renewToken: string } | { answer: WorkplaceResponse };

/** Step 1: the credential, base address, retry policy and token of the call. */
async function prepareCall(ctx: RequestContext, api: ApiDefinition, request: WorkplaceRequest, itemIndex: number): Promise<Call> {
	const node = ctx.getNode();
	const credentials = await credentialsFor(ctx, api, itemIndex);
	const policy = request.policy ?? itemRetryPolicy(ctx, itemIndex);
	const spec = api.expirableToken;
	return {
		ctx,
		api,
		request,
		itemIndex,
		node,
		credentials,
		baseUrl: api.baseUrl(credentials).replace(/\/+$/, ''),
		policy,
		idempotent: IDEMPOTENT_METHODS.has(request.method) || Boolean(request.idempotencyKey && request.retryWithKey),
		token: spec ? { spec, shared: sharedTokenFor(node, api.credentialType, credentials, spec) } : undefined,
		transfer: typeof request.body === 'function' ? 'upload' : request.stream ? 'download' : undefined,
		limitMs: policy.timeoutSeconds * 1000,
	};
}

/** n8n's request options of one attempt; an upload's file parts restart the attempt's clock as they are sent. */
async function httpOptions(call: Call, watchdog: Watchdog, ignoreHttpStatusErrors: boolean): Promise<IHttpRequestOptions> {
	const { request } = call;
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${call.baseUrl}${request.path}`,
		qs: request.qs,
		headers: {
			accept: 'application/json',
			...(request.idempotencyKey ? { 'Idempotency-Key': request.idempotencyKey } : {}),
			...(request.headers ?? {}),
		},
		returnFullResponse: true,
		ignoreHttpStatusErrors,
		// The watchdog decides; n8n's client closes what still waits a moment later. An upload gets
		// none (0: not n8n's default 300 s either): its client limits the time until the answer,
		// which would cut a large file off while it flows.
		timeout: call.transfer === 'upload' ? 0 : call.limitMs + CLIENT_TIMEOUT_GRACE_MS,
	};
	if (typeof request.body === 'function') {
		options.body = await request.body();
	} else if (request.body !== undefined) {
		options.body = request.body;
	}
	if (options.body instanceof FormData) {
		options.body = countUploadProgress(options.body, watchdog);
		// n8n follows redirects through a client that keeps every byte sent until the answer (to
		// send them again), so a streamed file would end up whole in memory; a 3xx comes back as is.
		options.disableFollowRedirect = true;
	}
	if (request.stream) options.encoding = 'stream';
	else options.json = true;
	return options;
}

/**
 * Sends one attempt through n8n's authenticated request helper. `tokenData`: the credential with
 * the token to send (n8n writes a token it fetched into it).
 */
function sender(call: Call, watchdog: Watchdog, tokenData?: ICredentialDataDecryptedObject): Send {
	return async (ignoreHttpStatusErrors) => {
		// Out of time while it waited for a token: it is not sent late (the attempt was given up).
		if (watchdog.ranOut) throw new Error('Not sent: the time limit ran out while the call waited for an access token');
		// The call leaves now: its clock runs from here (waiting for a token another call fetches does not count).
		watchdog.release();
		const options = await httpOptions(call, watchdog, ignoreHttpStatusErrors);
		const { ctx, api, node } = call;
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
}

/** The error of a call that got no answer in time; `notSent`: the last attempt waited for a token in vain. */
function timedOut(call: Call, attempts: number, more: { cutOffAfterBytes?: number; notSent?: boolean } = {}) {
	const { request, baseUrl, limitMs, transfer, idempotent } = call;
	return timeoutError(
		call.node,
		{ method: request.method, path: platformPath(baseUrl, request.path), limitMs, transfer, idempotent, attempts, ...more },
		call.itemIndex,
	);
}

/** The token saved with the credential (read again: another call or process may have renewed it). */
async function storedToken(call: Call, property: string): Promise<string> {
	const stored = await call.ctx.getCredentials(call.api.credentialType, call.itemIndex);
	return String(stored[property] ?? '');
}

/** The attempt itself: with the process-wide token when the interface has one, else as n8n authenticates it. */
function startAttempt(call: Call, watchdog: Watchdog): Promise<Sent> {
	const refused = refusedTokens.get(call.ctx)?.get(call.api.credentialType);
	if (refused) throw tokenError(call.node, refused, call.itemIndex);
	const { token } = call;
	if (!token) return attempt(sender(call, watchdog), true).then((outcome) => ({ outcome }));
	return sendWithSharedToken(
		token.shared,
		token.spec,
		call.credentials,
		(tokenData) => sender(call, watchdog, tokenData),
		{ watchdog, tokenTimeoutMs: call.limitMs },
		{ readStored: () => storedToken(call, token.spec.property), logger: call.ctx.logger },
	);
}

/** What the run's limiter learns from an attempt. */
function limiterOutcome(call: Call, sent: Sent): CallOutcome {
	if ('networkError' in sent.outcome && !isCancellation(call.ctx, sent.outcome.networkError)) return 'connectionError';
	if ('response' in sent.outcome && sent.outcome.response.statusCode === 429) return 'throttled';
	return 'answered';
}

/**
 * Step 2: one attempt within its time limit, after the run's limiter lets it go; TIMED_OUT when
 * the limit ran out first (the attempt goes on unobserved), NOT_SENT when it ran out while the
 * call still waited for a token.
 */
async function sendOnce(call: Call): Promise<Sent | typeof TIMED_OUT | typeof NOT_SENT> {
	const limiter = getLimiter(call.ctx);
	const permit = await limiter?.acquire();
	let callOutcome: CallOutcome = 'answered';
	const watchdog = new Watchdog(call.limitMs);
	// Held until the call leaves (sender() releases it): a token another call fetches may be awaited first.
	watchdog.hold();
	let bodyWatched = false;
	try {
		const sending = startAttempt(call, watchdog);
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
		callOutcome = limiterOutcome(call, sent);
		if ('response' in sent.outcome && call.transfer === 'download') {
			// The answer began: from here its body is read by the operation, limited by the same clock.
			watchDownload(sent.outcome.response.body, watchdog, (bytes) => timedOut(call, 1, { cutOffAfterBytes: bytes }));
			bodyWatched = true;
		}
		return sent;
	} finally {
		if (!bodyWatched) watchdog.stop();
		if (permit) limiter?.release(permit, callOutcome);
	}
}

/** The user stopped the execution: the error n8n gave, else one saying so. */
function cancelled(call: Call, cause?: unknown): NodeOperationError {
	return new NodeOperationError(call.node, cause === undefined ? 'The execution was cancelled' : (cause as Error), { itemIndex: call.itemIndex });
}

/** A retry after a loss (5xx, lost connection, timeout, failed token request), while the policy allows one. */
function lossRetry(call: Call, tally: Tally, waitMs = backoffMs(tally.serverErrorRetries), resent = true): Next | undefined {
	if (tally.serverErrorRetries >= call.policy.maxServerErrorRetries) return undefined;
	tally.serverErrorRetries++;
	if (resent) tally.resentAfterLoss = true;
	return { retryInMs: waitMs };
}

/** Step 3a: no answer in time. Only a call the platform can receive twice is sent again. */
function afterNoAnswer(call: Call, tally: Tally, sent: typeof TIMED_OUT | typeof NOT_SENT, clientError: unknown): Next {
	// The user's cancellation is not a timeout.
	if (isCancellation(call.ctx, clientError ?? {})) throw cancelled(call);
	tally.timeouts++;
	if (sent === NOT_SENT) {
		// Nothing left: any call may be tried again, as after a failed token request.
		const retry = lossRetry(call, tally, undefined, false);
		if (retry) return retry;
		throw timedOut(call, tally.timeouts, { notSent: true });
	}
	const retry = call.idempotent ? lossRetry(call, tally) : undefined;
	if (retry) return retry;
	throw timedOut(call, tally.timeouts);
}

/** Step 3b: the token request failed before the call was sent, so any call may be sent again. */
function afterTokenError(call: Call, tally: Tally, sent: Sent & { outcome: { tokenError: unknown } }): Next {
	const failure = tokenFailure(sent.outcome.tokenError, sent.tokenNote);
	if (!failure.transient) {
		const perRun = refusedTokens.get(call.ctx) ?? new Map<string, TokenFailure>();
		perRun.set(call.api.credentialType, failure);
		refusedTokens.set(call.ctx, perRun);
	}
	const waitMs = Math.min(failure.retryAfterMs ?? backoffMs(tally.serverErrorRetries), call.policy.maxRetryWaitSeconds * 1000);
	const retry = failure.transient ? lossRetry(call, tally, waitMs, false) : undefined;
	if (retry) return retry;
	throw tokenError(call.node, failure, call.itemIndex);
}

/** Step 3c: the connection was lost; sent again only when idempotent. */
function afterNetworkError(call: Call, tally: Tally, error: unknown): Next {
	if (isCancellation(call.ctx, error)) throw cancelled(call, error);
	const retry = call.idempotent ? lossRetry(call, tally) : undefined;
	if (retry) return retry;
	const code = networkErrorCode(error);
	const reason = code ?? (error as Error).message ?? 'unknown network error';
	throw connectionError(call.node, reason, code, call.itemIndex);
}

/** Step 3d: the platform answered with an error status. */
async function afterErrorStatus(call: Call, tally: Tally, sent: Sent, response: WorkplaceResponse): Promise<Next> {
	const { node, itemIndex, policy } = call;
	const status = response.statusCode;
	const errorBody = await readErrorBody(response.body);
	if (status < 400) {
		// Only an upload gets here (n8n follows other redirects): its file is not sent twice.
		const location = headerValue(response.headers ?? {}, 'location');
		const hint = `The platform redirected the file upload${location ? ` to ${location}` : ''}; a file is not sent a second time. Put the address it redirects to in the credential.`;
		throw platformApiError(node, parsePlatformError(status, errorBody), itemIndex, hint);
	}
	if (status === 401 && call.token && !sent.primed && sent.token && tally.tokenRenewals < 2) {
		// The platform rejected the token before doing anything: send the call again with a
		// renewed one (a token just fetched for this call that is rejected is a real error).
		tally.tokenRenewals++;
		return { renewToken: sent.token };
	}
	const retryAfter = parseRetryAfter(headerValue(response.headers ?? {}, 'retry-after'));
	// The wait the platform asked for goes with its error, for a caller that retries on its own (the trigger's picture).
	const failure = (hint?: string, causes?: readonly string[]) => {
		const error = platformApiError(node, parsePlatformError(status, errorBody), itemIndex, hint, causes);
		if (retryAfter !== undefined) error.context.retryAfterMs = retryAfter;
		return error;
	};
	if (status === 429) {
		const waitMs = retryAfter ?? backoffMs(tally.rateLimitRetries);
		if (waitMs > policy.maxRetryWaitSeconds * 1000) {
			throw failure(`The platform asked to wait ${Math.ceil(waitMs / 1000)} s, longer than "Max Retry Wait" (${policy.maxRetryWaitSeconds} s).`);
		}
		if (tally.rateLimitRetries >= policy.maxRateLimitRetries) throw failure(`Still rate limited after ${tally.rateLimitRetries} retries ("Max Rate Limit Retries").`);
		tally.rateLimitRetries++;
		return { retryInMs: waitMs };
	}
	if (status >= 500 && call.idempotent) {
		const retry = lossRetry(call, tally, Math.min(retryAfter ?? backoffMs(tally.serverErrorRetries), policy.maxRetryWaitSeconds * 1000));
		if (retry) return retry;
	}
	if (status === 404 && tally.resentAfterLoss && call.request.notFoundAfterRetrySucceeds) {
		return { answer: { ...response, body: errorBody } };
	}
	throw failure(undefined, call.api.forbiddenCauses);
}

/** Step 3: what an attempt's outcome leads to. */
async function nextStep(call: Call, tally: Tally, sent: Sent | typeof TIMED_OUT | typeof NOT_SENT): Promise<Next> {
	if (sent === NOT_SENT || sent === TIMED_OUT) return afterNoAnswer(call, tally, sent, undefined);
	const { outcome } = sent;
	if ('networkError' in outcome && isClientTimeout(outcome.networkError)) return afterNoAnswer(call, tally, TIMED_OUT, outcome.networkError);
	if ('tokenError' in outcome) return afterTokenError(call, tally, { ...sent, outcome });
	if ('networkError' in outcome) return afterNetworkError(call, tally, outcome.networkError);
	if (outcome.response.statusCode < 300) return { answer: outcome.response };
	return await afterErrorStatus(call, tally, sent, outcome.response);
}

/**
 * The one request function of every Workplace node: credential from n8n's request
 * helper, base address, retries and the platform's error mapping. In steps: prepareCall,
 * then for each attempt sendOnce and nextStep (afterNoAnswer, afterTokenError,
 * afterNetworkError, afterErrorStatus), until an answer or an error.
 *
 * Retries: a 429 is always retried after Retry-After (the platform did not process
 * the call), bounded by the call's policy: the request's own, else the item's Request Options
 * (itemRetryPolicy in retryPolicy.ts).
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
	const call = await prepareCall(ctx, api, request, itemIndex);
	const tally: Tally = { rateLimitRetries: 0, serverErrorRetries: 0, tokenRenewals: 0, timeouts: 0, resentAfterLoss: false };
	for (;;) {
		const next = await nextStep(call, tally, await sendOnce(call));
		if ('answer' in next) return next.answer as WorkplaceResponse<T>;
		if ('renewToken' in next) {
			const token = call.token!;
			await token.shared.renew(next.renewToken, () => storedToken(call, token.spec.property));
			continue;
		}
		await sleep(next.retryInMs);
	}
}
