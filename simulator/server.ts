/** HTTP server, routing and the request pipeline (log, faults, auth, body, handler, latency). */
import * as fs from 'fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { BlobStore } from './blob';
import { readBody } from './body';
import { Ctx, RouteDef, SimConfig, SimCore } from './context';
import { ControlledSimulator, handleControl } from './control';
import { interfaceError, isUnauthorizedBodyShape, UNAUTHORIZED_BODY_SHAPES } from './errors';
import { ActiveFault, faultAfterBody, faultAnswers, FaultRegistry } from './faults';
import { handleLlm, isLlmPath, LlmSimulator } from './llm';
import { RateLimits } from './rateLimit';
import { botRoutes } from './handlers/bot';
import { formRoutes } from './handlers/form';
import { knowledgeRoutes } from './handlers/knowledge';
import { oauthRoutes } from './handlers/oauth';
import { taskRoutes } from './handlers/task';
import { RequestLog } from './log';
import { DEFAULT_CREDENTIALS } from './seed';
import { SimulatorState } from './state';
import { prepareTaps, TapError, TapRequest, TapResult, TapsDelivery, TapsResult } from './tap';
import { InterfaceName, SimulatorCredentials, SimulatorOptions } from './types';
import { delay, paramsToObject } from './util';
import { sendWebhook } from './webhook-sender';

export const DEFAULT_PORT = 3900;
export const DEFAULT_MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;

export interface Simulator {
	/** {base_url}, e.g. http://127.0.0.1:3900 */
	url: string;
	/** url + '/api/v1' */
	knowledgeUrl: string;
	/** url + '/__sim' */
	controlUrl: string;
	/** url + '/v1': the Base URL of an OpenAI credential for the scripted chat model (llm.ts). */
	llmUrl: string;
	credentials: SimulatorCredentials;
	log: RequestLog;
	faults: FaultRegistry;
	/** The platform's rate limit per interface (rateLimit.ts). */
	rateLimits: RateLimits;
	/** The scripted OpenAI-compatible chat model (llm.ts): scripts, requests received, API key. */
	llm: LlmSimulator;
	state: SimulatorState;
	setLatency(ms: number): void;
	/** every issued bot access token becomes invalid (401 on next use) */
	expireTokens(): void;
	/** Changes the run-time config (as `POST /__sim/config`), e.g. `{botWebhookUrl, botWebhookSecret}`; null clears those two. */
	configure(j: Record<string, unknown>): void;
	/** The config as `GET /__sim/state` shows it (`botWebhookSecretSet`, never the secret). */
	publicConfig(): Record<string, unknown>;
	/**
	 * A user taps a postback button of a pushed bot message: one signed postback event goes to the
	 * bot's webhook (tap.ts). Throws a TapError (`status` 404, 400 or 502) when that cannot happen.
	 */
	tap(req: TapRequest): Promise<TapResult>;
	/**
	 * Several users tap postback buttons, and the platform sends their events in ONE signed
	 * delivery `{events: [...]}`, in the order given (tap.ts, `prepareTaps` for their times).
	 * Throws a TapError like `tap`.
	 */
	tapTogether(taps: TapRequest[], delivery?: TapsDelivery): Promise<TapsResult>;
	close(): Promise<void>;
}

/** An absolute http(s) URL, or a thrown Error naming the setting. */
function checkWebhookUrl(name: string, v: string): string {
	let u: URL;
	try {
		u = new URL(v);
	} catch {
		throw new Error(`${name} must be an absolute http(s) URL`);
	}
	if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`${name} must be an absolute http(s) URL`);
	return v;
}

interface CompiledRoute extends RouteDef {
	re: RegExp;
	keys: string[];
}

function compile(r: RouteDef): CompiledRoute {
	const keys: string[] = [];
	const src = r.path
		.split('/')
		.map((seg) => {
			if (seg.startsWith(':')) {
				keys.push(seg.slice(1));
				return '([^/]+)';
			}
			return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		})
		.join('/');
	return { ...r, re: new RegExp(`^${src}$`), keys };
}

export function classify(p: string): InterfaceName {
	if (p === '/__sim' || p.startsWith('/__sim/')) return 'control';
	if (isLlmPath(p)) return 'llm';
	if (p === '/api/v1/task-projects' || p.startsWith('/api/v1/task-projects/')) return 'task';
	if (p === '/api/v1' || p.startsWith('/api/v1/')) return 'knowledge';
	if (p.startsWith('/oauth/')) return 'oauth';
	if (p.startsWith('/bot/')) return 'bot';
	if (p.startsWith('/file/image')) return 'image';
	if (p.startsWith('/v1/')) return 'form';
	return 'unknown';
}

