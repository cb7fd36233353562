/** Control HTTP API under /__sim (requests here are not logged, not delayed, not faulted). */
import { IncomingMessage, ServerResponse } from 'http';
import { drain } from './body';
import type { FaultRegistry } from './faults';
import type { LlmSimulator } from './llm';
import { parseRateLimit, type RateLimits } from './rateLimit';
import type { RequestLog } from './log';
import type { SimulatorState } from './state';
import { TapError, tapRequestFromJson, TapRequest, TapResult, TapsDelivery, TapsResult, tapsRequestFromJson } from './tap';
import { BodyPace, FaultRule, InterfaceName, SimulatorCredentials } from './types';
import { isPlainObject } from './util';
import { sendWebhook, WebhookDelivery, WebhookOptions } from './webhook-sender';

function send(res: ServerResponse, status: number, body?: unknown): void {
	if (body === undefined) {
		res.writeHead(status);
		res.end();
		return;
	}
	const buf = Buffer.from(JSON.stringify(body, null, 1));
	res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(buf.length) });
	res.end(buf);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	let n = 0;
	await drain(req, (c) => {
		n += c.length;
		if (n <= 16 * 1024 * 1024) chunks.push(c);
	});
	if (n > 16 * 1024 * 1024) throw new Error('control request body too large');
	const text = Buffer.concat(chunks).toString('utf8').trim();
	if (!text) return {};
	return JSON.parse(text);
}

/** FaultRule from JSON: `pathRegex` (+ optional `pathRegexFlags`) becomes a RegExp; `times` may be null/"Infinity". */
export function faultFromJson(j: unknown): FaultRule {
	if (!isPlainObject(j)) throw new Error('fault rule must be a JSON object');
	const rule: FaultRule = {};
	if (j.method !== undefined) rule.method = String(j.method);
	if (typeof j.pathRegex === 'string') rule.path = new RegExp(j.pathRegex, typeof j.pathRegexFlags === 'string' ? j.pathRegexFlags : undefined);
	else if (typeof j.path === 'string') rule.path = j.path;
	if (j.interface !== undefined) rule.interface = String(j.interface) as FaultRule['interface'];
	if (j.times !== undefined) rule.times = j.times === null || j.times === 'Infinity' || j.times === 'infinity' ? Infinity : Number(j.times);
	if (j.status !== undefined) rule.status = Number(j.status);
	if (j.retryAfter !== undefined) rule.retryAfter = j.retryAfter as number | string;
	if (j.body !== undefined) rule.body = j.body;
	if (j.latencyMs !== undefined) rule.latencyMs = Number(j.latencyMs);
	if (j.reset !== undefined) rule.reset = !!j.reset;
	if (j.afterBody !== undefined) rule.afterBody = !!j.afterBody;
	if (j.afterHandler !== undefined) rule.afterHandler = !!j.afterHandler;
	if (isPlainObject(j.headers)) rule.headers = Object.fromEntries(Object.entries(j.headers).map(([k, v]) => [k, String(v)]));
	if (j.stall !== undefined) rule.stall = !!j.stall;
	if (isPlainObject(j.responseBody)) rule.responseBody = paceFromJson(j.responseBody);
	if (isPlainObject(j.requestBody)) rule.requestBody = paceFromJson(j.requestBody);
	return rule;
}

function paceFromJson(j: Record<string, unknown>): BodyPace {
	const pace: BodyPace = {};
	if (j.chunkBytes !== undefined) pace.chunkBytes = Number(j.chunkBytes);
	if (j.delayMs !== undefined) pace.delayMs = Number(j.delayMs);
	if (j.stallAfterBytes !== undefined) pace.stallAfterBytes = Number(j.stallAfterBytes);
	return pace;
}

function faultToJson(r: FaultRule & { id: string; remaining: number }): Record<string, unknown> {
	const out: Record<string, unknown> = { ...r };
	if (r.path instanceof RegExp) {
		delete out.path;
		out.pathRegex = r.path.source;
		out.pathRegexFlags = r.path.flags;
	}
	if (r.times === Infinity) out.times = 'Infinity';
	if (r.remaining === Infinity) out.remaining = 'Infinity';
	return out;
}

