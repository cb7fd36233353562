import { SEED, Simulator } from '../../simulator';
import { RateLimits } from '../../simulator/rateLimit';
import { botToken, call, withSim } from './helpers';

describe('simulator: the platform rate limit (token bucket per interface)', () => {
	test('a bucket refills at its rate up to its burst; Retry-After is the whole seconds until a token, at least 1', () => {
		let now = 0;
		const limits = new RateLimits(() => now);
		limits.set({ rate: 2, burst: 3 }, 'bot');
		expect([1, 2, 3, 4].map(() => limits.admit('bot'))).toEqual([
			{ admitted: true },
			{ admitted: true },
			{ admitted: true },
			{ admitted: false, retryAfterSeconds: 1 },
		]);
		expect(limits.admit('knowledge')).toEqual({ admitted: true });
		now = 400; // 0.8 token: still none
		expect(limits.admit('bot')).toEqual({ admitted: false, retryAfterSeconds: 1 });
		now = 500; // 1 token
		expect(limits.admit('bot')).toEqual({ admitted: true });
		now = 60_000; // full again, never above the burst
		expect([1, 2, 3, 4].map(() => limits.admit('bot').admitted)).toEqual([true, true, true, false]);

		limits.set({ rate: 0.25, burst: 1 });
		expect(limits.admit('task')).toEqual({ admitted: true });
		expect(limits.admit('task')).toEqual({ admitted: false, retryAfterSeconds: 4 });
		expect(limits.list()).toEqual({
			knowledge: { rate: 0.25, burst: 1 },
			bot: { rate: 0.25, burst: 1 },
			image: { rate: 0.25, burst: 1 },
			form: { rate: 0.25, burst: 1 },
			task: { rate: 0.25, burst: 1 },
		});
		limits.set({ rate: 0 }, 'task');
		expect(limits.admit('task')).toEqual({ admitted: true });
		expect(() => limits.set({ rate: 5 }, 'oauth')).toThrow(/interface must be one of/);
		expect(() => limits.set({ rate: -1 })).toThrow(/rate must be/);
	});

	describe('over HTTP', () => {
		let sim: Simulator;
		beforeAll(async () => {
			sim = await withSim({ rateLimit: { rate: 0.5, burst: 2 } });
		});
		afterAll(() => sim.close());

		test('the option limits every API interface; beyond the burst: 429 at once with the interface body, nothing done', async () => {
			const K = { 'x-api-key': sim.credentials.knowledgeApiKey };
			const token = await botToken(sim); // OAuth is never limited
			const bot = { authorization: `Bearer ${token}` };
			const push = { gid: SEED.directChats.alice.gid, tid: SEED.directChats.alice.tid, messages: [{ type: 'text', text: 'hi' }] };
			const answers = [];
			for (let i = 0; i < 3; i++) answers.push(await call(`${sim.url}/bot/v2/message/push`, { headers: bot, json: push }));
			expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
			expect(answers[2].headers['retry-after']).toBe('2');
			expect(answers[2].json).toMatchObject({ status: 'error', code: 'rate_limited' });
			expect(sim.state.sentMessages({ gid: push.gid, tid: push.tid }).filter((m) => JSON.stringify(m.content).includes('"hi"'))).toHaveLength(2);

			// the knowledge bucket is its own
			const kb = await call(`${sim.knowledgeUrl}/knowledge`, { headers: K });
			expect(kb.status).toBe(200);
			const log = sim.log.find({ path: '/bot/v2/message/push' });
			expect(log.map((e) => [e.status, e.rateLimited ?? false])).toEqual([
				[200, false],
				[200, false],
				[429, true],
			]);
			expect(log[2].body).toBeUndefined();
		});

		test('the control API sets, reads and removes limits; reset goes back to the start value', async () => {
			const C = sim.controlUrl;
			const set = await call(`${C}/rate-limit`, { json: { limit: '100/5', interface: 'task' } });
			expect(set.status).toBe(200);
			expect(set.json.task).toEqual({ rate: 100, burst: 5 });
			expect(set.json.bot).toEqual({ rate: 0.5, burst: 2 });
			expect((await call(`${C}/rate-limit`, { json: { rate: 'x' } })).status).toBe(400);
			expect((await call(`${C}/rate-limit`, { method: 'DELETE' })).status).toBe(204);
			expect((await call(`${C}/rate-limit`)).json).toEqual({});
			expect((await call(`${C}/reset`, { method: 'POST' })).status).toBe(204);
			expect((await call(`${C}/rate-limit`)).json.form).toEqual({ rate: 0.5, burst: 2 });
			expect((await call(`${C}/state`)).json.config.rateLimits.knowledge).toEqual({ rate: 0.5, burst: 2 });
		});
	});
});