function headerRecord(req: IncomingMessage): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(req.headersDistinct)) if (v) out[k] = v.join(', ');
	return out;
}

export class SimulatorServer implements Simulator, SimCore, ControlledSimulator {
	url = '';
	knowledgeUrl = '';
	controlUrl = '';
	llmUrl = '';
	readonly credentials: SimulatorCredentials;
	readonly config: SimConfig;
	readonly log: RequestLog;
	readonly faults = new FaultRegistry();
	readonly rateLimits = new RateLimits();
	readonly llm = new LlmSimulator();
	readonly state: SimulatorState;
	readonly store: BlobStore;
	latencyMs: number;
	private readonly initialLatency: number;
	private readonly routes: CompiledRoute[];
	private readonly server: Server;
	private closed = false;
	/** Requests under way per interface (LoggedRequest.inFlight). */
	private readonly underWay = new Map<string, number>();

	constructor(private readonly options: SimulatorOptions = {}) {
		this.credentials = { ...DEFAULT_CREDENTIALS, ...options.credentials };
		this.config = {
			credentials: this.credentials,
			tokenTtlSeconds: options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS,
			maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
			uploadFieldName: options.uploadFieldName ?? 'file',
			allowedClientAddresses: options.allowedClientAddresses,
			unauthorizedBody: options.unauthorizedBody ?? 'interface',
		};
		if (!isUnauthorizedBodyShape(this.config.unauthorizedBody)) {
			throw new Error(`unauthorizedBody must be one of ${UNAUTHORIZED_BODY_SHAPES.join(', ')}`);
		}
		this.resetBotWebhook();
		this.latencyMs = this.initialLatency = options.latencyMs ?? 0;
		if (options.rateLimit) this.rateLimits.set(options.rateLimit);
		this.log = new RequestLog(options.maxLogEntries ?? 10000);
		const base = options.tempDir ?? os.tmpdir();
		fs.mkdirSync(base, { recursive: true });
		this.store = new BlobStore(fs.mkdtempSync(path.join(base, 'workplace-sim-')));
		this.state = new SimulatorState(this.store);
		this.routes = [...knowledgeRoutes, ...taskRoutes, ...oauthRoutes, ...botRoutes, ...formRoutes].map(compile);
		this.server = createServer((req, res) => {
			this.handle(req, res).catch((e: Error) => {
				console.error('[simulator] unhandled error', e);
				if (!res.headersSent) {
					res.writeHead(500, { 'content-type': 'application/json' });
					res.end(JSON.stringify({ error: 'internal simulator error', message: e.message }));
				} else res.destroy();
			});
		});
		this.server.requestTimeout = 0; // big uploads may take long
		this.server.headersTimeout = 60_000;
		this.server.keepAliveTimeout = 5_000;
	}

	async listen(): Promise<void> {
		const host = this.options.host ?? '127.0.0.1';
		const port = this.options.port ?? DEFAULT_PORT;
		await new Promise<void>((resolve, reject) => {
			const onError = (e: Error): void => reject(e);
			this.server.once('error', onError);
			this.server.listen(port, host, () => {
				this.server.off('error', onError);
				resolve();
			});
		});
		const addr = this.server.address() as AddressInfo;
		const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
		this.url = `http://${h}:${addr.port}`;
		this.knowledgeUrl = `${this.url}/api/v1`;
		this.controlUrl = `${this.url}/__sim`;
		this.llmUrl = `${this.url}/v1`;
	}

	setLatency(ms: number): void {
		this.latencyMs = Math.max(0, Number(ms) || 0);
	}

	expireTokens(): void {
		this.state.expireTokens();
	}

	/** The bot webhook URL and secret back to the start values (SimulatorOptions; none by default). */
	private resetBotWebhook(): void {
		this.config.botWebhookUrl = this.options.botWebhookUrl ? checkWebhookUrl('botWebhookUrl', this.options.botWebhookUrl) : undefined;
		this.config.botWebhookSecret = this.options.botWebhookSecret || undefined;
	}

	/**
	 * Control `POST /__sim/reset`: state reseeded, log and faults cleared, latency, rate limit and bot
	 * webhook back to the start values, LLM scripts dropped.
	 */
	resetAll(): void {
		this.state.reset();
		this.resetBotWebhook();
		this.faults.clear();
		this.log.clear();
		this.latencyMs = this.initialLatency;
		this.rateLimits.clear();
		if (this.options.rateLimit) this.rateLimits.set(this.options.rateLimit);
		this.llm.reset();
	}

