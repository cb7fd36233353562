/** Error bodies per interface. */
import { InterfaceName } from './types';

export interface FieldError {
	field: string;
	message: string;
}

export interface KnowledgeValidationItem {
	type: string;
	field: string;
	value?: unknown;
	message: string;
}

const STATUS_TEXT: Record<number, string> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	405: 'Method Not Allowed',
	406: 'Not Acceptable',
	408: 'Request Timeout',
	409: 'Conflict',
	413: 'Payload Too Large',
	415: 'Unsupported Media Type',
	422: 'Unprocessable Entity',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
	502: 'Bad Gateway',
	503: 'Service Unavailable',
	504: 'Gateway Timeout',
};

export function statusText(status: number): string {
	return STATUS_TEXT[status] ?? 'Error';
}

// ---------------------------------------------------------------- knowledge

const KNOWLEDGE_NAMES: Record<number, string> = {
	400: 'BadRequestException',
	401: 'UnauthorizedException',
	403: 'ForbiddenException',
	404: 'NotFoundException',
	405: 'MethodNotAllowedException',
	406: 'NotAcceptableException',
	408: 'RequestTimeoutException',
	409: 'ConflictException',
	413: 'PayloadTooLargeError',
	415: 'UnsupportedMediaTypeException',
	422: 'UnprocessableEntityException',
	429: 'RateLimitExceededException',
	500: 'InternalServerErrorException',
	502: 'BadGatewayException',
	503: 'ServiceUnavailableException',
	504: 'GatewayTimeoutException',
};

/** code = status * 1000 + 1 for the named errors, +0 for generic ones (see README). */
const KNOWLEDGE_CODES: Record<number, number> = {
	400: 400000,
	401: 401001,
	403: 403001,
	404: 404000,
	405: 405001,
	409: 409001,
	413: 413001,
	415: 415001,
	422: 422001,
	429: 429001,
	500: 500001,
	502: 502001,
	503: 503001,
	504: 504001,
};

export interface KnowledgeErrorBody {
	name: string;
	code: number;
	status: number;
	message: string;
	errors: KnowledgeValidationItem[];
}

export function knowledgeError(status: number, message?: string, opts?: { name?: string; code?: number; errors?: KnowledgeValidationItem[] }): KnowledgeErrorBody {
	return {
		name: opts?.name ?? KNOWLEDGE_NAMES[status] ?? 'HttpException',
		code: opts?.code ?? KNOWLEDGE_CODES[status] ?? status * 1000,
		status,
		message: message ?? statusText(status),
		errors: opts?.errors ?? [],
	};
}

export const KNOWLEDGE_ERRORS = {
	knowledgeNotFound: (id: string) => knowledgeError(404, `Knowledge base ${id} not found`, { name: 'KnowledgeNotFoundError', code: 404001 }),
	fileNotFound: (id: string) => knowledgeError(404, `Knowledge file ${id} not found`, { name: 'KnowledgeFileNotFoundError', code: 404002 }),
	unsupportedType: (msg: string) => knowledgeError(400, msg, { name: 'UnsupportedKnowledgeFileTypeError', code: 400001 }),
	unsupportedCsv: (msg: string) => knowledgeError(400, msg, { name: 'UnsupportCsvKnowledgeFileFormatError', code: 400002 }),
	validation: (errors: KnowledgeValidationItem[]) =>
		knowledgeError(422, errors.length ? errors.map((e) => e.message).join('; ') : 'Validation failed', { errors }),
};

// ---------------------------------------------------------------- bot, image and form

const BOT_CODES: Record<number, string> = {
	400: 'invalid_request',
	401: 'unauthorized',
	403: 'forbidden',
	404: 'not_found',
	405: 'method_not_allowed',
	406: 'not_acceptable',
	409: 'conflict',
	413: 'payload_too_large',
	415: 'unsupported_media_type',
	422: 'unprocessable_entity',
	429: 'rate_limited',
	500: 'internal_error',
	502: 'bad_gateway',
	503: 'service_unavailable',
	504: 'gateway_timeout',
};

export interface BotErrorBody {
	status: 'error';
	code: string;
	message: string;
	errors: FieldError[];
}

