/**
 * A scripted OpenAI-compatible chat model, so that n8n's AI Agent (with the "OpenAI Chat Model"
 * node, its credential's Base URL set to `{base_url}/v1`) can be driven by a test.
 *
 * `POST /v1/chat/completions` answers from a script the test sets (control API `/__sim/llm/...`,
 * or `sim.llm` in-process): an ordered list of turns, each a tool-call turn or a final answer.
 * Every request takes the next turn of its script; an exhausted script answers a final text that
 * says so, so a run never hangs. `GET /v1/models` lists a few model ids.
 *
 * These requests are not part of the platform: they are kept out of the platform request log,
 * the rate limit, faults and latency, and logged here instead (`GET /__sim/llm/requests`).
 */
import { IncomingMessage, ServerResponse } from 'http';
import { drain } from './body';
import { isPlainObject } from './util';

export interface LlmToolCall {
	/** Tool name; matched against the request's `tools[].function.name` (see resolveToolName). */
	name: string;
	/** The tool's arguments: an object (sent as a JSON string) or an already encoded string. */
	arguments?: Record<string, unknown> | string;
}

/** One scripted answer: tool calls (`finish_reason: 'tool_calls'`) or a final text (`'stop'`). */
export type LlmTurn = { toolCalls: LlmToolCall[] } | { content: string };

export interface LlmScriptInfo {
	/** null: the default script (set without a key). */
	key: string | null;
	turns: LlmTurn[];
	/** How many turns were used. */
	position: number;
}

/** One `POST /v1/chat/completions` request as received, with what it was answered. */
export interface LlmRequestRecord {
	seq: number;
	time: number;
	method: string;
	path: string;
	/** names lower-cased */
	headers: Record<string, string>;
	/** The parsed JSON request body as sent: `model`, `messages` (tool results as `role: 'tool'`), `tools`, `tool_choice`, `stream`, ... */
	body: unknown;
	status: number;
	/** Key of the script that answered; null: the default script (or none). */
	script: string | null;
	/** Index of the turn used, null when none was (exhausted, no script, or an error). */
	turn: number | null;
	/** The script had no turn left (or there was no script): answered with a final text saying so. */
	exhausted: boolean;
	stream: boolean;
	/** The assistant message answered (tool names resolved) and its finish reason; an error body otherwise. */
	response?: { message: AssistantMessage; finish_reason: 'tool_calls' | 'stop' } | { error: unknown };
}

export interface AssistantMessage {
	role: 'assistant';
	content: string | null;
	tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
	refusal: null;
}

/** Model ids `GET /v1/models` lists. */
export const LLM_MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini', 'gpt-4.1'];

/** Paths served by the LLM (with or without the `/v1` prefix); other OpenAI paths answer 404 in OpenAI's format. */
export function isLlmPath(p: string): boolean {
	return /^(?:\/v1)?\/(?:chat\/completions|completions|embeddings|responses(?:\/.*)?|models(?:\/.*)?)\/?$/.test(p);
}

function alnum(s: string): string {
	return s.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * The tool name to answer for a scripted name, given the tool names of the request: an exact
 * match, else a match ignoring case and non-alphanumerics, else the only tool whose name contains
 * the given one (ignoring case and non-alphanumerics), else the name as given.
 */
export function resolveToolName(name: string, toolNames: string[]): string {
	if (toolNames.includes(name)) return name;
	const want = alnum(name);
	if (!want) return name;
	const same = toolNames.find((t) => alnum(t) === want);
	if (same !== undefined) return same;
	const containing = toolNames.filter((t) => alnum(t).includes(want));
	return containing.length === 1 ? containing[0] : name;
}

/** Checks a script's turns (throws with a message naming the bad turn). */
export function validateTurns(turns: unknown): LlmTurn[] {
	if (!Array.isArray(turns)) throw new Error('turns must be an array of {toolCalls: [{name, arguments}]} or {content: string}');
	return turns.map((t, i): LlmTurn => {
		if (!isPlainObject(t)) throw new Error(`turn ${i}: must be an object`);
		if (t.toolCalls !== undefined) {
			if (t.content !== undefined) throw new Error(`turn ${i}: has both toolCalls and content; a turn is one or the other`);
			if (!Array.isArray(t.toolCalls) || t.toolCalls.length === 0) throw new Error(`turn ${i}: toolCalls must be a non-empty array`);
			const toolCalls = t.toolCalls.map((c, j): LlmToolCall => {
				if (!isPlainObject(c) || typeof c.name !== 'string' || !c.name) throw new Error(`turn ${i}, tool call ${j}: needs a non-empty name`);
				if (c.arguments !== undefined && typeof c.arguments !== 'string' && !isPlainObject(c.arguments)) throw new Error(`turn ${i}, tool call ${j}: arguments must be an object or a JSON string`);
				return { name: c.name, ...(c.arguments !== undefined ? { arguments: c.arguments as LlmToolCall['arguments'] } : {}) };
			});
			return { toolCalls };
		}
		if (typeof t.content !== 'string') throw new Error(`turn ${i}: needs toolCalls (array) or content (string)`);
		return { content: t.content };
	});
}

function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((p) => (isPlainObject(p) && typeof p.text === 'string' ? p.text : '')).join('\n');
	return '';
}