	configure(j: Record<string, unknown>): void {
		if (j.unauthorizedBody !== undefined && !isUnauthorizedBodyShape(j.unauthorizedBody)) {
			throw new Error(`unauthorizedBody must be one of ${UNAUTHORIZED_BODY_SHAPES.join(', ')}`);
		}
		// checked before anything changes
		if (j.botWebhookUrl !== undefined && j.botWebhookUrl !== null && j.botWebhookUrl !== '') {
			if (typeof j.botWebhookUrl !== 'string') throw new Error('botWebhookUrl must be a string or null');
			checkWebhookUrl('botWebhookUrl', j.botWebhookUrl);
		}
		if (j.botWebhookSecret !== undefined && j.botWebhookSecret !== null && typeof j.botWebhookSecret !== 'string') throw new Error('botWebhookSecret must be a string or null');
		if (j.botWebhookUrl !== undefined) this.config.botWebhookUrl = typeof j.botWebhookUrl === 'string' && j.botWebhookUrl ? j.botWebhookUrl : undefined;
		if (j.botWebhookSecret !== undefined) this.config.botWebhookSecret = typeof j.botWebhookSecret === 'string' && j.botWebhookSecret ? j.botWebhookSecret : undefined;
		if (j.allowedClientAddresses !== undefined) this.config.allowedClientAddresses = Array.isArray(j.allowedClientAddresses) ? j.allowedClientAddresses.map(String) : undefined;
		if (typeof j.maxUploadBytes === 'number' && j.maxUploadBytes > 0) this.config.maxUploadBytes = j.maxUploadBytes;
		if (typeof j.tokenTtlSeconds === 'number' && j.tokenTtlSeconds > 0) this.config.tokenTtlSeconds = j.tokenTtlSeconds;
		if (typeof j.uploadFieldName === 'string' && j.uploadFieldName) this.config.uploadFieldName = j.uploadFieldName;
		if (typeof j.latencyMs === 'number') this.setLatency(j.latencyMs);
		if (isUnauthorizedBodyShape(j.unauthorizedBody)) this.config.unauthorizedBody = j.unauthorizedBody;
	}

	publicConfig(): Record<string, unknown> {
		const { credentials: _c, botWebhookUrl, botWebhookSecret, ...rest } = this.config;
		return {
			...rest,
			botWebhookUrl: botWebhookUrl ?? null,
			botWebhookSecretSet: botWebhookSecret !== undefined,
			latencyMs: this.latencyMs,
			rateLimits: this.rateLimits.list(),
			tempDir: this.store.dir,
		};
	}

	async tap(req: TapRequest): Promise<TapResult> {
		const { webhookUrl, secret, timeoutMs, ...tap } = req;
		const r = await this.deliverTaps([tap], { webhookUrl, secret, timeoutMs }, 0);
		return { status: r.status, body: r.body, signature: r.signature, event: r.events[0] };
	}

	async tapTogether(taps: TapRequest[], delivery: TapsDelivery = {}): Promise<TapsResult> {
		return await this.deliverTaps(taps, delivery, delivery.spacingMs);
	}

	/** The postback events of `taps` in one delivery to the bot's webhook. */
	private async deliverTaps(taps: TapRequest[], delivery: TapsDelivery, spacingMs: number | undefined): Promise<TapsResult> {
		const url = delivery.webhookUrl ?? this.config.botWebhookUrl;
		if (!url) throw new TapError(400, 'no bot webhook URL: configure botWebhookUrl (POST /__sim/config) or give webhookUrl');
		try {
			checkWebhookUrl('webhookUrl', url);
		} catch (e) {
			throw new TapError(400, (e as Error).message);
		}
		const events = prepareTaps(this.state, taps, spacingMs);
		const secret = delivery.secret === null ? undefined : (delivery.secret ?? this.config.botWebhookSecret);
		try {
			const r = await sendWebhook(url, { kind: 'bot', events }, { ...(secret !== undefined ? { secret } : {}), ...(delivery.timeoutMs !== undefined ? { timeoutMs: delivery.timeoutMs } : {}) });
			return { status: r.status, body: r.body, signature: r.signature, events };
		} catch (e) {
			throw new TapError(502, `delivery of the postback event${events.length > 1 ? 's' : ''} to ${url} failed: ${(e as Error).message}`);
		}
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
		this.store.destroy();
	}

