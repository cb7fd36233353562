import { sleep } from 'n8n-workflow';

/**
 * Adaptive concurrency and pacing for one node run, shared by all its items' calls.
 *
 * - Calls in flight: starts at START_CONCURRENCY (or the maximum, when lower), grows by one per
 *   answered call up to the node's "Max Concurrency", halves after a lost connection.
 * - Pacing: none until the platform answers 429. After the first 429 calls leave at the rate
 *   the platform let through in the last second, doubled every SLOW_START_DOUBLING_MS while no
 *   call is refused (slow start; at most 4 times what the items really send). A later 429 sets
 *   the platform's rate as learned (what it let through between two refusals, per second) and
 *   cuts to RATE_CUT of it; the rate then grows as TCP CUBIC's window does: back to that rate in
 *   CUBIC_PERIOD_MS, slowly near it, faster beyond it (the limit may have risen).
 * - One reaction per change: a 429 or a lost connection of a call that left before the last cut,
 *   or within two round trips after it, does not cut again.
 * The 429'd call itself waits its Retry-After in the transport, holding no slot meanwhile.
 */
export const START_CONCURRENCY = 4;
const SLOW_START_DOUBLING_MS = 100;
const RATE_CUT = 0.85;
const CUBIC_PERIOD_MS = 4000;
const MIN_RATE = 1;
const MAX_RATE = 100_000;
const MEASURE_WINDOW_MS = 1000;
/** The window of "the rate that was refused". */
const RECENT_WINDOW_MS = 500;
const MIN_CUT_INTERVAL_MS = 50;

/** How a call ended, as far as the limiter is concerned. */
export type CallOutcome = 'answered' | 'throttled' | 'connectionError';

export interface Permit {
	readonly epoch: number;
	readonly departedAt: number;
}

export interface LimiterClock {
	now(): number;
	sleep(ms: number): Promise<void>;
}

const realClock: LimiterClock = { now: () => performance.now(), sleep: async (ms) => await sleep(ms) };

type Pace =
	| { slowStart: true; rateAtCut: number; cutAt: number }
	| { slowStart: false; knownMax: number; cutAt: number };

export class AdaptiveLimiter {
	readonly maxConcurrency: number;
	private limit: number;
	private inFlight = 0;
	private readonly waitingForSlot: Array<() => void> = [];

	private epoch = 0;
	private lastCutAt = -Infinity;
	/** Smoothed round trip of answered calls (ms). */
	private roundTrip = 0;
	/** Pacing: undefined until the platform first refuses a call. */
	private pace?: Pace;
	private nextDeparture = 0;
	private readonly waitingForDeparture: Array<() => void> = [];
	private pacerRunning = false;
	/** When calls were answered (not refused) and when calls left, over the last second. */
	private readonly answeredAt: number[] = [];
	private readonly departedAt: number[] = [];
	/** Calls answered since the last cut. */
	private answeredSinceCut = 0;

	constructor(
		maxConcurrency: number,
		private readonly clock: LimiterClock = realClock,
	) {
		this.maxConcurrency = Math.max(1, Math.floor(maxConcurrency));
		this.limit = Math.min(this.maxConcurrency, START_CONCURRENCY);
	}

	/** The current limit of calls in flight (whole calls). */
	get concurrency(): number {
		return Math.max(1, Math.floor(this.limit));
	}

	/** The pacing rate now (calls per second), or undefined while calls are not paced. */
	rate(now = this.clock.now()): number | undefined {
		const pace = this.pace;
		if (!pace) return undefined;
		const elapsed = Math.max(0, now - pace.cutAt);
		const rate = pace.slowStart
			? // doubling, but never far above what the items really send (they may be waiting out a 429)
				Math.min(pace.rateAtCut * 2 ** (elapsed / SLOW_START_DOUBLING_MS), Math.max(pace.rateAtCut, 4 * this.recentRate(this.departedAt, now, RECENT_WINDOW_MS)))
			: pace.knownMax * (1 - (1 - RATE_CUT) * (1 - elapsed / CUBIC_PERIOD_MS) ** 3);
		return Math.min(MAX_RATE, Math.max(MIN_RATE, rate));
	}