function toolNamesOf(body: Record<string, unknown>): string[] {
	const names: string[] = [];
	if (Array.isArray(body.tools)) {
		for (const t of body.tools) if (isPlainObject(t) && isPlainObject(t.function) && typeof t.function.name === 'string') names.push(t.function.name);
	}
	if (Array.isArray(body.functions)) {
		for (const f of body.functions) if (isPlainObject(f) && typeof f.name === 'string') names.push(f.name);
	}
	return names;
}

function tokens(text: string): number {
	return Math.max(1, Math.ceil(text.length / 4));
}

interface Script {
	key: string | null;
	turns: LlmTurn[];
	position: number;
}

/** The scripts, the requests received and the expected API key (in-process: `sim.llm`). */
export class LlmSimulator {
	private defaultScript?: Script;
	private readonly keyed = new Map<string, Script>();
	private log: LlmRequestRecord[] = [];
	private seq = 0;
	private callSeq = 0;
	private responseSeq = 0;
	private expectedKey?: string;

	/** Replaces the default script (no key), or the script of `key`; its position starts at 0. */
	setScript(turns: LlmTurn[], key?: string): void {
		const checked = validateTurns(turns);
		if (key === undefined || key === null) this.defaultScript = { key: null, turns: checked, position: 0 };
		else {
			if (typeof key !== 'string' || !key) throw new Error('key must be a non-empty string');
			this.keyed.set(key, { key, turns: checked, position: 0 });
		}
	}

	/** The scripts with their positions (default first). */
	scripts(): LlmScriptInfo[] {
		const all = [...(this.defaultScript ? [this.defaultScript] : []), ...this.keyed.values()];
		return all.map((s) => ({ key: s.key, turns: s.turns.map((t) => structuredClone(t)), position: s.position }));
	}

	/** Every chat completions request received, oldest first. */
	requests(): LlmRequestRecord[] {
		return [...this.log];
	}

	clearRequests(): void {
		this.log = [];
	}

	/** An expected API key: any other (or none) gets 401. undefined: any key is accepted. */
	setApiKey(key: string | undefined): void {
		this.expectedKey = key || undefined;
	}

	get apiKey(): string | undefined {
		return this.expectedKey;
	}

	/** Drops the scripts, the requests and the expected key. */
	reset(): void {
		this.defaultScript = undefined;
		this.keyed.clear();
		this.log = [];
		this.seq = 0;
		this.callSeq = 0;
		this.responseSeq = 0;
		this.expectedKey = undefined;
	}

	/**
	 * The script of a request: the keyed script whose key the first user message containing a key
	 * contains (the longest key when several), else the default script.
	 */
	select(body: Record<string, unknown>): Script | undefined {
		if (this.keyed.size && Array.isArray(body.messages)) {
			const keys = [...this.keyed.keys()].sort((a, b) => b.length - a.length);
			for (const m of body.messages) {
				if (!isPlainObject(m) || m.role !== 'user') continue;
				const text = textOf(m.content);
				const key = keys.find((k) => text.includes(k));
				if (key !== undefined) return this.keyed.get(key);
			}
		}
		return this.defaultScript;
	}

