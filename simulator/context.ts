/** Per-request context, response helpers and route definitions shared by the handlers. */
import { IncomingMessage, ServerResponse } from 'http';
import { Readable, pipeline } from 'stream';
import { StoredBlob } from './blob';
import { emptyBody, ParsedBody } from './body';
import { interfaceError, shapeUnauthorizedBody, UnauthorizedBodyShape } from './errors';
import { ActiveFault } from './faults';
import { IssuedToken, SimulatorState } from './state';
import { untilClientGone, writePaced } from './pace';
import { BodyPace, InterfaceName, LoggedRequest, SimulatorCredentials } from './types';
import { delay, isPlainObject } from './util';

export interface SimConfig {
	credentials: SimulatorCredentials;
	tokenTtlSeconds: number;
	maxUploadBytes: number;
	uploadFieldName: string;
	allowedClientAddresses?: string[];
	/** How 401 bodies are spelled (see errors.ts UNAUTHORIZED_BODY_SHAPES). */
	unauthorizedBody: UnauthorizedBodyShape;
	/** Where `tap` sends postback events (the bot's webhook URL on the platform). */
	botWebhookUrl?: string;
	/** The bot webhook's HMAC secret (never shown by publicConfig). */
	botWebhookSecret?: string;
}

export interface SimCore {
	readonly state: SimulatorState;
	readonly config: SimConfig;
	readonly latencyMs: number;
}

export interface AuthFailure {
	status: number;
	body: unknown;
	headers?: Record<string, string>;
}

export interface RouteDef {
	method: string;
	/** path pattern, `:name` segments are parameters */
	path: string;
	iface: InterfaceName;
	/** checked before the body is read */
	auth?: (ctx: Ctx) => AuthFailure | undefined;
	/** store multipart file contents (otherwise they are only hashed) */
	files?: boolean;
	handler: (ctx: Ctx) => Promise<void>;
}

export class Ctx {
	body: ParsedBody = emptyBody();
	params: Record<string, string> = {};
	token?: IssuedToken;
	answered = false;
	/** afterHandler fault: replaces the handler's answer */
	pendingFault?: ActiveFault;
	/** fault rule `responseBody`: how the answer's body is sent */
	responsePace?: BodyPace;
	/** blobs taken over by the state (not disposed after the request) */
	readonly claimed = new Set<StoredBlob>();

	constructor(
		readonly req: IncomingMessage,
		readonly res: ServerResponse,
		readonly url: URL,
		readonly entry: LoggedRequest,
		readonly iface: InterfaceName,
		readonly core: SimCore,
	) {}

	get state(): SimulatorState {
		return this.core.state;
	}
	get config(): SimConfig {
		return this.core.config;
	}

	/** First value of a query parameter. */
	q(name: string): string | undefined {
		const v = this.entry.query[name];
		return Array.isArray(v) ? v[0] : v;
	}

	header(name: string): string | undefined {
		const v = this.req.headers[name.toLowerCase()];
		return Array.isArray(v) ? v.join(', ') : v;
	}

	/** The body as an object: JSON object, urlencoded fields or multipart text fields. */
	bodyObject(): Record<string, unknown> | undefined {
		const b = this.body;
		if (b.kind === 'json') return isPlainObject(b.json) ? b.json : undefined;
		if (b.kind === 'urlencoded') return b.form;
		if (b.kind === 'multipart') return b.fields;
		if (b.kind === 'none') return {};
		return undefined;
	}

	claim(blob: StoredBlob): void {
		this.claimed.add(blob);
	}

	/** A JSON answer; a 401 body is reshaped per `unauthorizedBody` unless `asIs` (a fault's own body). */
	async json(status: number, body: unknown, headers: Record<string, string> = {}, asIs = false): Promise<void> {
		if (status === 401 && !asIs && this.config.unauthorizedBody !== 'interface') {
			const shaped = shapeUnauthorizedBody(this.config.unauthorizedBody, body);
			if (shaped === undefined) {
				const { 'content-type': _type, ...rest } = headers;
				await this.write(status, rest, Buffer.alloc(0));
				return;
			}
			body = shaped;
		}
		const buf = Buffer.from(JSON.stringify(body));
		await this.write(status, { 'content-type': 'application/json; charset=utf-8', ...headers }, buf);
	}

	async raw(status: number, headers: Record<string, string>, body: Buffer): Promise<void> {
		await this.write(status, headers, body);
	}

	async empty(status: number, headers: Record<string, string> = {}): Promise<void> {
		await this.write(status, headers, undefined);
	}

	async stream(status: number, headers: Record<string, string>, body: Readable): Promise<void> {
		await this.write(status, headers, body);
	}

	async error(status: number, message?: string, headers?: Record<string, string>): Promise<void> {
		await this.json(status, interfaceError(this.iface, status, message), headers);
	}

	private async write(status: number, headers: Record<string, string>, body: Buffer | Readable | undefined): Promise<void> {
		if (this.answered) {
			if (body instanceof Readable) body.destroy();
			return;
		}
		if (this.pendingFault) {
			const f = this.pendingFault;
			this.pendingFault = undefined;
			if (body instanceof Readable) body.destroy();
			await this.applyFault(f);
			return;
		}
		this.answered = true;
		await delay(this.core.latencyMs);
		this.entry.status = status;
		if (this.res.destroyed || this.res.writableEnded) {
			if (body instanceof Readable) body.destroy();
			return;
		}
		const h: Record<string, string> = { ...headers };
		if (Buffer.isBuffer(body) && status !== 204 && status !== 304) h['content-length'] = String(body.length);
		this.res.writeHead(status, h);
		if (body === undefined || status === 204 || status === 304) {
			if (body instanceof Readable) body.destroy();
			this.res.end();
			return;
		}
		if (this.responsePace) {
			await writePaced(this.res, body, this.responsePace);
			return;
		}
		if (Buffer.isBuffer(body)) {
			this.res.end(body);
			return;
		}
		await new Promise<void>((resolve) => pipeline(body, this.res, () => resolve()));
	}

	/** Answers with a fault rule (status/body, or connection reset). */
	async applyFault(rule: ActiveFault): Promise<void> {
		this.entry.fault = rule.id;
		if (rule.stall) {
			this.answered = true;
			this.entry.status = 0;
			await untilClientGone(this.res);
			return;
		}
		if (rule.reset) {
			this.answered = true;
			this.entry.status = 0;
			const s = this.req.socket;
			if (typeof s.resetAndDestroy === 'function') s.resetAndDestroy();
			else s.destroy();
			return;
		}
		const status = rule.status ?? 200;
		const headers: Record<string, string> = {};
		if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
		else if (status === 429) headers['retry-after'] = '1';
		if (rule.headers) for (const [k, v] of Object.entries(rule.headers)) headers[k.toLowerCase()] = String(v);
		if (status === 204 || status === 304) {
			await this.write(status, headers, undefined);
			return;
		}
		if (typeof rule.body === 'string') {
			await this.write(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }, Buffer.from(rule.body));
			return;
		}
		const body = rule.body !== undefined ? rule.body : interfaceError(this.iface, status);
		await this.json(status, body, headers, rule.body !== undefined);
	}
}
