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
