import type { ICredentialDataDecryptedObject, IHttpRequestOptions, INode } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { Send } from './attempt';
import { attempt, headerValue, isCancellation, networkErrorCode, readErrorBody } from './attempt';
import { connectionError, parsePlatformError, platformApiError } from './errors';
import type { CallOutcome } from './limiter';
import { getLimiter } from './limiter';
import { backoffMs, getRetryPolicy, parseRetryAfter } from './retryPolicy';
import { sharedTokenFor } from './token';
import type { Sent, TokenFailure } from './tokenCall';
import { sendWithSharedToken, tokenError, tokenFailure } from './tokenCall';
import type { ApiDefinition, RequestContext, WorkplaceRequest, WorkplaceResponse } from './index';

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

	/** `tokenData`: the credential with the token to send (n8n writes a token it fetched into it). */
	const send = (target: WorkplaceRequest, tokenData?: ICredentialDataDecryptedObject): Send => async (ignoreHttpStatusErrors) => {
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
		};
		if (typeof target.body === 'function') {
			options.body = await target.body();
		} else if (target.body !== undefined) {
			options.body = target.body;
		}
		if (options.body instanceof FormData) {
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

	const limiter = getLimiter(ctx);
	const sendOnce = async (): Promise<Sent> => {
		const permit = await limiter?.acquire();
		let callOutcome: CallOutcome = 'answered';
		try {
			const refused = refusedTokens.get(ctx)?.get(api.credentialType);
			if (refused) throw tokenError(node, refused, itemIndex);
			const sent: Sent = sharedToken && tokenSpec
				? await sendWithSharedToken(sharedToken, tokenSpec, credentials, (tokenData) => send(request, tokenData))
				: { outcome: await attempt(send(request), true) };
			if ('networkError' in sent.outcome && !isCancellation(ctx, sent.outcome.networkError)) callOutcome = 'connectionError';
			if ('response' in sent.outcome && sent.outcome.response.statusCode === 429) callOutcome = 'throttled';
			return sent;
		} finally {
			if (permit) limiter?.release(permit, callOutcome);
		}
	};

	let rateLimitRetries = 0;
	let serverErrorRetries = 0;
	let tokenRenewals = 0;
	for (;;) {
		const sent = await sendOnce();
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
			await sharedToken.renew(sentToken, async () => {
				const stored = await ctx.getCredentials(api.credentialType, itemIndex);
				return String(stored[tokenSpec.property] ?? '');
			});
			continue;
		}

		const retryAfter = parseRetryAfter(headerValue(response.headers ?? {}, 'retry-after'));
		const platformError = parsePlatformError(status, errorBody);

		if (status === 429) {
			const waitMs = retryAfter ?? backoffMs(rateLimitRetries);
			if (waitMs > policy.maxRetryWaitSeconds * 1000) {
				throw platformApiError(
					node,
					platformError,
					itemIndex,
					`The platform asked to wait ${Math.ceil(waitMs / 1000)} s, longer than "Max Retry Wait" (${policy.maxRetryWaitSeconds} s).`,
				);
			}
			if (rateLimitRetries < policy.maxRateLimitRetries) {
				rateLimitRetries++;
				await sleep(waitMs);
				continue;
			}
			throw platformApiError(
				node,
				platformError,
				itemIndex,
				`Still rate limited after ${rateLimitRetries} retries ("Max Rate Limit Retries").`,
			);
		}
		if (status >= 500 && idempotent && serverErrorRetries < policy.maxServerErrorRetries) {
			const waitMs = Math.min(
				retryAfter ?? backoffMs(serverErrorRetries),
				policy.maxRetryWaitSeconds * 1000,
			);
			serverErrorRetries++;
			await sleep(waitMs);
			continue;
		}
		throw platformApiError(node, platformError, itemIndex, undefined, api.forbiddenCauses);
	}
}
