import { LlmRequestRecord, LlmTurn, resolveToolName, Simulator } from '../../simulator';
import { classify } from '../../simulator/server';
import { call, Res, withSim } from './helpers';

/* eslint-disable @typescript-eslint/no-explicit-any */

const KNOWLEDGE_TOOL = {
	type: 'function',
	function: {
		name: 'Search_Workplace_Knowledge',
		description: 'Searches the knowledge base',
		parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
	},
};
const SEND_TOOL = {
	type: 'function',
	function: { name: 'Send_a_message_in_Workplace', description: 'Sends a message', parameters: { type: 'object', properties: { text: { type: 'string' } } } },
};

function chatBody(user: string, extra: Record<string, unknown> = {}, more: unknown[] = []): Record<string, unknown> {
	return {
		model: 'gpt-4o-mini',
		messages: [{ role: 'system', content: 'You are a helpful assistant' }, { role: 'user', content: user }, ...more],
		tools: [KNOWLEDGE_TOOL, SEND_TOOL],
		tool_choice: 'auto',
		...extra,
	};
}

/** The `data:` payloads of an SSE answer, in order. */
function sseData(text: string): string[] {
	return text
		.split('\n\n')
		.map((block) => block.trim())
		.filter(Boolean)
		.map((block) => {
			expect(block.startsWith('data: ')).toBe(true);
			return block.slice('data: '.length);
		});
}