export function botError(status: number, message?: string, code?: string, errors?: FieldError[]): BotErrorBody {
	return { status: 'error', code: code ?? BOT_CODES[status] ?? 'error', message: message ?? statusText(status), errors: errors ?? [] };
}

export function validationBotError(errors: FieldError[]): BotErrorBody {
	const first = errors[0];
	const message = first ? `${first.field}: ${first.message}` + (errors.length > 1 ? ` (and ${errors.length - 1} more)` : '') : 'Invalid request';
	return botError(400, message, 'invalid_request', errors);
}

// ---------------------------------------------------------------- oauth

const OAUTH_ERRORS: Record<number, string> = {
	400: 'invalid_request',
	401: 'invalid_client',
	403: 'unauthorized_client',
	429: 'temporarily_unavailable',
	500: 'server_error',
	502: 'server_error',
	503: 'temporarily_unavailable',
	504: 'temporarily_unavailable',
};

export function oauthError(status: number, error?: string, description?: string): { error: string; error_description: string } {
	return { error: error ?? OAUTH_ERRORS[status] ?? (status >= 500 ? 'server_error' : 'invalid_request'), error_description: description ?? statusText(status) };
}

// ---------------------------------------------------------------- task

const TASK_ERRORS: Record<number, string> = {
	400: 'BadRequest',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'NotFound',
	405: 'MethodNotAllowed',
	409: 'Conflict',
	413: 'PayloadTooLarge',
	415: 'UnsupportedMediaType',
	422: 'ValidationError',
	429: 'TooManyRequests',
	500: 'InternalServerError',
	502: 'BadGateway',
	503: 'ServiceUnavailable',
	504: 'GatewayTimeout',
};

export interface TaskErrorBody {
	error: string;
	message: string;
	details: Array<{ path: string; message: string }>;
}

export function taskError(status: number, message?: string, details?: Array<{ path: string; message: string }>, error?: string): TaskErrorBody {
	return { error: error ?? TASK_ERRORS[status] ?? 'Error', message: message ?? statusText(status), details: details ?? [] };
}

// ---------------------------------------------------------------- 401 body shape (switch)

/**
 * How every 401 answer's body is spelled (option `unauthorizedBody`). The spec promises the
 * status (401 for a missing or invalid key or token) but shows a 401 body only for the
 * knowledge API, so clients must not depend on it:
 * - `interface` (default): each interface's own error body, as everywhere else in the simulator;
 * - `plain`: `{"error":"unauthorized","message":...}`;
 * - `framework`: `{"statusCode":401,"error":"Unauthorized","message":...}` (a web framework's default);
 * - `empty`: no body at all.
 */
export const UNAUTHORIZED_BODY_SHAPES = ['interface', 'plain', 'framework', 'empty'] as const;
export type UnauthorizedBodyShape = (typeof UNAUTHORIZED_BODY_SHAPES)[number];

export function isUnauthorizedBodyShape(value: unknown): value is UnauthorizedBodyShape {
	return typeof value === 'string' && (UNAUTHORIZED_BODY_SHAPES as readonly string[]).includes(value);
}

/** The 401 body in the chosen shape (`undefined`: send no body); keeps the original's message. */
export function shapeUnauthorizedBody(shape: UnauthorizedBodyShape, body: unknown): unknown {
	if (shape === 'interface') return body;
	if (shape === 'empty') return undefined;
	const original = isRecord(body) ? body : {};
	const text = [original.message, original.error_description].find((v): v is string => typeof v === 'string' && v !== '');
	const message = text ?? statusText(401);
	return shape === 'plain' ? { error: 'unauthorized', message } : { statusCode: 401, error: 'Unauthorized', message };
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// ---------------------------------------------------------------- generic

/** Default error body of an interface for a status (used by faults and generic errors). */
export function interfaceError(iface: InterfaceName, status: number, message?: string): unknown {
	switch (iface) {
		case 'knowledge':
			return knowledgeError(status, status === 429 && !message ? 'Rate limit exceeded' : message);
		case 'bot':
		case 'image':
		case 'form':
			return botError(status, status === 429 && !message ? 'Rate limit exceeded' : message);
		case 'oauth':
			return oauthError(status, undefined, message);
		case 'task':
			return taskError(status, status === 429 && !message ? 'Rate limit exceeded' : message);
		default:
			return { error: statusText(status), message: message ?? statusText(status) };
	}
}