	/** Waits for a slot and, when paced, for the call's turn to leave. */
	async acquire(): Promise<Permit> {
		if (this.inFlight < this.concurrency && this.waitingForSlot.length === 0) this.inFlight++;
		// else the slot is handed over (and counted) by the call that frees it
		else await new Promise<void>((resolve) => this.waitingForSlot.push(resolve));
		if (this.pace) {
			await new Promise<void>((resolve) => {
				this.waitingForDeparture.push(resolve);
				void this.runPacer();
			});
		}
		const departedAt = this.clock.now();
		remember(this.departedAt, departedAt);
		return { epoch: this.epoch, departedAt };
	}

	release(permit: Permit, outcome: CallOutcome): void {
		const now = this.clock.now();
		// Cut only for calls that left after the last cut's effect could be seen.
		const fresh = permit.epoch === this.epoch && now - this.lastCutAt >= Math.max(MIN_CUT_INTERVAL_MS, 2 * this.roundTrip);
		if (outcome === 'answered') {
			const sample = now - permit.departedAt;
			this.roundTrip = this.roundTrip === 0 ? sample : 0.8 * this.roundTrip + 0.2 * sample;
			remember(this.answeredAt, now);
			this.answeredSinceCut++;
			this.limit = Math.min(this.maxConcurrency, this.limit + 1);
		} else if (outcome === 'throttled') {
			if (fresh) this.cutRate(now);
		} else if (fresh) {
			this.limit = Math.max(1, this.limit / 2);
			this.newEpoch(now);
		}
		this.inFlight--;
		while (this.waitingForSlot.length && this.inFlight < this.concurrency) {
			this.inFlight++;
			this.waitingForSlot.shift()?.();
		}
	}

	private newEpoch(now: number): void {
		this.epoch++;
		this.answeredSinceCut = 0;
		this.lastCutAt = now;
	}

	/** Calls per second over the last `ms`. */
	private recentRate(times: number[], now: number, ms: number): number {
		return (times.filter((t) => t >= now - ms).length * 1000) / ms;
	}

	private cutRate(now: number): void {
		const current = this.rate(now);
		if (current === undefined || !this.pace) {
			// First refusal: start from what went through, and probe upwards.
			this.pace = { slowStart: true, rateAtCut: Math.max(MIN_RATE, this.recentRate(this.answeredAt, now, MEASURE_WINDOW_MS)), cutAt: now };
		} else {
			// The rate that was refused: what was really sent (the pacing rate may be above what
			// the items asked for), at most what the platform let through (its rate plus a burst).
			const refused = Math.min(current, this.recentRate(this.departedAt, now, RECENT_WINDOW_MS));
			// Between two refusals outside slow start the platform's bucket was empty at both ends,
			// so what it let through in between, per second, is its rate (the refused rate
			// overshoots it). Within a second of a cut that is too short to tell.
			const sinceCut = now - this.lastCutAt;
			const settled = !this.pace.slowStart && sinceCut >= MEASURE_WINDOW_MS;
			const knownMax = settled ? Math.min(refused, (this.answeredSinceCut * 1000) / sinceCut) : refused;
			this.pace = { slowStart: false, knownMax: Math.max(MIN_RATE, knownMax), cutAt: now };
		}
		this.newEpoch(now);
	}

	/** Lets paced calls leave one at a time, at the current rate. */
	private async runPacer(): Promise<void> {
		if (this.pacerRunning) return;
		this.pacerRunning = true;
		try {
			while (this.waitingForDeparture.length) {
				const now = this.clock.now();
				const interval = 1000 / (this.rate(now) ?? MAX_RATE);
				const wait = this.nextDeparture - now;
				if (wait > 0) {
					await this.clock.sleep(wait);
					continue;
				}
				// A late wake-up may catch up one interval, never more (no bursts).
				this.nextDeparture = Math.max(this.nextDeparture, now - interval) + interval;
				this.waitingForDeparture.shift()?.();
			}
		} finally {
			this.pacerRunning = false;
		}
	}
}

/** Keeps the times of the last MEASURE_WINDOW_MS (they come in order). */
function remember(times: number[], now: number): void {
	times.push(now);
	while (times.length && times[0] < now - MEASURE_WINDOW_MS) times.shift();
}

/** The limiter of a node run, handed over by the router (as the retry policy is). */
const handedLimiters = new WeakMap<object, AdaptiveLimiter>();

export function handLimiter(ctx: object, limiter: AdaptiveLimiter): void {
	handedLimiters.set(ctx, limiter);
}

/** The node run's limiter; undefined for load-options, credential-test and webhook calls. */
export function getLimiter(ctx: object): AdaptiveLimiter | undefined {
	return handedLimiters.get(ctx);
}
