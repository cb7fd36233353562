/**
 * The watchdog behind every call's time limit (nodes/shared/transport/timeLimit.ts): progress
 * restarts it, a hold (the token request a call waits for) pauses it up to a bound, a stopped one
 * never fires. Short real timers; the engine tests in test/timeouts/ show the node's behaviour.
 */
import { isClientTimeout, secondsText, TIMED_OUT, Watchdog, withinLimit } from '../../nodes/shared/transport/timeLimit';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `watchdog` has fired by now. */
async function fired(watchdog: Watchdog): Promise<boolean> {
	return (await Promise.race([watchdog.expired.then(() => true), wait(0).then(() => false)])) as boolean;
}

describe('time limits: the watchdog', () => {
	it('fires after its limit without progress; progress restarts it', async () => {
		// gaps of a fifth of the limit (a loaded CI machine may stretch a timer), 1.2 times the limit in all
		const watchdog = new Watchdog(1000);
		for (let i = 0; i < 6; i++) {
			await wait(200);
			watchdog.touch();
		}
		expect(await fired(watchdog)).toBe(false);
		await wait(1500);
		expect(await fired(watchdog)).toBe(true);
		expect(watchdog.ranOut).toBe(true);
	});

	it('a stopped watchdog never fires', async () => {
		const watchdog = new Watchdog(50);
		watchdog.stop();
		await wait(150);
		expect(await fired(watchdog)).toBe(false);
		expect(watchdog.ranOut).toBe(false);
	});

	it('does not run out while held (up to its limit plus the client grace); release restarts it', async () => {
		const watchdog = new Watchdog(400);
		watchdog.hold();
		await wait(600);
		expect(await fired(watchdog)).toBe(false);
		watchdog.release();
		await wait(50);
		expect(await fired(watchdog)).toBe(false);
		await wait(800);
		expect(await fired(watchdog)).toBe(true);
	});

	it('withinLimit: the work\'s result, or TIMED_OUT when the limit ran out first', async () => {
		expect(await withinLimit(Promise.resolve('answer'), new Watchdog(1000))).toBe('answer');
		const slow = new Watchdog(50);
		expect(await withinLimit(new Promise(() => undefined), slow)).toBe(TIMED_OUT);
	});

	it('knows the HTTP client\'s own timeout error, also wrapped, and no other', () => {
		expect(isClientTimeout({ code: 'ECONNABORTED', message: 'timeout of 1000ms exceeded' })).toBe(true);
		expect(isClientTimeout({ name: 'NodeApiError', cause: { code: 'ETIMEDOUT', message: 'timeout of 2000ms exceeded' } })).toBe(true);
		expect(isClientTimeout({ code: 'ECONNRESET', message: 'socket hang up' })).toBe(false);
		expect(isClientTimeout({ code: 'ETIMEDOUT', message: 'connect ETIMEDOUT 10.0.0.1:443' })).toBe(false);
		expect(isClientTimeout(undefined)).toBe(false);
		expect([secondsText(60_000), secondsText(1500), secondsText(20_000)]).toEqual(['60 s', '1.5 s', '20 s']);
	});
});

describe('time limits: pause on an n8n-workflow without sleepWithAbort (n8n 1.100.1, 2.41.1)', () => {
	/** timeLimit.ts loaded against an n8n-workflow that has sleep only. */
	function pauseWithoutSleepWithAbort(): typeof import('../../nodes/shared/transport/timeLimit').pause {
		let loaded: typeof import('../../nodes/shared/transport/timeLimit') | undefined;
		jest.isolateModules(() => {
			jest.doMock('n8n-workflow', () => ({ sleep: async (ms: number) => await wait(ms), sleepWithAbort: undefined }));
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			loaded = require('../../nodes/shared/transport/timeLimit') as typeof import('../../nodes/shared/transport/timeLimit');
		});
		jest.dontMock('n8n-workflow');
		return loaded!.pause;
	}

	it('ends on the abort, long before its time (the wait of One Run per Conversation relies on it)', async () => {
		const pause = pauseWithoutSleepWithAbort();
		const controller = new AbortController();
		const started = performance.now();
		const paused = pause(5000, controller.signal);
		await wait(50);
		controller.abort('turn came');
		await paused;
		expect(performance.now() - started).toBeLessThan(2000);
	});

	it('an aborted signal ends it at once; without an abort it runs its time', async () => {
		const pause = pauseWithoutSleepWithAbort();
		const aborted = new AbortController();
		aborted.abort('done');
		let started = performance.now();
		await pause(5000, aborted.signal);
		expect(performance.now() - started).toBeLessThan(1000);
		started = performance.now();
		await pause(100, new AbortController().signal);
		expect(performance.now() - started).toBeGreaterThanOrEqual(90);
	});
});
