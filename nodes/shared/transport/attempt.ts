import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { RequestContext, WorkplaceResponse } from './types';

/** One attempt at a call and how to read what came back: an answer, or no answer at all. */

const ERROR_BODY_LIMIT = 64 * 1024;

export type Send = (ignoreHttpStatusErrors: boolean) => Promise<WorkplaceResponse<unknown>>;

/** What a request's answer was: an HTTP response, no answer at all, or no token to send it with. */
export type Outcome = { response: WorkplaceResponse<unknown> } | { networkError: unknown } | { tokenError: unknown };

export async function attempt(
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

export function headerValue(headers: IDataObject, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	if (Array.isArray(value)) return value.map(String).join(', ');
	return value === undefined || value === null ? undefined : String(value);
}

export async function readErrorBody(body: unknown): Promise<unknown> {
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

export function networkErrorCode(error: unknown): string | undefined {
	const candidates = [
		(error as { cause?: { code?: unknown } }).cause?.code,
		(error as { code?: unknown }).code,
		(error as { context?: { code?: unknown } }).context?.code,
	];
	return candidates.find((c): c is string => typeof c === 'string' && /^E[A-Z_]+$/.test(c));
}

function isExecuteContext(ctx: RequestContext): ctx is IExecuteFunctions {
	return typeof (ctx as IExecuteFunctions).getInputData === 'function';
}

export function isCancellation(ctx: RequestContext, error: unknown): boolean {
	const name = (error as { name?: string }).name ?? '';
	if (name.includes('Cancel') || name === 'AbortError') return true;
	return isExecuteContext(ctx) && ctx.getExecutionCancelSignal?.()?.aborted === true;
}
