/**
 * Imported first by the secrets tests: turns n8n's logger up to debug (before the engine's
 * environment sets it to silent) and captures everything written to stdout, stderr and the
 * console, so the test can search n8n's and the nodes' log output for credential values.
 */
process.env.N8N_LOG_LEVEL = 'debug';
process.env.N8N_LOG_OUTPUT = 'console';

export const capturedLogs: string[] = [];

function capture(chunk: unknown): void {
	capturedLogs.push(typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
}

const restores: Array<() => void> = [];

for (const stream of [process.stdout, process.stderr]) {
	const original = stream.write;
	const write = original.bind(stream) as (...args: unknown[]) => boolean;
	stream.write = ((chunk: unknown, ...rest: unknown[]) => {
		capture(chunk);
		return process.env.SECRETS_VERBOSE ? write(chunk, ...rest) : true;
	}) as typeof stream.write;
	restores.push(() => {
		stream.write = original;
	});
}

for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
	const original = console[method];
	console[method] = (...args: unknown[]) => {
		capture(args.map((a) => (typeof a === 'string' ? a : safeStringify(a))).join(' '));
		if (process.env.SECRETS_VERBOSE) original.apply(console, args);
	};
	restores.push(() => {
		console[method] = original;
	});
}

// winston's Console transport writes to `console._stdout` when there is one (else through a
// console.log bound when the transport was made, possibly before this module ran).
{
	const holder = console as unknown as { _stdout?: unknown; _stderr?: unknown };
	const had = { _stdout: Object.getOwnPropertyDescriptor(holder, '_stdout'), _stderr: Object.getOwnPropertyDescriptor(holder, '_stderr') };
	for (const name of ['_stdout', '_stderr'] as const) {
		Object.defineProperty(holder, name, { configurable: true, writable: true, value: { write: (chunk: unknown) => (capture(chunk), true) } });
	}
	restores.push(() => {
		for (const name of ['_stdout', '_stderr'] as const) {
			const d = had[name];
			if (d) Object.defineProperty(holder, name, d);
			else delete holder[name];
		}
	});
}

/** Stops capturing (jest's reporter may write to the same streams in this process). */
export function stopCapture(): void {
	for (const restore of restores.splice(0)) restore();
}

/** JSON of anything: cycles cut, Buffers summarised, errors with their own (non-enumerable) fields. */
export function safeStringify(value: unknown): string {
	const seen = new WeakSet<object>();
	return JSON.stringify(value, function (this: unknown, _key, v: unknown) {
		if (typeof v === 'bigint') return v.toString();
		if (v !== null && typeof v === 'object') {
			if (seen.has(v)) return '[cycle]';
			seen.add(v);
			if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `[${v.length} bytes]`;
			if (v instanceof Error) {
				const own: Record<string, unknown> = {};
				for (const name of Object.getOwnPropertyNames(v)) own[name] = (v as unknown as Record<string, unknown>)[name];
				return { ...own, cause: (v as { cause?: unknown }).cause };
			}
		}
		return v;
	}) ?? '';
}