	/** The answer of a request: takes the next turn of its script. */
	answer(body: Record<string, unknown>): { message: AssistantMessage; finishReason: 'tool_calls' | 'stop'; script: string | null; turn: number | null; exhausted: boolean } {
		const script = this.select(body);
		if (!script || script.position >= script.turns.length) {
			const content = !script
				? '[simulator] No LLM script is set (POST /__sim/llm/script).'
				: `[simulator] The LLM script${script.key !== null ? ` "${script.key}"` : ''} is exhausted: all ${script.turns.length} turns were used.`;
			return { message: { role: 'assistant', content, refusal: null }, finishReason: 'stop', script: script?.key ?? null, turn: null, exhausted: true };
		}
		const turn = script.turns[script.position];
		const index = script.position++;
		if ('toolCalls' in turn) {
			const names = toolNamesOf(body);
			const toolCalls = turn.toolCalls.map((c) => ({
				id: `call_${++this.callSeq}`,
				type: 'function' as const,
				function: {
					name: resolveToolName(c.name, names),
					arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
				},
			}));
			return { message: { role: 'assistant', content: null, tool_calls: toolCalls, refusal: null }, finishReason: 'tool_calls', script: script.key, turn: index, exhausted: false };
		}
		return { message: { role: 'assistant', content: turn.content, refusal: null }, finishReason: 'stop', script: script.key, turn: index, exhausted: false };
	}

	/** Creates and stores a request record. */
	record(e: Omit<LlmRequestRecord, 'seq' | 'time'>): LlmRequestRecord {
		const r: LlmRequestRecord = { seq: ++this.seq, time: Date.now(), ...e };
		this.log.push(r);
		if (this.log.length > 10000) this.log.splice(0, this.log.length - 10000);
		return r;
	}

	nextResponseId(): string {
		return `chatcmpl-sim${String(++this.responseSeq).padStart(6, '0')}`;
	}
}

// ---------------------------------------------------------------- HTTP

function openAiError(status: number, message: string, type: string, code: string | null, param: string | null = null): unknown {
	return { error: { message, type, param, code } };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const buf = Buffer.from(JSON.stringify(body));
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(buf.length), ...headers });
	res.end(buf);
}

function headerRecord(req: IncomingMessage): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(req.headersDistinct)) if (v) out[k] = v.join(', ');
	return out;
}

/** Whether the request carries the expected key (always, when none is set). */
function authorized(llm: LlmSimulator, req: IncomingMessage): { ok: true } | { ok: false; body: unknown } {
	const expected = llm.apiKey;
	if (expected === undefined) return { ok: true };
	const m = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? '').trim());
	if (!m) {
		return {
			ok: false,
			body: openAiError(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", 'invalid_request_error', null),
		};
	}
	if (m[1].trim() === expected) return { ok: true };
	const given = m[1].trim();
	const shown = given.length > 8 ? `${given.slice(0, 3)}*****${given.slice(-4)}` : '*****';
	return { ok: false, body: openAiError(401, `Incorrect API key provided: ${shown}.`, 'invalid_request_error', 'invalid_api_key') };
}

async function readText(req: IncomingMessage, max = 64 * 1024 * 1024): Promise<{ text: string; tooLarge: boolean }> {
	const chunks: Buffer[] = [];
	let n = 0;
	await drain(req, (c) => {
		n += c.length;
		if (n <= max) chunks.push(c);
	});
	return { text: Buffer.concat(chunks).toString('utf8'), tooLarge: n > max };
}

function modelObject(id: string): Record<string, unknown> {
	return { id, object: 'model', created: 1715367049, owned_by: 'system' };
}

