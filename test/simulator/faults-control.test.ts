import { request } from 'undici';
import { SEED, Simulator } from '../../simulator';
import { botToken, call, withSim } from './helpers';

describe('simulator: faults, latency, log and control API', () => {
	let sim: Simulator;
	let K: Record<string, string>;
	beforeAll(async () => {
		sim = await withSim();
		K = { 'x-api-key': sim.credentials.knowledgeApiKey };
	});
	afterAll(() => sim.close());
	beforeEach(() => {
		sim.state.reset();
		sim.faults.clear();
		sim.log.clear();
		sim.setLatency(0);
	});

	test('429 fault answers the interface rate-limit body with Retry-After, counted by times', async () => {
		const id = sim.faults.add({ interface: 'knowledge', status: 429, retryAfter: 2, times: 2 });
		const a = await call(`${sim.knowledgeUrl}/knowledge`, { headers: K });
		expect(a.status).toBe(429);
		expect(a.headers['retry-after']).toBe('2');
		expect(a.json).toEqual({ name: 'RateLimitExceededException', code: 429001, status: 429, message: expect.any(String), errors: [] });
		expect((await call(`${sim.knowledgeUrl}/knowledge`, { headers: K })).status).toBe(429);
		expect((await call(`${sim.knowledgeUrl}/knowledge`, { headers: K })).status).toBe(200);
		const log = sim.log.find({ interface: 'knowledge' });
		expect(log.map((e) => [e.status, e.fault])).toEqual([
			[429, id],
			[429, id],
			[200, undefined],
		]);
	});

	test('fault bodies per interface, path regex and method matching', async () => {
		sim.faults.add({ path: /^\/bot\/v2\//, status: 503 });
		sim.faults.add({ method: 'POST', path: '/api/v1/task-projects/tasks', status: 429 });
		const t = await botToken(sim);
		const b = await call(`${sim.url}/bot/v2/groups/users/${SEED.users.bob._id}`, { headers: { authorization: `Bearer ${t}` } });
		expect(b.status).toBe(503);
		expect(b.json).toMatchObject({ status: 'error', code: 'service_unavailable' });
		const task = await call(`${sim.url}/api/v1/task-projects/tasks`, { headers: { authorization: `Bearer ${sim.credentials.taskJwt}` }, json: { taskTitle: 'x' } });
		expect(task.status).toBe(429);
		expect(task.headers['retry-after']).toBe('1');
		expect(task.json).toMatchObject({ error: 'TooManyRequests', details: [] });
		expect(sim.state.tasks()).toHaveLength(1);
	});

	test('reset fault destroys the connection; afterHandler applies the change but loses the answer', async () => {
		sim.faults.add({ path: '/api/v1/knowledge', method: 'POST', reset: true });
		await expect(call(`${sim.knowledgeUrl}/knowledge`, { headers: K, json: { name: 'lost' } })).rejects.toThrow();
		expect(sim.state.knowledgeBases()).toHaveLength(3);
		sim.faults.add({ path: '/api/v1/knowledge', method: 'POST', reset: true, afterHandler: true });
		await expect(call(`${sim.knowledgeUrl}/knowledge`, { headers: K, json: { name: 'processed' } })).rejects.toThrow();
		expect(sim.state.knowledgeBases().map((k) => k.name)).toContain('processed');
		const entries = sim.log.find({ method: 'POST' });
		expect(entries.every((e) => e.status === 0 && e.fault)).toBe(true);
		expect(entries[1].body).toEqual({ name: 'processed' });
	});

	test('latency: global and per fault rule', async () => {
		sim.setLatency(150);
		let t0 = Date.now();
		await call(`${sim.knowledgeUrl}/knowledge`, { headers: K });
		expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
		// control requests are not delayed
		t0 = Date.now();
		await call(`${sim.controlUrl}/health`);
		expect(Date.now() - t0).toBeLessThan(140);
		sim.setLatency(0);
		sim.faults.add({ interface: 'knowledge', latencyMs: 150 });
		t0 = Date.now();
		const r = await call(`${sim.knowledgeUrl}/knowledge`, { headers: K });
		expect(r.status).toBe(200);
		expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
		// a delay before the body is read must not lose the body
		sim.faults.add({ interface: 'knowledge', method: 'POST', latencyMs: 100 });
		const created = await call(`${sim.knowledgeUrl}/knowledge`, { headers: K, json: { name: 'after delay' } });
		expect(created.status).toBe(201);
		expect(created.json.name).toBe('after delay');
	});

	test('log records method, path, query, lower-cased headers, parsed bodies; control requests are not logged', async () => {
		await call(`${sim.knowledgeUrl}/knowledge?page=1&x=a&x=b`, { headers: { ...K, 'X-Custom': 'v' } });
		await call(`${sim.url}/oauth/token`, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&uids[]=1&uids[]=2' });
		await call(`${sim.controlUrl}/state`);
		const all = sim.log.all();
		expect(all).toHaveLength(2);
		expect(all[0]).toMatchObject({ method: 'GET', path: '/api/v1/knowledge', query: { page: '1', x: ['a', 'b'] }, interface: 'knowledge', status: 200 });
		expect(all[0].headers['x-custom']).toBe('v');
		expect(all[1]).toMatchObject({ interface: 'oauth', status: 401, body: { grant_type: 'client_credentials', 'uids[]': ['1', '2'] } });
		expect(all[1].seq).toBeGreaterThan(all[0].seq);
	});

	test('control HTTP API: faults, requests?since, expire-tokens, latency, reset, state, credentials', async () => {
		const add = await call(`${sim.controlUrl}/faults`, { json: { pathRegex: '^/api/v1/knowledge$', status: 500, times: 'Infinity' } });
		expect(add.status).toBe(201);
		expect((await call(`${sim.knowledgeUrl}/knowledge`, { headers: K })).status).toBe(500);
		expect((await call(`${sim.knowledgeUrl}/knowledge`, { headers: K })).status).toBe(500);
		expect((await call(`${sim.controlUrl}/faults`)).json[0]).toMatchObject({ id: add.json.id, pathRegex: expect.stringContaining('knowledge'), remaining: 'Infinity' });
		expect((await call(`${sim.controlUrl}/faults`, { method: 'DELETE' })).status).toBe(204);
		expect((await call(`${sim.knowledgeUrl}/knowledge`, { headers: K })).status).toBe(200);

		const reqs = await call(`${sim.controlUrl}/requests`);
		expect(reqs.json).toHaveLength(3);
		const since = await call(`${sim.controlUrl}/requests?since=${reqs.json[1].seq}`);
		expect(since.json).toHaveLength(1);
		expect((await call(`${sim.controlUrl}/requests`, { method: 'DELETE' })).status).toBe(204);
		expect((await call(`${sim.controlUrl}/requests`)).json).toEqual([]);

		const t = await botToken(sim);
		expect((await call(`${sim.controlUrl}/expire-tokens`, { method: 'POST' })).status).toBe(204);
		expect((await call(`${sim.url}/bot/v2/groups/users/${SEED.users.bob._id}`, { headers: { authorization: `Bearer ${t}` } })).status).toBe(401);

		expect((await call(`${sim.controlUrl}/latency`, { json: { ms: 25 } })).json).toEqual({ ms: 25 });
		await call(`${sim.knowledgeUrl}/knowledge`, { headers: K, json: { name: 'temp' } });
		const state = await call(`${sim.controlUrl}/state`);
		expect(state.json.latencyMs).toBe(25);
		expect(state.json.knowledgeBases).toHaveLength(4);
		expect(state.json.issuedTokens).toBe(1);
		expect((await call(`${sim.controlUrl}/reset`, { method: 'POST' })).status).toBe(204);
		const after = await call(`${sim.controlUrl}/state`);
		expect(after.json.knowledgeBases).toHaveLength(3);
		expect(after.json.latencyMs).toBe(0);
		const creds = await call(`${sim.controlUrl}/credentials`);
		expect(creds.json).toMatchObject({ ...sim.credentials, taskReadOnlyJwt: expect.any(String) });
	});

	test('status fault before the body is read (afterBody: false) still answers', async () => {
		sim.faults.add({ interface: 'knowledge', status: 503, afterBody: false });
		const res = await request(`${sim.knowledgeUrl}/knowledge`, { method: 'POST', headers: { ...K, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x' }) });
		expect(res.statusCode).toBe(503);
		await res.body.dump();
		expect(sim.log.all()[0]).toMatchObject({ status: 503, fault: expect.any(String) });
	});
});

describe('simulator: the 401 body shape switch (option unauthorizedBody, POST /__sim/config)', () => {
	let sim: Simulator;
	afterEach(() => sim.close());

	// One 401 per interface: knowledge, OAuth, bot (v1 and v2), image, form, task.
	const unauthorized = (s: Simulator) => [
		call(`${s.knowledgeUrl}/knowledge`, { headers: { 'x-api-key': 'wrong' } }),
		call(`${s.url}/oauth/token`, {
			headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
			body: 'grant_type=client_credentials',
		}),
		call(`${s.url}/bot/v1/users?username=alice`, { headers: { authorization: 'Bearer wrong' } }),
		call(`${s.url}/bot/v2/groups/users/${SEED.users.bob._id}`),
		call(`${s.url}/file/image/${SEED.pictures.first}`),
		call(`${s.url}/v1/forms`, { headers: { 'x-api-key': 'wrong', 'x-api-token': 'wrong' }, json: {} }),
		call(`${s.url}/api/v1/task-projects/tasks`, { headers: { authorization: 'Bearer wrong' }, json: {} }),
	];

	test('interface (default): each interface keeps its own 401 body', async () => {
		sim = await withSim();
		const answers = await Promise.all(unauthorized(sim));
		expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401, 401]);
		expect(answers.map((a) => a.json.name ?? a.json.code ?? a.json.error)).toEqual([
			'UnauthorizedException',
			'invalid_client',
			'invalid_token',
			'unauthorized',
			'unauthorized',
			'unauthorized',
			'Unauthorized',
		]);
		expect((await call(`${sim.controlUrl}/state`)).json.config.unauthorizedBody).toBe('interface');
	});

	test('plain, framework and empty, set at start or through the control API, keep the message and the headers', async () => {
		sim = await withSim({ unauthorizedBody: 'plain' });
		const plain = await Promise.all(unauthorized(sim));
		for (const a of plain) {
			expect(a.status).toBe(401);
			expect(a.json).toEqual({ error: 'unauthorized', message: expect.any(String) });
		}
		expect(plain[0].json.message).toBe('Invalid API key');
		expect(plain[1].json.message).toBe('Client authentication failed: unknown client or wrong secret');
		expect(plain[1].headers['www-authenticate']).toBe('Basic realm="oauth"');

		expect((await call(`${sim.controlUrl}/config`, { json: { unauthorizedBody: 'framework' } })).json.unauthorizedBody).toBe('framework');
		for (const a of await Promise.all(unauthorized(sim))) {
			expect(a.json).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.any(String) });
		}

		await call(`${sim.controlUrl}/config`, { json: { unauthorizedBody: 'empty' } });
		for (const a of await Promise.all(unauthorized(sim))) {
			expect([a.status, a.text, a.headers['content-type'], a.headers['content-length']]).toEqual([401, '', undefined, '0']);
		}
		// Other statuses keep their bodies, a fault with its own 401 body sends it as given, and a reset keeps the shape.
		expect((await call(`${sim.url}/api/v1/task-projects/tasks`, { headers: { authorization: `Bearer ${sim.state.taskReadOnlyJwt}` }, json: {} })).json).toMatchObject({ error: 'Forbidden' });
		sim.faults.add({ interface: 'knowledge', status: 401, body: { custom: true } });
		expect((await call(`${sim.knowledgeUrl}/knowledge`, { headers: { 'x-api-key': sim.credentials.knowledgeApiKey } })).json).toEqual({ custom: true });
		await call(`${sim.controlUrl}/reset`, { method: 'POST' });
		expect((await call(`${sim.controlUrl}/state`)).json.config.unauthorizedBody).toBe('empty');
	});

	test('an unknown shape is refused', async () => {
		sim = await withSim();
		const answer = await call(`${sim.controlUrl}/config`, { json: { unauthorizedBody: 'xml', latencyMs: 5 } });
		expect(answer.status).toBe(400);
		expect(answer.json.error).toMatch(/unauthorizedBody must be one of interface, plain, framework, empty/);
		expect((await call(`${sim.controlUrl}/latency`)).json).toEqual({ ms: 0 });
		await expect(withSim({ unauthorizedBody: 'xml' as never })).rejects.toThrow(/unauthorizedBody/);
	});
});