/** What the control API reads and changes: the server hands itself in as this (control does not import the server). */
export interface ControlledSimulator {
	readonly url: string;
	readonly knowledgeUrl: string;
	readonly controlUrl: string;
	readonly credentials: SimulatorCredentials;
	readonly log: RequestLog;
	readonly faults: FaultRegistry;
	readonly rateLimits: RateLimits;
	readonly llm: LlmSimulator;
	readonly llmUrl: string;
	readonly state: SimulatorState;
	readonly latencyMs: number;
	setLatency(ms: number): void;
	expireTokens(): void;
	resetAll(): void;
	configure(j: Record<string, unknown>): void;
	publicConfig(): Record<string, unknown>;
	tap(req: TapRequest): Promise<TapResult>;
	tapTogether(taps: TapRequest[], delivery?: TapsDelivery): Promise<TapsResult>;
}

/** `/__sim/llm...`: the scripted chat model's scripts, requests and API key (llm.ts). */
async function handleLlmControl(llm: LlmSimulator, route: string, m: string, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
	const info = (): Record<string, unknown> => ({ apiKey: llm.apiKey ?? null, scripts: llm.scripts(), requests: llm.requests().length });
	if (route === '/llm') {
		if (m === 'GET') return send(res, 200, info());
		if (m === 'DELETE') {
			await drain(req);
			llm.reset();
			return send(res, 204);
		}
	}
	if (route === '/llm/script') {
		if (m === 'GET') return send(res, 200, llm.scripts());
		if (m === 'POST') {
			// {"turns": [...]} replaces the default script; {"key": "k", "turns": [...]} the script of key k
			const j = await readJson(req);
			if (!isPlainObject(j)) return send(res, 400, { error: 'body must be {"turns": [...], "key"?: string}' });
			if (j.key !== undefined && j.key !== null && (typeof j.key !== 'string' || !j.key)) return send(res, 400, { error: 'key must be a non-empty string' });
			const key = typeof j.key === 'string' ? j.key : undefined;
			llm.setScript(j.turns as never, key);
			return send(res, 200, llm.scripts().find((s) => s.key === (key ?? null)));
		}
	}
	if (route === '/llm/requests') {
		if (m === 'GET') {
			const since = Number(url.searchParams.get('since') ?? 0) || 0;
			return send(res, 200, llm.requests().filter((r) => r.seq > since));
		}
		if (m === 'DELETE') {
			await drain(req);
			llm.clearRequests();
			return send(res, 204);
		}
	}
	if (route === '/llm/api-key') {
		if (m === 'GET') return send(res, 200, { apiKey: llm.apiKey ?? null });
		if (m === 'POST' || m === 'DELETE') {
			// {"apiKey": "sk-..."}: only this Bearer key is accepted; null, "" or DELETE: any key
			let j: unknown = {};
			if (m === 'POST') j = await readJson(req);
			else await drain(req);
			if (!isPlainObject(j) || (j.apiKey !== undefined && j.apiKey !== null && typeof j.apiKey !== 'string')) return send(res, 400, { error: 'body must be {"apiKey": string | null}' });
			llm.setApiKey(typeof j.apiKey === 'string' ? j.apiKey : undefined);
			return m === 'DELETE' ? send(res, 204) : send(res, 200, { apiKey: llm.apiKey ?? null });
		}
	}
	await drain(req);
	return send(res, 404, { error: `unknown control route ${m} ${url.pathname}` });
}