/** Serves a request to an LLM path (isLlmPath). Nothing here touches the platform's log, rate limit, faults or latency. */
export async function handleLlm(llm: LlmSimulator, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
	const method = (req.method ?? 'GET').toUpperCase();
	const p = url.pathname.replace(/\/+$/, '').replace(/^\/v1(?=\/)/, '');

	if (p === '/models' || p.startsWith('/models/')) {
		await drain(req);
		if (method !== 'GET') return sendJson(res, 405, openAiError(405, `Method ${method} not allowed on ${url.pathname}`, 'invalid_request_error', null), { allow: 'GET' });
		const auth = authorized(llm, req);
		if (!auth.ok) return sendJson(res, 401, auth.body);
		if (p === '/models') return sendJson(res, 200, { object: 'list', data: LLM_MODELS.map(modelObject) });
		const id = decodeURIComponent(p.slice('/models/'.length));
		if (LLM_MODELS.includes(id)) return sendJson(res, 200, modelObject(id));
		return sendJson(res, 404, openAiError(404, `The model '${id}' does not exist`, 'invalid_request_error', 'model_not_found', 'model'));
	}

	if (p !== '/chat/completions') {
		await drain(req);
		const hint =
			p === '/responses' || p.startsWith('/responses/')
				? " In n8n's OpenAI Chat Model turn off 'Use Responses API' (on by default from node version 1.3), or use version 1.2."
				: '';
		return sendJson(res, 404, openAiError(404, `The simulator serves only POST /v1/chat/completions and GET /v1/models, not ${method} ${url.pathname}.${hint}`, 'invalid_request_error', 'unknown_url'));
	}

	const headers = headerRecord(req);
	if (method !== 'POST') {
		await drain(req);
		return sendJson(res, 405, openAiError(405, `Method ${method} not allowed on ${url.pathname}`, 'invalid_request_error', null), { allow: 'POST' });
	}
	const { text, tooLarge } = await readText(req);
	let body: unknown;
	let parseError: string | undefined;
	if (tooLarge) parseError = 'Request body too large';
	else {
		try {
			body = JSON.parse(text);
		} catch (e) {
			parseError = `We could not parse the JSON body of your request. (${(e as Error).message})`;
		}
	}
	const base = { method, path: url.pathname, headers, body, script: null, turn: null, exhausted: false, stream: isPlainObject(body) && body.stream === true };

	const auth = authorized(llm, req);
	if (!auth.ok) {
		llm.record({ ...base, status: 401, response: { error: auth.body } });
		return sendJson(res, 401, auth.body);
	}
	if (parseError !== undefined || !isPlainObject(body) || !Array.isArray(body.messages)) {
		const err = parseError !== undefined ? openAiError(400, parseError, 'invalid_request_error', null) : openAiError(400, "Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages');
		llm.record({ ...base, status: 400, response: { error: err } });
		return sendJson(res, 400, err);
	}

	const a = llm.answer(body);
	llm.record({ ...base, status: 200, script: a.script, turn: a.turn, exhausted: a.exhausted, response: { message: a.message, finish_reason: a.finishReason } });

	const id = llm.nextResponseId();
	const created = Math.floor(Date.now() / 1000);
	const model = typeof body.model === 'string' && body.model ? body.model : LLM_MODELS[0];
	const promptTokens = tokens(JSON.stringify(body.messages) + (body.tools ? JSON.stringify(body.tools) : ''));
	const completionTokens = tokens(a.message.content ?? JSON.stringify(a.message.tool_calls ?? []));
	const usage = {
		prompt_tokens: promptTokens,
		completion_tokens: completionTokens,
		total_tokens: promptTokens + completionTokens,
		prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
		completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
	};

	if (body.stream !== true) {
		return sendJson(res, 200, {
			id,
			object: 'chat.completion',
			created,
			model,
			choices: [{ index: 0, message: a.message, logprobs: null, finish_reason: a.finishReason }],
			usage,
			service_tier: 'default',
			system_fingerprint: 'fp_simulator',
		});
	}

	const includeUsage = isPlainObject(body.stream_options) && body.stream_options.include_usage === true;
	const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> => ({
		id,
		object: 'chat.completion.chunk',
		created,
		model,
		service_tier: 'default',
		system_fingerprint: 'fp_simulator',
		choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
		...(includeUsage ? { usage: null } : {}),
	});
	const chunks: Array<Record<string, unknown>> = [];
	if (a.message.tool_calls) {
		chunks.push(chunk({ role: 'assistant', content: null, refusal: null }));
		a.message.tool_calls.forEach((c, index) => {
			chunks.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }));
			for (const part of splitArguments(c.function.arguments)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
		});
	} else {
		chunks.push(chunk({ role: 'assistant', content: '', refusal: null }));
		for (const part of splitWords(a.message.content ?? '')) chunks.push(chunk({ content: part }));
	}
	chunks.push(chunk({}, a.finishReason));
	if (includeUsage) chunks.push({ id, object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: 'fp_simulator', choices: [], usage });

	res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
	for (const c of chunks) {
		if (res.destroyed) return;
		res.write(`data: ${JSON.stringify(c)}\n\n`);
		await new Promise<void>((resolve) => setImmediate(resolve));
	}
	res.end('data: [DONE]\n\n');
}

/** A text in pieces of a few words (each piece keeps its trailing space). */
function splitWords(text: string): string[] {
	const words = text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
	const out: string[] = [];
	for (let i = 0; i < words.length; i += 3) out.push(words.slice(i, i + 3).join(''));
	return out;
}

/** A JSON string in two halves, as OpenAI streams arguments in fragments. */
function splitArguments(args: string): string[] {
	if (args.length < 2) return [args];
	const mid = Math.ceil(args.length / 2);
	return [args.slice(0, mid), args.slice(mid)];
}
