import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { secondsText } from './timeLimit';

/** One failing field as the platform reports it (knowledge `errors[]`, task `details[]`, bot `errors[]`). */
export interface PlatformFieldError {
	field: string;
	message: string;
	value?: unknown;
	type?: string;
}

/** The platform's error body, reduced to what every interface has in common. */
export interface PlatformError {
	status: number;
	name?: string;
	code?: string | number;
	message?: string;
	fields: PlatformFieldError[];
	/** The body as sent, when none of its keys could be read as a name, code or message. */
	body?: string;
}

const STATUS_TEXT: Record<number, string> = {
	400: 'Bad request',
	401: 'Unauthorized: check the credential',
	403: 'Forbidden',
	404: 'Not found',
	409: 'Conflict',
	413: 'Payload too large',
	415: 'Unsupported media type',
	422: 'Validation failed',
	429: 'Rate limit exceeded',
	500: 'Internal server error',
	502: 'Bad gateway',
	503: 'Service unavailable',
	504: 'Gateway timeout',
};

function asString(value: unknown): string | undefined {
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The first of `keys` that holds text. */
function firstText(data: IDataObject | undefined, keys: string[]): string | undefined {
	for (const key of keys) {
		const text = asString(data?.[key]);
		if (text !== undefined) return text;
	}
	return undefined;
}

const MESSAGE_KEYS = ['message', 'error_description', 'detail', 'errorMessage', 'error_message', 'msg', 'description', 'title', 'reason'];
const CODE_KEYS = ['code', 'errorCode', 'error_code'];

/**
 * Reads any of the platform's error shapes:
 * knowledge `{name, code, status, message, errors[{type, field, value, message}]}`,
 * task `{error, message, details[{path, message}]}`, OAuth `{error, error_description}`,
 * plain `{message}` or `{error: {code, message}}` bodies, and the usual spellings of other APIs
 * (`errorCode`, `detail`, `title`...). A body none of that fits is kept as it came (`body`).
 */
export function parsePlatformError(status: number, body: unknown): PlatformError {
	const result: PlatformError = { status, fields: [] };
	if (typeof body === 'string') {
		result.message = asString(body.trim().slice(0, 500));
		return result;
	}
	if (body === null || body === undefined) return result;
	if (typeof body !== 'object' || Array.isArray(body)) {
		result.body = reportedValueJson(body, 500);
		return result;
	}
	const data = body as IDataObject;
	const nested =
		data.error !== null && typeof data.error === 'object' && !Array.isArray(data.error)
			? (data.error as IDataObject)
			: undefined;

	result.name = asString(data.name) ?? asString(data.error) ?? asString(nested?.name);
	const code = [...CODE_KEYS.map((key) => data[key]), ...CODE_KEYS.map((key) => nested?.[key])].find(
		(value) => (typeof value === 'string' && value !== '') || typeof value === 'number',
	);
	if (typeof code === 'string' || typeof code === 'number') result.code = code;
	result.message = firstText(data, MESSAGE_KEYS) ?? firstText(nested, MESSAGE_KEYS);

	for (const list of [data.errors, data.details, nested?.errors, nested?.details]) {
		if (!Array.isArray(list)) continue;
		for (const entry of list) {
			if (entry === null || typeof entry !== 'object') continue;
			const detail = entry as IDataObject;
			const field = asString(detail.field) ?? asString(detail.path) ?? asString(detail.property);
			const message = asString(detail.message) ?? asString(detail.type) ?? 'is invalid';
			result.fields.push({
				field: field ?? '(body)',
				message,
				...(detail.value !== undefined ? { value: detail.value } : {}),
				...(asString(detail.type) ? { type: detail.type as string } : {}),
			});
		}
	}
	const understood = result.name ?? result.code ?? result.message ?? result.fields[0];
	if (understood === undefined && Object.keys(data).length > 0) result.body = reportedValueJson(data, 500);
	return result;
}

/**
 * A field's value as the platform reported it, in a line of the error description: its JSON cut
 * to 80 characters. Not validation's describeValue (the "got" of our own checks), which words
 * empty values and keeps a cut string's quote.
 */
function reportedValueJson(value: unknown, max = 80): string {
	const text = JSON.stringify(value);
	if (text === undefined) return String(value);
	return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/**
 * "UnprocessableEntityException: Validation failed [name: must not be empty; pageSize: must be at least 1]";
 * a body with a code and no name: "HTTP 403 bot_not_in_group: The bot is not a member of group ...".
 */
export function platformErrorMessage(error: PlatformError): string {
	const head = error.name ?? `HTTP ${error.status}${error.code !== undefined ? ` ${error.code}` : ''}`;
	const text = error.message ?? STATUS_TEXT[error.status] ?? 'Request failed';
	const fields = error.fields.map((f) => `${f.field}: ${f.message}`).join('; ');
	return `${head}: ${text}${fields ? ` [${fields}]` : ''}`;
}

function platformErrorDescription(error: PlatformError, forbiddenCauses: readonly string[] | undefined): string {
	const lines = [
		`HTTP status ${error.status}${STATUS_TEXT[error.status] ? ` (${STATUS_TEXT[error.status]})` : ''}`,
	];
	if (error.name !== undefined) lines.push(`Error: ${error.name}`);
	if (error.code !== undefined) lines.push(`Code: ${error.code}`);
	if (error.message !== undefined) lines.push(`Message: ${error.message}`);
	for (const f of error.fields) {
		lines.push(
			`Field "${f.field}": ${f.message}${f.value !== undefined ? ` (value: ${reportedValueJson(f.value)})` : ''}`,
		);
	}
	if (error.body !== undefined) lines.push(`Body: ${error.body}`);
	if (error.status === 403 && forbiddenCauses?.length) {
		// The platform does not say why it refused: every cause the interface knows, not a guess.
		lines.push('The platform refused the request. Possible causes:', ...forbiddenCauses.map((cause) => `- ${cause}`));
	}
	return lines.join('\n');
}

/**
 * The NodeApiError for a platform error. A 403 lists `forbiddenCauses`, the reasons the
 * interface may refuse a call (ApiDefinition). It is built from the parsed body only,
 * never from the HTTP client's error object, so request headers (credentials)
 * cannot leak into the error.
 */
export function platformApiError(
	node: INode,
	error: PlatformError,
	itemIndex?: number,
	hint?: string,
	forbiddenCauses?: readonly string[],
): NodeApiError {
	const apiError = new NodeApiError(node, { ...error } as unknown as JsonObject, {
		message: platformErrorMessage(error),
		description: platformErrorDescription(error, forbiddenCauses) + (hint ? `\n${hint}` : ''),
		httpCode: String(error.status),
		itemIndex,
	});
	// NodeApiError swaps a message that contains a network error code for its own text, and
	// "KnowledgeNotFoundError" contains ENOTFOUND: keep the platform's words.
	apiError.message = platformErrorMessage(error);
	apiError.context.platformError = { ...error };
	return apiError;
}

/** A request that got no HTTP answer (refused, reset, timed out). */
export function connectionError(
	node: INode,
	reason: string,
	code: string | undefined,
	itemIndex?: number,
): NodeApiError {
	const apiError = new NodeApiError(node, { message: reason, code: code ?? 'ECONNECTION' } as JsonObject, {
		message: `Could not reach the Workplace API: ${reason}`,
		description: code ? `Network error code: ${code}` : undefined,
		itemIndex,
	});
	return apiError;
}

/** A call that ran out of time (timeLimit.ts), as its error tells it. */
export interface TimedOutCall {
	method: string;
	/** Below the interface's base address, as sent (IDs encoded). */
	path: string;
	limitMs: number;
	/** An upload or download: limited by progress, not by total time. */
	transfer?: 'upload' | 'download';
	/** A read, replace or delete: tried again after a timeout (within Max Server Error Retries). */
	idempotent: boolean;
	/** How many attempts ran out of time. */
	attempts: number;
	/** A download cut off after its answer began: the bytes that came. */
	cutOffAfterBytes?: number;
	/** It never left: it waited for an access token another call was fetching. */
	notSent?: boolean;
}

/**
 * The NodeApiError of a call that ran out of time: method, path and limit in the message; a create
 * or send says it may have reached the platform (it is never sent twice).
 */
export function timeoutError(node: INode, call: TimedOutCall, itemIndex?: number): NodeApiError {
	const limit = secondsText(call.limitMs);
	const what = `${call.method} ${call.path}`;
	if (call.notSent) {
		const message = `${what} was not sent: no access token came within ${limit}`;
		const apiError = new NodeApiError(node, { message, code: 'ETIMEDOUT' } as JsonObject, {
			message,
			description: `Time limit: "Timeout" in the node's Request Options (${limit}). The call waited for the access token another call was fetching; nothing was sent.`,
			itemIndex,
		});
		apiError.message = message;
		return apiError;
	}
	let message =
		call.transfer === 'upload'
			? `${what}: the upload made no progress for ${limit}`
			: call.transfer === 'download'
				? `${what}: the download got no data for ${limit}`
				: `${what} timed out after ${limit} without an answer`;
	if (call.cutOffAfterBytes !== undefined) message += ` and was cut off after ${call.cutOffAfterBytes} bytes`;
	else if (!call.idempotent) message += '; it may have reached the platform, so it was not sent again';
	else if (call.attempts > 1) message += ` (${call.attempts} attempts)`;
	const lines = [
		call.transfer
			? `Time limit: "Timeout" in the node's Request Options (${limit}), for a file transfer the longest time without a byte moving.`
			: `Time limit: "Timeout" in the node's Request Options (${limit}).`,
	];
	if (call.cutOffAfterBytes !== undefined) lines.push('A download cut off after its answer began is not tried again.');
	else if (call.idempotent) lines.push('A read, replace or delete that runs out of time is tried again up to "Max Server Error Retries" times.');
	else lines.push('A create, upload or send that runs out of time is never sent a second time: check on the platform whether it arrived before running the item again.');
	// `code` is what NodeApiError would report as the HTTP code; its own text for ETIMEDOUT is replaced below.
	const apiError = new NodeApiError(node, { message, code: 'ETIMEDOUT' } as JsonObject, {
		message,
		description: lines.join('\n'),
		itemIndex,
	});
	apiError.message = message;
	return apiError;
}