describe('simulator: scripted OpenAI-compatible chat model', () => {
	let sim: Simulator;
	let C: string;
	let completions: string;
	const chat = (body: unknown, headers: Record<string, string> = { authorization: 'Bearer sk-anything' }): Promise<Res> => call(completions, { headers, json: body });
	const script = (turns: LlmTurn[] | unknown, key?: string): Promise<Res> => call(`${C}/llm/script`, { json: key === undefined ? { turns } : { key, turns } });

	beforeAll(async () => {
		sim = await withSim();
		C = sim.controlUrl;
		completions = `${sim.llmUrl}/chat/completions`;
	});
	afterAll(() => sim.close());
	beforeEach(async () => {
		expect((await call(`${C}/llm`, { method: 'DELETE' })).status).toBe(204);
	});

	test('a tool-call turn, then a final turn; usage in every answer', async () => {
		expect(sim.llmUrl).toBe(`${sim.url}/v1`);
		const set = await script([{ toolCalls: [{ name: 'Search_Workplace_Knowledge', arguments: { query: 'holidays' } }] }, { content: 'There are 12 holidays.' }]);
		expect(set.status).toBe(200);
		expect(set.json).toEqual({ key: null, turns: expect.any(Array), position: 0 });

		const first = await chat(chatBody('How many holidays?'));
		expect(first.status).toBe(200);
		expect(first.headers['content-type']).toMatch(/^application\/json/);
		expect(first.json).toMatchObject({ object: 'chat.completion', model: 'gpt-4o-mini', id: expect.stringMatching(/^chatcmpl-/), created: expect.any(Number) });
		expect(first.json.choices).toEqual([
			{
				index: 0,
				message: { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'Search_Workplace_Knowledge', arguments: '{"query":"holidays"}' } }] },
				logprobs: null,
				finish_reason: 'tool_calls',
			},
		]);
		const u = first.json.usage;
		expect(Number.isInteger(u.prompt_tokens) && u.prompt_tokens > 0).toBe(true);
		expect(Number.isInteger(u.completion_tokens) && u.completion_tokens > 0).toBe(true);
		expect(u.total_tokens).toBe(u.prompt_tokens + u.completion_tokens);

		const second = await chat(
			chatBody('How many holidays?', {}, [first.json.choices[0].message, { role: 'tool', tool_call_id: 'call_1', content: '[{"name":"holidays-2025.csv"}]' }]),
		);
		expect(second.status).toBe(200);
		expect(second.json.choices[0]).toEqual({ index: 0, message: { role: 'assistant', content: 'There are 12 holidays.', refusal: null }, logprobs: null, finish_reason: 'stop' });
		expect(second.json.usage.total_tokens).toBeGreaterThan(0);
		expect(second.json.id).not.toBe(first.json.id);

		// several tool calls in one turn get their own ids; string arguments are sent as given
		await script([{ toolCalls: [{ name: 'Send_a_message_in_Workplace', arguments: { text: 'a' } }, { name: 'Send_a_message_in_Workplace', arguments: '{"text":"b"}' }, { name: 'x_no_args' }] }]);
		const multi = await chat(chatBody('send two'));
		expect(multi.json.choices[0].message.tool_calls.map((c: any) => [c.id, c.function.name, c.function.arguments])).toEqual([
			['call_2', 'Send_a_message_in_Workplace', '{"text":"a"}'],
			['call_3', 'Send_a_message_in_Workplace', '{"text":"b"}'],
			['call_4', 'x_no_args', '{}'],
		]);
	});

	test('a scripted tool name is matched against the request tools: exact, ignoring case and punctuation, unique containment, else as given', async () => {
		const tools = ['Search_Workplace_Knowledge', 'Send_a_message_in_Workplace', 'Send_a_message_in_Workplace_v2', 'get-task'];
		expect(resolveToolName('get-task', tools)).toBe('get-task');
		expect(resolveToolName('Get Task', tools)).toBe('get-task');
		expect(resolveToolName('search workplace knowledge', tools)).toBe('Search_Workplace_Knowledge');
		expect(resolveToolName('knowledge', tools)).toBe('Search_Workplace_Knowledge');
		expect(resolveToolName('Send a message in Workplace', tools)).toBe('Send_a_message_in_Workplace'); // equal beats containment
		expect(resolveToolName('message', tools)).toBe('message'); // ambiguous: two tools contain it
		expect(resolveToolName('Create Form', tools)).toBe('Create Form');
		expect(resolveToolName('anything', [])).toBe('anything');

		await script([{ toolCalls: [{ name: 'workplace knowledge', arguments: { query: 'q' } }, { name: 'SEND A MESSAGE IN WORKPLACE' }, { name: 'Unknown Tool' }] }]);
		const r = await chat(chatBody('hi'));
		expect(r.json.choices[0].message.tool_calls.map((c: any) => c.function.name)).toEqual(['Search_Workplace_Knowledge', 'Send_a_message_in_Workplace', 'Unknown Tool']);
	});

	test('keyed scripts: the first user message holding a key selects its script; each keeps its own position; else the default script', async () => {
		await script([{ content: 'default 1' }, { content: 'default 2' }]);
		await script([{ content: 'alpha 1' }, { content: 'alpha 2' }], 'conv-alpha');
		await script([{ content: 'beta 1' }], 'conv-beta');
		await script([{ content: 'beta long 1' }], 'conv-beta-long');
		const answer = async (messages: unknown[]): Promise<string> => (await chat({ model: 'gpt-4o', messages })).json.choices[0].message.content;

		expect(await answer([{ role: 'user', content: 'conv-beta: hello' }])).toBe('beta 1');
		expect(await answer([{ role: 'system', content: 'conv-alpha' }, { role: 'user', content: 'no key here' }])).toBe('default 1'); // only user messages count
		expect(await answer([{ role: 'user', content: '[conv-alpha] hello' }])).toBe('alpha 1');
		// the first user message decides, later ones (e.g. memory) do not
		expect(
			await answer([
				{ role: 'user', content: [{ type: 'text', text: 'about conv-alpha' }] },
				{ role: 'assistant', content: 'alpha 1' },
				{ role: 'user', content: 'conv-beta' },
			]),
		).toBe('alpha 2');
		expect(await answer([{ role: 'user', content: 'conv-beta-long' }])).toBe('beta long 1'); // the longest key wins
		expect(await answer([{ role: 'user', content: 'none' }])).toBe('default 2');
		expect(await answer([{ role: 'user', content: 'conv-beta again' }])).toMatch(/script "conv-beta" is exhausted/);

		const scripts = (await call(`${C}/llm/script`)).json;
		expect(scripts.map((s: any) => [s.key, s.position, s.turns.length])).toEqual([
			[null, 2, 2],
			['conv-alpha', 2, 2],
			['conv-beta', 1, 1],
			['conv-beta-long', 1, 1],
		]);
		// setting one keyed script again resets only its position
		await script([{ content: 'alpha again' }], 'conv-alpha');
		expect(await answer([{ role: 'user', content: 'conv-alpha' }])).toBe('alpha again');
		expect(await answer([{ role: 'user', content: 'x' }])).toMatch(/exhausted/);

		const reqs: LlmRequestRecord[] = (await call(`${C}/llm/requests`)).json;
		expect(reqs.map((r) => [r.script, r.turn, r.exhausted])).toEqual([
			['conv-beta', 0, false],
			[null, 0, false],
			['conv-alpha', 0, false],
			['conv-alpha', 1, false],
			['conv-beta-long', 0, false],
			[null, 1, false],
			['conv-beta', null, true],
			['conv-alpha', 0, false],
			[null, null, true],
		]);
	});

	test('stream: true answers text/event-stream chunks that add up to the message, then [DONE]', async () => {
		await script([{ toolCalls: [{ name: 'knowledge', arguments: { query: 'remote work' } }, { name: 'send', arguments: { text: 'hi' } }] }, { content: 'Remote work is allowed two days a week.' }]);

		const tc = await chat(chatBody('remote?', { stream: true, stream_options: { include_usage: true } }));
		expect(tc.status).toBe(200);
		expect(tc.headers['content-type']).toMatch(/^text\/event-stream/);
		const data = sseData(tc.text);
		expect(data[data.length - 1]).toBe('[DONE]');
		const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
		expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0].id && c.model === 'gpt-4o-mini')).toBe(true);
		expect(chunks[0].choices[0].delta).toMatchObject({ role: 'assistant', content: null });
		// reassemble as a client does: by tool call index
		const calls: Array<{ id?: string; name?: string; args: string }> = [];
		let finish: string | null = null;
		for (const c of chunks) {
			if (!c.choices.length) continue;
			expect(c.usage).toBeNull();
			const ch = c.choices[0];
			if (ch.finish_reason) finish = ch.finish_reason;
			for (const d of ch.delta.tool_calls ?? []) {
				calls[d.index] ??= { args: '' };
				if (d.id) calls[d.index].id = d.id;
				if (d.function?.name) calls[d.index].name = d.function.name;
				calls[d.index].args += d.function?.arguments ?? '';
			}
		}
		expect(finish).toBe('tool_calls');
		expect(calls).toEqual([
			{ id: 'call_1', name: 'Search_Workplace_Knowledge', args: '{"query":"remote work"}' },
			{ id: 'call_2', name: 'Send_a_message_in_Workplace', args: '{"text":"hi"}' },
		]);
		const usageChunk = chunks[chunks.length - 1];
		expect(usageChunk.choices).toEqual([]);
		expect(usageChunk.usage.total_tokens).toBe(usageChunk.usage.prompt_tokens + usageChunk.usage.completion_tokens);

		// without include_usage: no usage chunk, no usage field
		const text = await chat(chatBody('remote?', { stream: true }));
		const tchunks = sseData(text.text);
		expect(tchunks.pop()).toBe('[DONE]');
		const parsed = tchunks.map((d) => JSON.parse(d));
		expect(parsed.every((c) => c.choices.length === 1 && !('usage' in c))).toBe(true);
		expect(parsed[0].choices[0].delta).toMatchObject({ role: 'assistant', content: '' });
		expect(parsed.length).toBeGreaterThan(3); // the text comes in pieces
		expect(parsed.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Remote work is allowed two days a week.');
		expect(parsed[parsed.length - 1].choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });

		const reqs: LlmRequestRecord[] = (await call(`${C}/llm/requests`)).json;
		expect(reqs.map((r) => r.stream)).toEqual([true, true]);
	});

	test('an exhausted script (or none) answers a final text saying so, never an error', async () => {
		const none = await chat(chatBody('hello'));
		expect(none.status).toBe(200);
		expect(none.json.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: expect.stringMatching(/No LLM script is set/) } });

		await script([{ content: 'only one' }]);
		expect((await chat(chatBody('a'))).json.choices[0].message.content).toBe('only one');
		for (let i = 0; i < 2; i++) {
			const r = await chat(chatBody('b'));
			expect(r.status).toBe(200);
			expect(r.json.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: '[simulator] The LLM script is exhausted: all 1 turns were used.' } });
		}
		const streamed = await chat(chatBody('c', { stream: true }));
		expect(streamed.status).toBe(200);
		expect(sseData(streamed.text).pop()).toBe('[DONE]');
		expect((await call(`${C}/llm/requests`)).json.map((r: LlmRequestRecord) => r.exhausted)).toEqual([true, false, true, true, true]);
	});

	test('GET /__sim/llm/requests holds every request body (tool results, tool schemas) and its answer', async () => {
		await script([{ toolCalls: [{ name: 'knowledge', arguments: { query: 'faq' } }] }, { content: 'done' }]);
		const first = await chat(chatBody('faq?'), { authorization: 'Bearer sk-test-123' });
		const toolMsg = { role: 'tool', tool_call_id: 'call_1', content: '{"answer":42}' };
		await chat(chatBody('faq?', {}, [first.json.choices[0].message, toolMsg]));

		const reqs: LlmRequestRecord[] = (await call(`${C}/llm/requests`)).json;
		expect(reqs).toHaveLength(2);
		expect(reqs[0]).toMatchObject({ seq: 1, method: 'POST', path: '/v1/chat/completions', status: 200, script: null, turn: 0, exhausted: false, stream: false });
		expect(reqs[0].headers.authorization).toBe('Bearer sk-test-123');
		const body0 = reqs[0].body as any;
		expect(body0.tools).toEqual([KNOWLEDGE_TOOL, SEND_TOOL]);
		expect(body0.tool_choice).toBe('auto');
		expect(reqs[0].response).toEqual({ finish_reason: 'tool_calls', message: first.json.choices[0].message });
		const body1 = reqs[1].body as any;
		expect(body1.messages[body1.messages.length - 1]).toEqual(toolMsg);
		expect(body1.messages.filter((m: any) => m.role === 'tool')).toHaveLength(1);
		expect(reqs[1].response).toMatchObject({ finish_reason: 'stop', message: { content: 'done' } });

		expect((await call(`${C}/llm/requests?since=1`)).json.map((r: LlmRequestRecord) => r.seq)).toEqual([2]);
		expect(sim.llm.requests()).toHaveLength(2); // the same in-process
		expect((await call(`${C}/llm`)).json).toMatchObject({ apiKey: null, requests: 2, scripts: [{ key: null, position: 2 }] });
		expect((await call(`${C}/llm/requests`, { method: 'DELETE' })).status).toBe(204);
		expect((await call(`${C}/llm/requests`)).json).toEqual([]);

		// a body without messages is a 400 in OpenAI's format, logged, and takes no turn
		await script([{ content: 'kept' }]);
		const bad = await chat({ model: 'gpt-4o' });
		expect(bad.status).toBe(400);
		expect(bad.json.error).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
		const badJson = await call(completions, { headers: { 'content-type': 'application/json' }, body: '{nope' });
		expect(badJson.status).toBe(400);
		expect((await chat(chatBody('x'))).json.choices[0].message.content).toBe('kept');
		expect((await call(`${C}/llm/requests`)).json.map((r: LlmRequestRecord) => [r.status, r.turn])).toEqual([
			[400, null],
			[400, null],
			[200, 0],
		]);
	});

	test('the platform request log, rate limit, faults and latency do not see LLM requests', async () => {
		expect(classify('/v1/chat/completions')).toBe('llm');
		expect(classify('/v1/models')).toBe('llm');
		expect(classify('/v1/forms')).toBe('form');

		expect((await call(`${C}/reset`, { method: 'POST' })).status).toBe(204);
		expect((await call(`${C}/rate-limit`, { json: { rate: 0.01, burst: 1 } })).status).toBe(200);
		const fault = await call(`${C}/faults`, { json: { status: 500, times: 'Infinity' } }); // matches every platform request
		expect(fault.status).toBe(201);
		sim.setLatency(3000);
		try {
			await script([{ content: 'one' }, { content: 'two' }, { content: 'three' }]);
			const started = Date.now();
			const answers = [await chat(chatBody('a')), await chat(chatBody('b', { stream: true })), await call(`${sim.llmUrl}/models`)];
			expect(Date.now() - started).toBeLessThan(2500);
			expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
			expect(sim.log.all()).toEqual([]);
			expect((await call(`${C}/requests`)).json).toEqual([]);
			expect(sim.faults.list()).toEqual([expect.objectContaining({ id: fault.json.id, remaining: Infinity })]);
		} finally {
			sim.setLatency(0);
			expect((await call(`${C}/reset`, { method: 'POST' })).status).toBe(204);
		}

		// a platform request is still logged as before, and POST /__sim/reset drops the LLM scripts too
		expect((await call(`${sim.knowledgeUrl}/knowledge`, { headers: { 'x-api-key': sim.credentials.knowledgeApiKey } })).status).toBe(200);
		expect(sim.log.all().map((e) => e.interface)).toEqual(['knowledge']);
		expect((await call(`${C}/llm`)).json).toEqual({ apiKey: null, scripts: [], requests: 0 });
	});

	test('an expected API key: any other key (or none) gets 401 in OpenAI error format; by default any key passes', async () => {
		await script([{ content: 'ok' }, { content: 'ok 2' }]);
		expect((await chat(chatBody('a'), {})).status).toBe(200); // no key at all is fine without an expected key

		expect((await call(`${C}/llm/api-key`, { json: { apiKey: 'sk-sim-expected-0123' } })).json).toEqual({ apiKey: 'sk-sim-expected-0123' });
		const wrong = await chat(chatBody('b'), { authorization: 'Bearer sk-wrong-key-9999' });
		expect(wrong.status).toBe(401);
		expect(wrong.json).toEqual({ error: { message: 'Incorrect API key provided: sk-*****9999.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
		const missing = await chat(chatBody('b'), {});
		expect(missing.status).toBe(401);
		expect(missing.json.error).toMatchObject({ type: 'invalid_request_error', code: null, message: expect.stringMatching(/didn't provide an API key/) });
		expect((await call(`${sim.llmUrl}/models`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);

		const right = await chat(chatBody('c'), { authorization: 'Bearer sk-sim-expected-0123' });
		expect(right.status).toBe(200);
		expect(right.json.choices[0].message.content).toBe('ok 2'); // the refused requests took no turn
		expect((await call(`${sim.llmUrl}/models`, { headers: { authorization: 'Bearer sk-sim-expected-0123' } })).status).toBe(200);
		expect((await call(`${C}/llm/requests`)).json.map((r: LlmRequestRecord) => r.status)).toEqual([200, 401, 401, 200]);

		expect((await call(`${C}/llm/api-key`, { method: 'DELETE' })).status).toBe(204);
		expect((await chat(chatBody('d'), { authorization: 'Bearer whatever' })).status).toBe(200);
		sim.llm.setApiKey('in-process');
		expect((await call(`${C}/llm/api-key`)).json).toEqual({ apiKey: 'in-process' });
		expect((await call(`${C}/llm`, { method: 'DELETE' })).status).toBe(204);
		expect((await call(`${C}/llm/api-key`)).json).toEqual({ apiKey: null });
	});

	test('GET /v1/models lists model ids; other OpenAI paths answer 404 in OpenAI format', async () => {
		const models = await call(`${sim.llmUrl}/models`, { headers: { authorization: 'Bearer x' } });
		expect(models.status).toBe(200);
		expect(models.json.object).toBe('list');
		expect(models.json.data.map((m: any) => m.id)).toEqual(expect.arrayContaining(['gpt-4o-mini', 'gpt-4o']));
		expect(models.json.data[0]).toMatchObject({ object: 'model', owned_by: expect.any(String), created: expect.any(Number) });
		expect((await call(`${sim.llmUrl}/models/gpt-4o`)).json).toMatchObject({ id: 'gpt-4o', object: 'model' });
		expect((await call(`${sim.llmUrl}/models/nope`)).status).toBe(404);

		const responses = await call(`${sim.llmUrl}/responses`, { json: { model: 'gpt-4o', input: 'hi' } });
		expect(responses.status).toBe(404);
		expect(responses.json.error.message).toMatch(/Use Responses API/);
		expect((await call(completions)).status).toBe(405);
		expect(sim.log.all().filter((e) => e.path.startsWith('/v1/'))).toEqual([]);
	});

	test('the control API checks scripts; sim.llm sets them in-process', async () => {
		for (const turns of [undefined, 'x', [{}], [{ toolCalls: [] }], [{ toolCalls: [{ arguments: {} }] }], [{ toolCalls: [{ name: 'a' }], content: 'b' }], [{ content: 5 }], [{ toolCalls: [{ name: 'a', arguments: 3 }] }]]) {
			const r = await script(turns);
			expect(r.status).toBe(400);
			expect(typeof r.json.error).toBe('string');
		}
		expect((await call(`${C}/llm/script`, { json: { key: '', turns: [] } })).status).toBe(400);
		expect((await call(`${C}/llm/api-key`, { json: { apiKey: 5 } })).status).toBe(400);
		expect((await call(`${C}/llm/nope`)).status).toBe(404);

		sim.llm.setScript([{ content: 'in-process' }], 'ip-key');
		expect(() => sim.llm.setScript([{ toolCalls: [] }] as never)).toThrow(/toolCalls/);
		const r = await chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'ip-key please' }] });
		expect(r.json.choices[0].message.content).toBe('in-process');
		expect(sim.llm.scripts()).toEqual([{ key: 'ip-key', turns: [{ content: 'in-process' }], position: 1 }]);
		expect((await call(`${C}/health`)).json.llmUrl).toBe(sim.llmUrl);
	});
});
