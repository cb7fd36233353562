import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { connectionError, parsePlatformError, platformApiError } from './errors';
import type { ExpirableToken, TokenRequestFailure } from './token';
import { sharedTokenFor, takeTokenRequestFailure } from './token';

export type RequestContext = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;

/** One of the platform's interfaces: which credential signs it and where it lives. */
export interface ApiDefinition {
	credentialType: string;
	/** Base address read from the credential, e.g. `{knowledge_url}`. */
	baseUrl(credentials: ICredentialDataDecryptedObject): string;
	/** For credentials whose token n8n fetches with preAuthentication: shared per process (see token.ts). */
	expirableToken?: ExpirableToken;
}

export interface RetryPolicy {
	/** How many times a 429 answer is waited out and retried. */
	maxRateLimitRetries: number;
	/** Longest Retry-After honoured; a longer one fails at once instead of stalling the workflow. */
	maxRetryWaitSeconds: number;
	/** Retries of idempotent calls (GET, PUT, DELETE) after a 5xx or a lost connection. */
	maxServerErrorRetries: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxRateLimitRetries: 3,
	maxRetryWaitSeconds: 60,
	maxServerErrorRetries: 2,
};

export interface WorkplaceRequest {
	method: IHttpRequestMethods;
	/** Path below the interface's base address, already URL-encoded. */
	path: string;
	qs?: IDataObject;
	/** A JSON body, or a factory for a multipart body (called again for each attempt, so a retried upload gets a fresh stream). */
	body?: IDataObject | IDataObject[] | (() => Promise<FormData>);
	headers?: IDataObject;
	/** Return the response body as a stream (downloads). */
	stream?: boolean;
	/**
	 * Sent as the `Idempotency-Key` header. The platform answers a repeat of the same key with
	 * the first result, so such a POST is retried after a 5xx or a lost connection like a GET.
	 */
	idempotencyKey?: string;
}

export interface WorkplaceResponse<T = unknown> {
	statusCode: number;
	headers: IDataObject;
	body: T;
}

