/**
 * When a test file is over, the waits its nodes left running end, as they end with n8n's process.
 * The package waits with n8n-workflow's sleep and sleepWithAbort, also where nothing awaits it: the
 * trigger posts to its own URL 3 s, 45 s and 400 s after a counted tap or a reminder's change
 * (WorkplaceTrigger/approvals/ownUrl.ts, postLater). Such a wait kept jest from exiting for minutes.
 *
 * Both are replaced, for every module of the file (the nodes in dist/ and build/, n8n-core), by the
 * same waits keeping their timers; after the file's tests the pending ones are cleared, and a wait
 * started later never ends. A setup file (jest.config.js), first: before n8n-workflow is loaded.
 */
import type * as Workflow from 'n8n-workflow';

type WorkflowModule = typeof Workflow;

const timers = new Set<NodeJS.Timeout>();
let ended = false;

/** Calls `wake` after `ms`, unless the file's tests are over. */
function startTimer(ms: number, wake: () => void): NodeJS.Timeout | undefined {
	if (ended) return undefined;
	const timer = setTimeout(() => {
		timers.delete(timer);
		wake();
	}, ms);
	timers.add(timer);
	return timer;
}

function stopTimer(timer: NodeJS.Timeout | undefined): void {
	if (!timer) return;
	clearTimeout(timer);
	timers.delete(timer);
}

/** n8n-workflow's sleep and sleepWithAbort (utils.ts), their timers kept. */
function waitsOf(actual: WorkflowModule): Pick<WorkflowModule, 'sleep' | 'sleepWithAbort'> {
	return {
		sleep: async (ms) => await new Promise<void>((resolve) => void startTimer(ms, resolve)),
		sleepWithAbort: async (ms, abortSignal) =>
			await new Promise<void>((resolve, reject) => {
				if (abortSignal?.aborted) return reject(new actual.ManualExecutionCancelledError(''));
				const timer = startTimer(ms, resolve);
				const onAbort = () => {
					stopTimer(timer);
					reject(new actual.ManualExecutionCancelledError(''));
				};
				abortSignal?.addEventListener('abort', onAbort, { once: true });
			}),
	};
}

jest.doMock('n8n-workflow', () => {
	const actual = jest.requireActual<WorkflowModule>('n8n-workflow');
	const waits: Record<PropertyKey, unknown> = waitsOf(actual);
	return new Proxy(actual, { get: (target, key, receiver) => (key in waits ? waits[key] : Reflect.get(target, key, receiver)) });
});

afterAll(() => {
	ended = true;
	for (const timer of timers) clearTimeout(timer);
	timers.clear();
});
