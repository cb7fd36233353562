/**
 * Virtual time and simulated n8n processes for the model of n8n (n8n-model.ts): jest's fake timers
 * run minutes of a schedule in milliseconds, and every timer remembers the process that set it, so
 * the package's process memory (processMemory.ts) is that process's whenever its code goes on. A
 * restart gives a process an empty memory and drops every timer it had set: its sleeps never end,
 * as in a killed process.
 */
import { runAsProcessForTests } from '../../nodes/shared/processMemory';

/** One simulated n8n process: its name, and how often it was started (a restart adds one). */
export interface Proc {
	name: string;
	incarnation: number;
}

/** A seeded random source (mulberry32): every choice of a schedule comes from it, so its seed reproduces it. */
export class Rng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0 || 1;
	}

	next(): number {
		let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/** A whole number from min to max, both included. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	chance(p: number): boolean {
		return this.next() < p;
	}

	pick<T>(values: readonly T[]): T {
		return values[this.int(0, values.length - 1)];
	}

	hex(length: number): string {
		let out = '';
		while (out.length < length) out += this.int(0, 15).toString(16);
		return out;
	}
}

/** The most timer firings one schedule may take: a schedule that runs past it never settles. */
const MAX_STEPS = 200_000;

type TimerFn = (callback: () => void, ms?: number) => ReturnType<typeof setTimeout>;

/** Lets every promise chain that can go on without a timer go on (setImmediate stays real). */
async function settle(): Promise<void> {
	await new Promise<void>((resolve) => setImmediate(resolve));
}

export class VirtualWorld {
	readonly processes: Proc[];

	private current: Proc | undefined;

	private readonly fakeSetTimeout: TimerFn;

	constructor(names: string[], startAt: number) {
		jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'], now: startAt });
		this.fakeSetTimeout = globalThis.setTimeout as unknown as TimerFn;
		// Each timer is the process's that set it: it goes on as that process, unless it restarted.
		globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
			const owner = this.current;
			const incarnation = owner?.incarnation;
			return this.fakeSetTimeout(() => {
				if (owner && owner.incarnation !== incarnation) return;
				this.become(owner);
				callback(...args);
			}, ms);
		}) as unknown as typeof setTimeout;
		this.processes = names.map((name) => ({ name, incarnation: 0 }));
		runAsProcessForTests('', true);
	}

	/** Stops the fake timers; the world cannot be used afterwards. */
	close(): void {
		globalThis.setTimeout = this.fakeSetTimeout as unknown as typeof setTimeout;
		jest.clearAllTimers();
		jest.useRealTimers();
		this.current = undefined;
	}

	/** The process whose code runs now (undefined: the platform or the test). */
	get running(): Proc | undefined {
		return this.current;
	}

	/** Makes the package's process memory `proc`'s (the platform's and the test's is an empty one). */
	become(proc: Proc | undefined): void {
		this.current = proc;
		runAsProcessForTests(proc ? `${proc.name}#${proc.incarnation}` : '');
	}

	/** Runs `work` as `proc` after `ms` of virtual time (never, if `proc` restarts meanwhile). */
	at(proc: Proc | undefined, ms: number, work: () => void): void {
		const before = this.current;
		this.current = proc;
		setTimeout(work, Math.max(0, Math.round(ms)));
		this.current = before;
	}

	/** A restart: the process's memory and its timers are gone. */
	restart(proc: Proc): void {
		proc.incarnation++;
		const before = this.current;
		this.become(proc);
		runAsProcessForTests(`${proc.name}#${proc.incarnation}`, true);
		this.become(before);
	}

	/** Runs the timers in time order until none is left or virtual time passes `until` (ms since the epoch). */
	async run(until: number): Promise<'quiet' | 'timeUp'> {
		for (let steps = 0; ; steps++) {
			await settle();
			if (jest.getTimerCount() === 0) return 'quiet';
			if (Date.now() > until) return 'timeUp';
			if (steps > MAX_STEPS) throw new Error(`the schedule did not settle within ${MAX_STEPS} timer firings`);
			jest.advanceTimersToNextTimer();
		}
	}
}
