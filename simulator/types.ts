/**
 * Public types of the Workplace platform simulator.
 * See simulator/README.md for the behaviour behind every field.
 */

export interface SimulatorCredentials {
	knowledgeApiKey: string;
	botClientId: string;
	botClientSecret: string;
	formApiKey: string;
	formApiToken: string;
	taskJwt: string;
	webhookSecret: string;
}

export interface SimulatorOptions {
	/** TCP port; 0 = random free port. Default 3900. */
	port?: number;
	/** Listen address. Default 127.0.0.1. */
	host?: string;
	/** Latency added to every non-control response. */
	latencyMs?: number;
	/** The platform's rate limit on every API interface (see rateLimit.ts); none by default. */
	rateLimit?: { rate: number; burst?: number };
	credentials?: Partial<SimulatorCredentials>;
	/** OAuth access token lifetime (expires_in, seconds). Default 3600. */
	tokenTtlSeconds?: number;
	/** Maximum size of one uploaded file part in bytes. Default 1 GiB. */
	maxUploadBytes?: number;
	/** Multipart field name of the knowledge file part. Default `file`. */
	uploadFieldName?: string;
	/** Extension: allowed client addresses of the knowledge API (undefined = all allowed). */
	allowedClientAddresses?: string[];
	/** Extension: directory for temporary file contents (default: a fresh dir under os.tmpdir()). */
	tempDir?: string;
	/** Extension: maximum number of entries kept in the request log (default 10000). */
	maxLogEntries?: number;
	/**
	 * Extension: how every 401 body is spelled: `interface` (default, each interface's own error
	 * body), `plain` `{error:'unauthorized', message}`, `framework` `{statusCode:401, error:'Unauthorized', message}`,
	 * or `empty` (no body).
	 */
	unauthorizedBody?: 'interface' | 'plain' | 'framework' | 'empty';
	/** Extension: the bot's webhook URL, where `tap` sends postback events (default: none). */
	botWebhookUrl?: string;
	/** Extension: the bot webhook's secret; `tap` signs with it (default: none, unsigned). */
	botWebhookSecret?: string;
}

/** `llm`: the scripted chat model (llm.ts), not a platform interface: never in the request log. */
export type InterfaceName = 'knowledge' | 'bot' | 'oauth' | 'image' | 'form' | 'task' | 'control' | 'llm' | 'unknown';

export interface LoggedFile {
	field: string;
	filename: string;
	contentType: string;
	size: number;
	sha256: string;
}

export interface LoggedRequest {
	seq: number;
	time: number;
	method: string;
	/** path without query string */
	path: string;
	query: Record<string, string | string[]>;
	/** names lower-cased, values as received (joined with ', ' if repeated) */
	headers: Record<string, string>;
	interface: InterfaceName;
	contentType?: string;
	bodySize: number;
	/** parsed JSON, or urlencoded object (arrays for repeated keys), or undefined */
	body?: unknown;
	multipart?: { fields: Record<string, string | string[]>; files: LoggedFile[] };
	/** status the simulator answered (0 = no answer: connection reset, or client went away) */
	status: number;
	/** id of the fault rule that answered instead of the normal handler */
	fault?: string;
	/** answered 429 by the platform's rate limit (rateLimit.ts), not processed */
	rateLimited?: boolean;
	/** requests to the same interface under way when this one arrived, itself included */
	inFlight?: number;
}

export interface FaultRule {
	method?: string;
	path?: string | RegExp;
	interface?: LoggedRequest['interface'];
	/** how many matching requests it hits (default 1); Infinity allowed */
	times?: number;
	/** answer with this status (and the interface's error body, or `body`) */
	status?: number;
	/** adds Retry-After header (429 faults get `1` when not given) */
	retryAfter?: number | string;
	body?: unknown;
	/** delay before answering (combined with normal handling if the rule does not answer) */
	latencyMs?: number;
	/** destroy the socket without answering (connection reset) */
	reset?: boolean;
	/**
	 * Apply after the request body was fully read (the request "reached" the server).
	 * Default: true for status/body faults, false for `reset` and latency-only faults.
	 */
	afterBody?: boolean;
	/**
	 * Extension: run the normal handler first (state changes happen), then replace its
	 * response by the fault (status/body or reset). Implies afterBody.
	 */
	afterHandler?: boolean;
	/** Extension: extra response headers of a status/body fault. */
	headers?: Record<string, string>;
	/**
	 * Extension: hold the request and never answer (a platform or proxy that accepted the
	 * connection and went silent). It ends when the client goes away; logged with status 0. Applied
	 * after the body was read unless `afterBody: false`; with `afterHandler` the handler runs first
	 * (the change happens, its answer never leaves).
	 */
	stall?: boolean;
	/**
	 * Extension: how the normal answer's body is sent: in pieces with pauses between them (a slow
	 * but flowing download), and/or headers and the first `stallAfterBytes` bytes, then nothing
	 * until the client goes away (a download that stalls).
	 */
	responseBody?: BodyPace;
	/**
	 * Extension: how the request body is read: in pieces with pauses between them (a slow but
	 * flowing upload), and/or nothing after the first `stallAfterBytes` bytes (an upload that
	 * stalls; the client's writes stop once the socket buffers are full).
	 */
	requestBody?: BodyPace;
}

/** The pace of a body (FaultRule.responseBody, requestBody). */
export interface BodyPace {
	/** Bytes per piece (default: as they come). */
	chunkBytes?: number;
	/** Pause after each piece, ms (default 0). */
	delayMs?: number;
	/** No byte after this many (the stream stalls until the client goes away). */
	stallAfterBytes?: number;
}

export interface LogFilter {
	method?: string;
	path?: string | RegExp;
	interface?: string;
}

export interface RequestLogApi {
	all(): LoggedRequest[];
	clear(): void;
	find(filter: LogFilter): LoggedRequest[];
	/** Extension: entries with seq > since. */
	since(seq: number): LoggedRequest[];
}

export interface FaultsApi {
	add(rule: FaultRule): string;
	clear(): void;
	/** Extension: remove one rule by id. */
	remove(id: string): boolean;
	/** Extension: active rules with their remaining counts. */
	list(): Array<FaultRule & { id: string; remaining: number }>;
}