const IDEMPOTENT_METHODS = new Set<string>(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const ERROR_BODY_LIMIT = 64 * 1024;

function isExecuteContext(ctx: RequestContext): ctx is IExecuteFunctions {
	return typeof (ctx as IExecuteFunctions).getInputData === 'function';
}

/** Reads the node's "Request Options" for this item; load-options calls use the defaults. */
export function getRetryPolicy(ctx: RequestContext, itemIndex: number): RetryPolicy {
	if (!isExecuteContext(ctx)) return DEFAULT_RETRY_POLICY;
	const options = ctx.getNodeParameter('requestOptions', itemIndex, {}) as Partial<RetryPolicy>;
	return { ...DEFAULT_RETRY_POLICY, ...options };
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(parseFloat(text) * 1000);
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function headerValue(headers: IDataObject, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	if (Array.isArray(value)) return value.map(String).join(', ');
	return value === undefined || value === null ? undefined : String(value);
}

async function readErrorBody(body: unknown): Promise<unknown> {
	let text: string;
	if (body !== null && typeof body === 'object' && Symbol.asyncIterator in body) {
		const chunks: Buffer[] = [];
		let size = 0;
		for await (const chunk of body as AsyncIterable<Buffer | string>) {
			const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			chunks.push(buffer);
			size += buffer.length;
			if (size > ERROR_BODY_LIMIT) break;
		}
		(body as { destroy?: () => void }).destroy?.();
		text = Buffer.concat(chunks).toString('utf8');
	} else if (Buffer.isBuffer(body)) {
		text = body.toString('utf8');
	} else if (typeof body === 'string') {
		text = body;
	} else {
		return body;
	}
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

function networkErrorCode(error: unknown): string | undefined {
	const candidates = [
		(error as { cause?: { code?: unknown } }).cause?.code,
		(error as { code?: unknown }).code,
		(error as { context?: { code?: unknown } }).context?.code,
	];
	return candidates.find((c): c is string => typeof c === 'string' && /^E[A-Z_]+$/.test(c));
}

function isCancellation(ctx: RequestContext, error: unknown): boolean {
	const name = (error as { name?: string }).name ?? '';
	if (name.includes('Cancel') || name === 'AbortError') return true;
	return isExecuteContext(ctx) && ctx.getExecutionCancelSignal?.()?.aborted === true;
}

function backoffMs(attempt: number): number {
	return Math.min(500 * 2 ** attempt, 8000);
}

type Send = (ignoreHttpStatusErrors: boolean) => Promise<WorkplaceResponse<unknown>>;

/** What a request's answer was: an HTTP response, no answer at all, or no token to send it with. */
type Outcome = { response: WorkplaceResponse<unknown> } | { networkError: unknown } | { tokenError: unknown };

async function attempt(
	send: Send,
	ignoreHttpStatusErrors: boolean,
): Promise<{ response: WorkplaceResponse<unknown> } | { networkError: unknown }> {
	try {
		return { response: await send(ignoreHttpStatusErrors) };
	} catch (error) {
		// With status errors enabled, n8n throws NodeApiError around the HTTP client's error.
		const response = (error as { cause?: { response?: { status?: number; headers?: IDataObject; data?: unknown } } })
			.cause?.response;
		if (response?.status !== undefined) {
			return { response: { statusCode: response.status, headers: response.headers ?? {}, body: response.data } };
		}
		return { networkError: error };
	}
}

interface TokenFailure {
	message: string;
	httpCode?: string;
	/** A throttled, failing or unreachable token endpoint may answer the next time. */
	transient: boolean;
	retryAfterMs?: number;
}

/** A failed token request: n8n's error (its message) and what the credential noted (token.ts). */
function tokenFailure(error: unknown, noted: TokenRequestFailure | undefined): TokenFailure {
	const status = noted?.status;
	return {
		message: String((error as { message?: unknown })?.message ?? 'unknown error'),
		httpCode: status === undefined ? undefined : String(status),
		transient: status === undefined || status === 429 || status >= 500,
		retryAfterMs: parseRetryAfter(noted?.retryAfter),
	};
}

function tokenError(node: INode, failure: TokenFailure, itemIndex: number): NodeApiError {
	return new NodeApiError(node, { message: failure.message, httpCode: failure.httpCode ?? null } as JsonObject, {
		message: failure.message,
		httpCode: failure.httpCode,
		itemIndex,
	});
}

/** A call sent (or not) with the process-wide token. */
interface Sent {
	outcome: Outcome;
	/** The token the call carried. */
	token?: string;
	/** Whether this call fetched the token (n8n ran preAuthentication before sending it). */
	primed?: boolean;
	/** How the token request failed, as the credential noted it. */
	tokenNote?: TokenRequestFailure;
}

async function sendWithSharedToken(
	sharedToken: ReturnType<typeof sharedTokenFor>,
	spec: ExpirableToken,
	credentials: ICredentialDataDecryptedObject,
	send: (tokenData: ICredentialDataDecryptedObject) => Send,
): Promise<Sent> {
	const acquired = await sharedToken.acquire();
	if ('failed' in acquired) {
		// The call that fetched the token for this process could not get one: this one is not sent.
		return { outcome: { tokenError: acquired.failed.error }, tokenNote: acquired.failed.note };
	}
	const tokenData = { ...credentials, [spec.property]: acquired.token };
	const outcome = await attempt(send(tokenData), true);
	// n8n writes a token it fetched (preAuthentication) into the data it was given.
	const token = String(tokenData[spec.property] ?? '');
	if (!acquired.primer) return { outcome, token };
	if (token !== '') {
		acquired.primer({ token });
		return { outcome, token, primed: true };
	}
	const tokenNote = takeTokenRequestFailure(credentials, spec.identityFields);
	const error = 'networkError' in outcome ? outcome.networkError : new Error('The platform gave no access token');
	acquired.primer({ error, note: tokenNote });
	return { outcome: { tokenError: error }, primed: true, tokenNote };
}

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
 * the call), bounded by the policy. A 5xx or a lost connection is retried only for
 * idempotent calls (GET, PUT, DELETE, or a POST with an Idempotency-Key): a POST that
 * may have reached the platform is never sent twice.
 * A 401 on a credential with a process-wide token (token.ts) renews the token and sends the
 * call again; a token request that fails sends nothing, so it is retried like a lost connection.
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
	const idempotent = IDEMPOTENT_METHODS.has(request.method) || Boolean(request.idempotencyKey);
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

	let rateLimitRetries = 0;
	let serverErrorRetries = 0;
	let tokenRenewals = 0;
	for (;;) {
		const sent: Sent = sharedToken && tokenSpec
			? await sendWithSharedToken(sharedToken, tokenSpec, credentials, (tokenData) => send(request, tokenData))
			: { outcome: await attempt(send(request), true) };
		const { outcome } = sent;

		if ('tokenError' in outcome) {
			// The token request failed before the call was sent, so any call may be sent again.
			const failure = tokenFailure(outcome.tokenError, sent.tokenNote);
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
		throw platformApiError(node, platformError, itemIndex);
	}
}

export interface ListEnvelope<T> {
	data?: T[];
	total?: number;
	pagination?: IDataObject;
}

/**
 * Walks `page`/`pageSize` pages until `total` records were read, a page comes back
 * short or empty, or `limit` is reached.
 */
export async function requestAllPages<T = IDataObject>(
	ctx: RequestContext,
	api: ApiDefinition,
	request: WorkplaceRequest,
	itemIndex: number,
	{ pageSize, limit }: { pageSize: number; limit?: number },
): Promise<T[]> {
	// The page size stays the same on every page, or page numbers would point at other offsets.
	const size = Math.max(1, limit === undefined ? pageSize : Math.min(pageSize, limit));
	const records: T[] = [];
	for (let page = 1; ; page++) {
		const { body } = await workplaceRequest<ListEnvelope<T>>(
			ctx,
			api,
			{ ...request, qs: { ...(request.qs ?? {}), page, pageSize: size } },
			itemIndex,
		);
		const data = Array.isArray(body?.data) ? body.data : [];
		records.push(...data);
		if (limit !== undefined && records.length >= limit) return records.slice(0, limit);
		if (data.length === 0) return records;
		// `total` decides when it is given: the platform may cap a page below the size asked for.
		if (typeof body?.total === 'number') {
			if (records.length >= body.total) return records;
		} else if (data.length < size) {
			return records;
		}
	}
}
