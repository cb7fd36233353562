/**
 * What the engine test files share about the simulator: useSimulator() at the top of a file (or
 * of a describe block) starts one simulator before its tests, stops it after them and resets it
 * before each test; only() picks the one request a run made from its log.
 */
import { startSimulator, type LoggedRequest, type Simulator } from '../../simulator';

export interface SimulatorHooks {
	/** Before each test: reseed the state and drop every fault rule (default true). */
	reset?: boolean;
	/** Before each test: empty the request log too (default false). */
	clearLog?: boolean;
	/** Before each test: set this latency in ms (default: leave it as it is). */
	latencyMs?: number;
}

/**
 * Registers beforeAll (start on a free port), afterAll (close) and beforeEach (reset) and returns
 * the simulator: a stand-in that forwards to the one beforeAll started, so it can be used like a
 * started simulator anywhere inside hooks and tests.
 */
export function useSimulator(hooks: SimulatorHooks = {}): Simulator {
	let started: Simulator | undefined;
	const current = (): Simulator => {
		if (!started) throw new Error('the simulator is used outside a test or hook (useSimulator starts it in beforeAll)');
		return started;
	};
	beforeAll(async () => {
		started = await startSimulator({ port: 0 });
	});
	afterAll(async () => await started?.close());
	beforeEach(() => {
		const sim = current();
		if (hooks.reset ?? true) {
			sim.state.reset();
			sim.faults.clear();
		}
		if (hooks.clearLog) sim.log.clear();
		if (hooks.latencyMs !== undefined) sim.setLatency(hooks.latencyMs);
	});
	return new Proxy({} as Simulator, {
		get: (_, key) => {
			const sim = current();
			const value: unknown = Reflect.get(sim, key, sim);
			return typeof value === 'function' ? value.bind(sim) : value;
		},
		has: (_, key) => Reflect.has(current(), key),
	});
}

/** The single request a run made; fails loudly when there were more or fewer. */
export function only(requests: LoggedRequest[]): LoggedRequest {
	if (requests.length !== 1) {
		throw new Error(
			`expected exactly one request, got ${requests.length}: ${requests.map((r) => `${r.method} ${r.path} ${r.status}`).join(', ')}`,
		);
	}
	return requests[0];
}
