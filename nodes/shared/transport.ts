import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { connectionError, parsePlatformError, platformApiError } from './errors';

export type RequestContext = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;

/** One of the platform's interfaces: which credential signs it and where it lives. */
export interface ApiDefinition {
	credentialType: string;
	/** Base address read from the credential, e.g. `{knowledge_url}`. */
	baseUrl(credentials: ICredentialDataDecryptedObject): string;
	/**
	 * For credentials with an expirable token (preAuthentication): a harmless GET that n8n
	 * sends to renew the token after a 401, once for all concurrent calls (see TokenGate).
	 */
	tokenRefreshProbe?: { path: string; qs?: IDataObject };
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

/** What a request's answer was: an HTTP response, or no answer at all. */
type Outcome = { response: WorkplaceResponse<unknown> } | { networkError: unknown };

async function attempt(send: Send, ignoreHttpStatusErrors: boolean): Promise<Outcome> {
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

/**
 * Coordinates an expirable token (preAuthentication credentials) between the concurrent calls
 * of one node run: the first call goes alone, so an empty token is fetched once; after a 401,
 * one call renews the token and the others wait for it, then all retry once.
 */
class TokenGate {
	generation = 0;

	private primed = false;

	private priming?: Promise<void>;

	private renewing?: Promise<void>;

	/** Waits until the first call has been answered; returns a release for the first call. */
	async enter(): Promise<() => void> {
		if (this.primed) return () => {};
		if (this.priming) {
			await this.priming;
			return () => {};
		}
		let release: () => void = () => {};
		this.priming = new Promise<void>((resolve) => {
			release = () => {
				this.primed = true;
				resolve();
			};
		});
		return release;
	}

	/** Renews the token unless a renewal finished since `seenGeneration`. */
	async renew(seenGeneration: number, renewal: () => Promise<void>): Promise<void> {
		if (this.renewing) {
			await this.renewing;
			return;
		}
		if (this.generation !== seenGeneration) return;
		this.renewing = renewal().finally(() => {
			this.generation++;
			this.renewing = undefined;
		});
		await this.renewing;
	}
}

const tokenGates = new WeakMap<object, TokenGate>();

function tokenGateFor(ctx: RequestContext): TokenGate {
	let gate = tokenGates.get(ctx);
	if (!gate) {
		gate = new TokenGate();
		tokenGates.set(ctx, gate);
	}
	return gate;
}

const baseUrls = new WeakMap<object, Map<string, Promise<string>>>();

/**
 * The interface's base address, read from the credential once per node run: n8n decrypts a
 * credential on every getCredentials call, and the request helper reads it again for the auth.
 */
async function baseUrlFor(ctx: RequestContext, api: ApiDefinition, itemIndex: number): Promise<string> {
	let perRun = baseUrls.get(ctx);
	if (!perRun) {
		perRun = new Map();
		baseUrls.set(ctx, perRun);
	}
	let baseUrl = perRun.get(api.credentialType);
	if (!baseUrl) {
		baseUrl = ctx
			.getCredentials(api.credentialType, itemIndex)
			.then((credentials) => api.baseUrl(credentials).replace(/\/+$/, ''));
		// A failed read is not kept, so the next item reports its own error.
		baseUrl.catch(() => perRun?.delete(api.credentialType));
		perRun.set(api.credentialType, baseUrl);
	}
	return await baseUrl;
}

/**
 * The one request function of every Workplace node: credential from n8n's request
 * helper, base address, retries and the platform's error mapping.
 *
 * Retries: a 429 is always retried after Retry-After (the platform did not process
 * the call), bounded by the policy. A 5xx or a lost connection is retried only for
 * idempotent calls (GET, PUT, DELETE, or a POST with an Idempotency-Key): a POST that
 * may have reached the platform is never sent twice.
 * A 401 on an expirable-token credential renews the token once and retries once.
 */
export async function workplaceRequest<T = unknown>(
	ctx: RequestContext,
	api: ApiDefinition,
	request: WorkplaceRequest,
	itemIndex = 0,
): Promise<WorkplaceResponse<T>> {
	const node: INode = ctx.getNode();
	const baseUrl = await baseUrlFor(ctx, api, itemIndex);
	const policy = getRetryPolicy(ctx, itemIndex);
	const idempotent = IDEMPOTENT_METHODS.has(request.method) || Boolean(request.idempotencyKey);
	const gate = api.tokenRefreshProbe ? tokenGateFor(ctx) : undefined;

	const send = (target: WorkplaceRequest): Send => async (ignoreHttpStatusErrors) => {
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
		if (target.stream) {
			options.encoding = 'stream';
		} else {
			options.json = true;
		}
		return (await ctx.helpers.httpRequestWithAuthentication.call(
			ctx,
			api.credentialType,
			options,
		)) as WorkplaceResponse<unknown>;
	};

	let rateLimitRetries = 0;
	let serverErrorRetries = 0;
	let tokenRenewed = false;
	for (;;) {
		const seenGeneration = gate?.generation ?? 0;
		const release = gate ? await gate.enter() : undefined;
		let outcome: Outcome;
		try {
			outcome = await attempt(send(request), true);
		} finally {
			release?.();
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
		if (status < 400) return response as WorkplaceResponse<T>;

		const errorBody = await readErrorBody(response.body);

		if (status === 401 && gate && api.tokenRefreshProbe && !tokenRenewed) {
			// The platform rejected the call before doing anything: renew the token and send it again.
			tokenRenewed = true;
			const probe = api.tokenRefreshProbe;
			await gate.renew(seenGeneration, async () => {
				// Without ignoreHttpStatusErrors, n8n answers the probe's 401 by running the
				// credential's preAuthentication and saving the new token.
				await attempt(send({ method: 'GET', path: probe.path, qs: probe.qs }), false);
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