export async function handleControl(sim: ControlledSimulator, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
	const route = url.pathname.replace(/^\/__sim/, '').replace(/\/+$/, '') || '/';
	const m = req.method ?? 'GET';
	try {
		if (m === 'GET' && (route === '/' || route === '/health')) return send(res, 200, { ok: true, url: sim.url, knowledgeUrl: sim.knowledgeUrl, controlUrl: sim.controlUrl, llmUrl: sim.llmUrl });
		if (route === '/requests') {
			if (m === 'GET') {
				const since = url.searchParams.get('since');
				return send(res, 200, since !== null ? sim.log.since(Number(since)) : sim.log.all());
			}
			if (m === 'DELETE') {
				await drain(req);
				sim.log.clear();
				return send(res, 204);
			}
		}
		if (route === '/faults') {
			if (m === 'GET') return send(res, 200, sim.faults.list().map(faultToJson));
			if (m === 'POST') {
				const id = sim.faults.add(faultFromJson(await readJson(req)));
				return send(res, 201, { id });
			}
			if (m === 'DELETE') {
				await drain(req);
				sim.faults.clear();
				return send(res, 204);
			}
		}
		const fm = /^\/faults\/([^/]+)$/.exec(route);
		if (fm && m === 'DELETE') {
			await drain(req);
			return sim.faults.remove(decodeURIComponent(fm[1])) ? send(res, 204) : send(res, 404, { error: 'fault rule not found' });
		}
		if (route === '/reset' && m === 'POST') {
			await drain(req);
			sim.resetAll();
			return send(res, 204);
		}
		if (route === '/expire-tokens' && m === 'POST') {
			await drain(req);
			sim.expireTokens();
			return send(res, 204);
		}
		if (route === '/rate-limit') {
			if (m === 'GET') return send(res, 200, sim.rateLimits.list());
			if (m === 'DELETE') {
				await drain(req);
				sim.rateLimits.clear();
				return send(res, 204);
			}
			if (m === 'POST') {
				// {"rate": 50, "burst": 10, "interface": "bot"} or {"limit": "50/10"}; rate 0 removes
				const j = await readJson(req);
				if (!isPlainObject(j)) return send(res, 400, { error: 'body must be {"rate": R, "burst"?: B, "interface"?: name}' });
				try {
					const rule = typeof j.limit === 'string' ? parseRateLimit(j.limit) : { rate: Number(j.rate), ...(j.burst !== undefined ? { burst: Number(j.burst) } : {}) };
					sim.rateLimits.set(rule, typeof j.interface === 'string' ? (j.interface as InterfaceName) : undefined);
				} catch (e) {
					return send(res, 400, { error: (e as Error).message });
				}
				return send(res, 200, sim.rateLimits.list());
			}
		}
		if (route === '/llm' || route.startsWith('/llm/')) return await handleLlmControl(sim.llm, route, m, req, res, url);
		if (route === '/latency') {
			if (m === 'GET') return send(res, 200, { ms: sim.latencyMs });
			if (m === 'POST') {
				const j = await readJson(req);
				const ms = isPlainObject(j) ? Number(j.ms) : NaN;
				if (!(ms >= 0)) return send(res, 400, { error: 'body must be {"ms": <number >= 0>}' });
				sim.setLatency(ms);
				return send(res, 200, { ms });
			}
		}
		if (route === '/state' && m === 'GET') return send(res, 200, { ...sim.state.snapshot(), latencyMs: sim.latencyMs, faults: sim.faults.list().map(faultToJson), config: sim.publicConfig() });
		if (route === '/messages' && m === 'GET') {
			const f: { uid?: string; gid?: string; tid?: string } = {};
			for (const k of ['uid', 'gid', 'tid'] as const) {
				const v = url.searchParams.get(k);
				if (v !== null) f[k] = v;
			}
			return send(res, 200, sim.state.sentMessages(f));
		}
		if (route === '/credentials' && m === 'GET') return send(res, 200, { ...sim.credentials, taskReadOnlyJwt: sim.state.taskReadOnlyJwt });
		if (route === '/config' && m === 'POST') {
			const j = await readJson(req);
			if (!isPlainObject(j)) return send(res, 400, { error: 'body must be a JSON object' });
			sim.configure(j);
			return send(res, 200, sim.publicConfig());
		}
		if (route === '/webhook' && m === 'POST') {
			const j = await readJson(req);
			if (!isPlainObject(j) || typeof j.url !== 'string' || !isPlainObject(j.delivery)) return send(res, 400, { error: 'body must be {url, delivery, options?}' });
			const r = await sendWebhook(j.url, j.delivery as WebhookDelivery, (isPlainObject(j.options) ? j.options : {}) as WebhookOptions);
			return send(res, 200, { status: r.status, body: r.body, signature: r.signature });
		}
		if (route === '/tap' && m === 'POST') {
			// a user taps a postback button of a pushed message (tap.ts): {status, body, signature, event}
			try {
				const r = await sim.tap(tapRequestFromJson(await readJson(req)));
				return send(res, 200, { status: r.status, body: r.body, signature: r.signature ?? null, event: r.event });
			} catch (e) {
				if (e instanceof TapError) return send(res, e.status, { error: e.message });
				throw e;
			}
		}
		if (route === '/taps' && m === 'POST') {
			// several users tap, their events in one delivery (tap.ts): {status, body, signature, events}
			try {
				const { taps, delivery } = tapsRequestFromJson(await readJson(req));
				const r = await sim.tapTogether(taps, delivery);
				return send(res, 200, { status: r.status, body: r.body, signature: r.signature ?? null, events: r.events });
			} catch (e) {
				if (e instanceof TapError) return send(res, e.status, { error: e.message });
				throw e;
			}
		}
		await drain(req);
		return send(res, 404, { error: `unknown control route ${m} ${url.pathname}` });
	} catch (e) {
		if (!res.headersSent) send(res, 400, { error: (e as Error).message });
	}
}