	private match(method: string, p: string): { route?: CompiledRoute; params: Record<string, string>; allowed: string[] } {
		const allowed: string[] = [];
		for (const r of this.routes) {
			const m = r.re.exec(p);
			if (!m) continue;
			if (r.method !== method) {
				allowed.push(r.method);
				continue;
			}
			const params: Record<string, string> = {};
			r.keys.forEach((k, i) => {
				try {
					params[k] = decodeURIComponent(m[i + 1]);
				} catch {
					params[k] = m[i + 1];
				}
			});
			return { route: r, params, allowed };
		}
		return { params: {}, allowed };
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://simulator.local');
		const p = url.pathname;
		const iface = classify(p);
		if (iface === 'control') return handleControl(this, req, res, url);
		// the scripted chat model is no platform interface: not logged here, limited, faulted or delayed
		if (iface === 'llm') return handleLlm(this.llm, req, res, url);

		const method = (req.method ?? 'GET').toUpperCase();
		const ct = req.headers['content-type'];
		const entry = this.log.start({
			method,
			path: p,
			query: paramsToObject(url.searchParams),
			headers: headerRecord(req),
			interface: iface,
			...(ct !== undefined ? { contentType: ct } : {}),
		});
		const ctx = new Ctx(req, res, url, entry, iface, this);
		const underWay = (this.underWay.get(iface) ?? 0) + 1;
		this.underWay.set(iface, underWay);
		entry.inFlight = underWay;
		try {
			const admission = this.rateLimits.admit(iface);
			if (!admission.admitted) {
				// refused on arrival, before anything is read or done
				entry.rateLimited = true;
				entry.bodySize = Number(req.headers['content-length'] ?? 0) || 0;
				return await ctx.json(429, interfaceError(iface, 429), { 'retry-after': String(admission.retryAfterSeconds) });
			}
			const rule: ActiveFault | undefined = this.faults.take(method, p, iface);
			const routePath = p.length > 1 ? p.replace(/\/+$/, '') : p;
			const { route, params, allowed } = this.match(method, routePath);
			ctx.params = params;

			if (rule && !faultAfterBody(rule)) {
				await delay(rule.latencyMs ?? 0);
				if (faultAnswers(rule)) {
					if (!rule.reset) {
						// answer right away; node discards the unread body
						entry.bodySize = Number(req.headers['content-length'] ?? 0) || 0;
					}
					await ctx.applyFault(rule);
					return;
				}
			}

			const authFailure = route?.auth?.(ctx);
			if (rule?.responseBody) ctx.responsePace = rule.responseBody;
			const body = await readBody(req, {
				store: this.store,
				storeFiles: !!route?.files && !authFailure && !(rule && faultAnswers(rule) && !rule.afterHandler),
				maxFileBytes: this.config.maxUploadBytes,
				...(rule?.requestBody ? { pace: rule.requestBody } : {}),
			});
			ctx.body = body;
			entry.bodySize = body.size;
			if (body.kind === 'json' && body.json !== undefined) entry.body = body.json;
			else if (body.kind === 'urlencoded') entry.body = body.form;
			else if (body.kind === 'multipart') {
				entry.multipart = {
					fields: body.fields ?? {},
					files: (body.files ?? []).map((f) => ({ field: f.field, filename: f.filename, contentType: f.contentType, size: f.size, sha256: f.sha256 })),
				};
			}
			if (body.aborted) return;

			if (rule && faultAfterBody(rule)) {
				await delay(rule.latencyMs ?? 0);
				if (faultAnswers(rule)) {
					if (rule.afterHandler) ctx.pendingFault = rule;
					else {
						await ctx.applyFault(rule);
						return;
					}
				}
			}

			if (!route) {
				if (allowed.length) return await ctx.json(405, interfaceError(iface, 405, `Cannot ${method} ${p}`), { allow: [...new Set(allowed)].join(', ') });
				return await ctx.json(404, interfaceError(iface, 404, `Cannot ${method} ${p}`));
			}
			if (authFailure) return await ctx.json(authFailure.status, authFailure.body, authFailure.headers);
			if (body.error) return await ctx.error(body.error.status, body.error.message);
			await route.handler(ctx);
			if (!ctx.answered) await ctx.error(500, 'handler did not answer');
		} finally {
			this.underWay.set(iface, (this.underWay.get(iface) ?? 1) - 1);
			for (const f of ctx.body.files ?? []) {
				const blob = f.sink.result();
				if (blob && !ctx.claimed.has(blob)) blob.dispose();
				else if (!blob) f.sink.abort();
			}
		}
	}
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
	const sim = new SimulatorServer(options);
	try {
		await sim.listen();
	} catch (e) {
		sim.store.destroy();
		throw e;
	}
	return sim;
}
