import { AdaptiveLimiter, START_CONCURRENCY, type LimiterClock } from '../../nodes/shared/transport/limiter';
import { runBot } from '../bot/bot.fixtures';
import { runTask } from '../task/task.fixtures';
import { useSimulator } from '../helpers/simulator';

/** A clock that only moves when told; sleepers wake when it passes their time. */
class FakeClock implements LimiterClock {
	time = 0;
	private sleepers: Array<{ until: number; wake: () => void }> = [];
	now = () => this.time;
	sleep = async (ms: number) => await new Promise<void>((wake) => this.sleepers.push({ until: this.time + ms, wake }));
	async advance(ms: number): Promise<void> {
		const end = this.time + ms;
		for (;;) {
			await flush();
			const next = this.sleepers.filter((s) => s.until <= end).sort((a, b) => a.until - b.until)[0];
			if (!next) break;
			this.time = Math.max(this.time, next.until);
			this.sleepers = this.sleepers.filter((s) => s !== next);
			next.wake();
		}
		this.time = end;
		await flush();
	}
}

const flush = async () => {
	for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('AdaptiveLimiter (fake clock)', () => {
	test('starts at START_CONCURRENCY calls in flight, grows by one per answer, never above the maximum', async () => {
		const clock = new FakeClock();
		const limiter = new AdaptiveLimiter(6, clock);
		expect(limiter.concurrency).toBe(Math.min(6, START_CONCURRENCY));
		let granted = 0;
		let inFlight = 0;
		let maxInFlight = 0;
		const permits = Array.from({ length: 10 }, () =>
			limiter.acquire().then((p) => {
				granted++;
				maxInFlight = Math.max(maxInFlight, ++inFlight);
				return p;
			}),
		);
		const release = async (i: number) => {
			limiter.release(await permits[i], 'answered');
			inFlight--;
		};
		await flush();
		expect(granted).toBe(START_CONCURRENCY);
		// one answer frees one slot and adds one: two more calls may go
		await release(0);
		await flush();
		expect(granted).toBe(START_CONCURRENCY + 2);
		for (let i = 1; i < 10; i++) {
			if (i < granted) await release(i);
			await flush();
		}
		expect(granted).toBe(10);
		expect(limiter.concurrency).toBe(6);
		expect(maxInFlight).toBeLessThanOrEqual(6);
		expect(limiter.rate()).toBeUndefined();
	});

	test('a 429 starts pacing at what went through, one cut per change; a lost connection halves the calls in flight', async () => {
		const clock = new FakeClock();
		const limiter = new AdaptiveLimiter(50, clock);
		for (let i = 0; i < 10; i++) limiter.release(await limiter.acquire(), 'answered');
		expect(limiter.concurrency).toBe(14);
		const a = await limiter.acquire();
		const b = await limiter.acquire();
		limiter.release(a, 'throttled');
		// the ten answered calls of the last second
		expect(limiter.rate()).toBe(10);
		limiter.release(b, 'throttled'); // left before the cut: no second cut (which would lower the rate)
		expect(limiter.rate()).toBe(10);

		// paced: calls leave one per 100 ms
		const departures: number[] = [];
		const paced = Array.from({ length: 3 }, () => limiter.acquire().then((p) => (departures.push(clock.time), p)));
		await clock.advance(250);
		expect(departures.length).toBeGreaterThanOrEqual(2);
		expect(departures[1] - departures[0]).toBeGreaterThanOrEqual(50);
		await clock.advance(1000);
		for (const p of paced) limiter.release(await p, 'answered');

		const before = limiter.concurrency;
		await clock.advance(5000); // past two round trips since the cut
		const c = await limiter.acquire();
		limiter.release(c, 'connectionError');
		expect(limiter.concurrency).toBe(Math.floor(before / 2));
	});
});

describe('Adaptive concurrency in a node run (engine, simulator)', () => {
	const sim = useSimulator({ latencyMs: 5 });
	afterEach(() => sim.rateLimits.clear());

	function conversations(count: number, itemsEach: number) {
		const uids = Array.from({ length: count }, (_, n) => sim.state.addUser({ username: `limit${n}-${Date.now()}` })._id);
		const inputItems = Array.from({ length: count * itemsEach }, (_, n) => ({
			json: { uid: uids[n % count], text: `item ${n}` },
		}));
		return { uids, inputItems };
	}

	const sendText = { resource: 'directMessage', operation: 'sendText', userId: '={{ $json.uid }}', text: '={{ $json.text }}' };

	test('under a platform rate limit: every item exactly once, item order kept per conversation, each 429 sent again', async () => {
		const { uids, inputItems } = conversations(8, 15);
		sim.rateLimits.set({ rate: 40, burst: 5 }, 'bot');
		const run = await runBot(sim, sendText, { inputItems });
		expect(run.error).toBeUndefined();
		expect(run.items.map((i) => i.pairedItem)).toEqual(inputItems.map((_, item) => ({ item })));
		const sends = sim.log.find({ method: 'POST', path: '/bot/v1/direct/message' });
		const refused = sends.filter((r) => r.status === 429);
		expect(refused.length).toBeGreaterThan(0);
		expect(refused.every((r) => r.rateLimited)).toBe(true);
		expect(sends.filter((r) => r.status === 201)).toHaveLength(inputItems.length);
		for (const [c, uid] of uids.entries()) {
			const expected = inputItems.filter((_, n) => n % uids.length === c).map((i) => ({ text: i.json.text }));
			expect(sim.state.sentMessages({ uid }).map((m) => m.content)).toEqual(expected);
		}
	});

	test('one conversation under a limit of 1 call per second: after each 429 the next call waits its Retry-After', async () => {
		const { inputItems } = conversations(1, 4);
		sim.rateLimits.set({ rate: 1, burst: 1 }, 'bot');
		const run = await runBot(sim, sendText, { inputItems });
		expect(run.error).toBeUndefined();
		const sends = sim.log.find({ method: 'POST', path: '/bot/v1/direct/message' });
		expect(sends.filter((r) => r.status === 201).map((r) => (r.body as { message: { data: string } }).message.data)).toEqual(
			inputItems.map((i) => i.json.text),
		);
		const refused = sends.filter((r) => r.status === 429);
		expect(refused.length).toBeGreaterThan(0);
		for (const r of refused) {
			const next = sends.find((s) => s.seq > r.seq);
			expect(next).toBeDefined();
			// at 1 call per second Retry-After is always 1
			expect(next!.time - r.time).toBeGreaterThanOrEqual(950);
		}
	});

	test('"Max Concurrency" (saved as concurrency) caps the calls the platform sees at once', async () => {
		const { inputItems } = conversations(30, 2);
		const run = await runBot(sim, { ...sendText, requestOptions: { concurrency: 3 } }, { inputItems });
		expect(run.error).toBeUndefined();
		const sends = sim.log.find({ method: 'POST', path: '/bot/v1/direct/message' });
		expect(sends).toHaveLength(60);
		expect(Math.max(...sends.map((r) => r.inFlight ?? 0))).toBe(3);
	});

	test('Task creates run at once and each is sent exactly once, under a rate limit too', async () => {
		sim.rateLimits.set({ rate: 30, burst: 3 }, 'task');
		const titles = Array.from({ length: 40 }, (_, n) => `Adaptive task ${n}`);
		const run = await runTask(sim, { taskTitle: '={{ $json.title }}' }, { inputItems: titles.map((title) => ({ json: { title } })) });
		expect(run.error).toBeUndefined();
		const created = sim.state.tasks().filter((t) => t.taskTitle.startsWith('Adaptive task'));
		expect(created.map((t) => t.taskTitle).sort()).toEqual([...titles].sort());
		const posts = sim.log.find({ method: 'POST', path: '/api/v1/task-projects/tasks' });
		expect(posts.filter((r) => r.status === 201)).toHaveLength(40);
		expect(posts.filter((r) => r.status !== 201).every((r) => r.status === 429 && r.rateLimited)).toBe(true);
		expect(Math.max(...posts.map((r) => r.inFlight ?? 0))).toBeGreaterThan(1);
		expect(run.items.map((i) => i.json.taskTitle)).toEqual(titles);
	});
});

