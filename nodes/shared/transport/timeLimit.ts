import { sleep, sleepWithAbort } from 'n8n-workflow';

/**
 * The time limit of every platform call, the item's "Request Options > Timeout" (these defaults
 * where no item option applies: list pickers, load options; the trigger's picture has its own):
 *
 * - an API call must be answered, body included, within the limit; so must the bot's token
 *   request (credentials/WorkplaceBotOAuth2Api.credentials.ts), with the limit of the call it
 *   fetches the token for, and not counted in that call's time;
 * - a file upload or download fails only when no byte moved for as long (before the answer
 *   starts, and between two pieces of it), so a large file is never cut off while it flows.
 *
 * Credential tests keep their own 15 s (credentialTests/probe.ts).
 */
export const DEFAULT_TIMEOUT_SECONDS = 60;
export const DEFAULT_TIMEOUT_MS = DEFAULT_TIMEOUT_SECONDS * 1000;

/**
 * n8n's HTTP client (axios) gets the limit plus this as its own timeout: the watchdog decides, and
 * the client's timer, a moment later, closes a connection that is still waiting.
 */
export const CLIENT_TIMEOUT_GRACE_MS = 1000;

const never = new Promise<never>(() => {});
/** The reason a watch's timer is aborted with: without one, every abort builds a DOMException. */
const TIMER_SET_AGAIN = 'timer set again';

/** Resolves after `ms`, or as soon as `signal` aborts (its timer cleared then). */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
	// sleepWithAbort: in the n8n-workflow of n8n 1.110 to 2.20 (1.107 to 2.20.3), not in that of
	// n8n 1.100.1 (1.97.0) nor 2.41.1 (2.41.0: sleep only). Without it the pause still ends on the
	// abort (One Run per Conversation's wait depends on it), and its timer runs out unobserved.
	if (typeof sleepWithAbort !== 'function') {
		if (signal.aborted) return;
		await Promise.race([sleep(ms), new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))]);
		return;
	}
	try {
		await sleepWithAbort(ms, signal);
	} catch {
		// stopped: the call ended first
	}
}

/**
 * One attempt's clock. `expired` resolves when `limitMs` passed since the start or the last
 * `touch()` (progress); never once `stop()` was called. While held (`hold()`: the token request the
 * call waits for, which has its own limit) it runs out only if the hold outlasts `limitMs` plus
 * CLIENT_TIMEOUT_GRACE_MS; `release()` restarts it. One timer at a time, cancelled by `stop()`.
 */
export class Watchdog {
	private last = performance.now();
	private holds = 0;
	private heldSince = 0;
	private stopped = false;
	/** The timer under way; aborted to stop, or to recompute the deadline after a hold. */
	private nap = new AbortController();
	/** Whether the limit ran out (not stopped by the attempt's end). */
	ranOut = false;
	readonly expired: Promise<void>;

	constructor(readonly limitMs: number) {
		this.expired = this.watch();
	}

	touch(): void {
		this.last = performance.now();
	}

	hold(): void {
		if (this.holds++ === 0) this.heldSince = performance.now();
	}

	/** Whether it was released at least once (for a call: whether it left). */
	released = false;

	release(): void {
		this.released = true;
		this.holds = Math.max(0, this.holds - 1);
		this.touch();
		// the timer was set for the hold's bound: set it again for the limit from now
		if (this.holds === 0) this.nap.abort(TIMER_SET_AGAIN);
	}

	/** Ends the watch (the attempt ended); `expired` then never resolves. */
	stop(): void {
		if (this.stopped) return;
		this.stopped = true;
		this.nap.abort(TIMER_SET_AGAIN);
	}

	private async watch(): Promise<void> {
		for (;;) {
			const deadline = this.holds > 0 ? this.heldSince + this.limitMs + CLIENT_TIMEOUT_GRACE_MS : this.last + this.limitMs;
			const left = deadline - performance.now();
			if (left <= 0) break;
			this.nap = new AbortController();
			await pause(left, this.nap.signal);
			if (this.stopped) return await never;
		}
		this.stopped = true;
		this.ranOut = true;
	}
}

/** Whether an HTTP client's error is its own timeout (axios: `timeout of 1000ms exceeded`). */
export function isClientTimeout(error: unknown): boolean {
	let current = error;
	for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
		const { code, message } = current as { code?: unknown; message?: unknown };
		if (code === 'ECONNABORTED' || code === 'ESOCKETTIMEDOUT') return true;
		if (typeof message === 'string' && /^timeout of \d+ms exceeded$/.test(message)) return true;
		current = (current as { cause?: unknown }).cause;
	}
	return false;
}

/** A limit in the words of messages: "60 s", "1.5 s". */
export function secondsText(ms: number): string {
	return `${Math.round(ms / 100) / 10} s`;
}

export const TIMED_OUT: unique symbol = Symbol('timed out');
/** An attempt that ran out of time before its call left (it waited for a token). */
export const NOT_SENT: unique symbol = Symbol('timed out before it was sent');

/** What `work` settled with, or TIMED_OUT when the watchdog ran out first (`work` then goes on unobserved). */
export async function withinLimit<T>(work: Promise<T>, watchdog: Watchdog): Promise<T | typeof TIMED_OUT> {
	return await Promise.race([work, watchdog.expired.then((): typeof TIMED_OUT => TIMED_OUT)]);
}

/** A stream as the HTTP client hands it over, seen without importing Node's stream module. */
interface BodyStream {
	emit(event: string | symbol, ...args: unknown[]): boolean;
	once(event: string, listener: (...args: unknown[]) => void): unknown;
	on(event: string, listener: (...args: unknown[]) => void): unknown;
	destroy(error?: Error): unknown;
}

export function isBodyStream(body: unknown): body is BodyStream {
	return (
		body !== null &&
		typeof body === 'object' &&
		typeof (body as BodyStream).emit === 'function' &&
		typeof (body as BodyStream).destroy === 'function' &&
		typeof (body as BodyStream).once === 'function'
	);
}

/** Downloads cut off by their idle limit: the error their reader gets instead of the stream's own. */
const cutOff = new WeakMap<object, Error>();

/**
 * Watches a download's body after its headers came: every piece read restarts `watchdog`; when it
 * runs out the body is destroyed with `idleError(bytesSoFar)`, which `downloadFailure` hands to the
 * body's reader. It stops when the body ends, closes or fails. The body stays the same object (n8n's
 * binary store takes an IncomingMessage as such), and is not switched to flowing mode: pieces are
 * counted as the reader takes them (`emit('data')`).
 */
export function watchDownload(body: unknown, watchdog: Watchdog, idleError: (bytes: number) => Error): void {
	if (!isBodyStream(body)) {
		watchdog.stop();
		return;
	}
	let bytes = 0;
	const emit = body.emit;
	body.emit = function (this: BodyStream, event: string | symbol, ...args: unknown[]): boolean {
		if (event === 'data') {
			watchdog.touch();
			bytes += (args[0] as { length?: number } | undefined)?.length ?? 0;
		}
		return emit.call(this, event, ...args);
	};
	const stop = () => watchdog.stop();
	body.once('end', stop);
	body.once('close', stop);
	body.on('error', stop);
	void watchdog.expired.then(() => {
		const error = idleError(bytes);
		cutOff.set(body, error);
		body.destroy(error);
	});
}

/** The time-limit error of a download cut off by watchDownload, if it was. */
export function downloadFailure(body: unknown): Error | undefined {
	return body !== null && typeof body === 'object' ? cutOff.get(body) : undefined;
}

/** Pieces an upload is counted in: a piece handed on at once is a piece sent. */
const UPLOAD_PIECE_BYTES = 64 * 1024;

/**
 * A file part whose bytes restart `watchdog` as the HTTP client takes them (it takes the next
 * piece when the socket took the last), so "no progress" means no byte left for the platform. Once
 * the watchdog ran out, the next piece fails the upload, which makes the client close the
 * connection.
 */
class ProgressFile extends File {
	constructor(
		private readonly inner: File,
		private readonly watchdog: Watchdog,
	) {
		super([], inner.name, { type: inner.type });
	}

	get size(): number {
		return this.inner.size;
	}

	get type(): string {
		return this.inner.type;
	}

	get name(): string {
		return this.inner.name;
	}

	stream(): ReturnType<File['stream']> {
		return pieces(this.inner.stream() as unknown as AsyncIterable<Uint8Array>, this.watchdog) as unknown as ReturnType<File['stream']>;
	}

	async arrayBuffer(): Promise<ArrayBuffer> {
		return await this.inner.arrayBuffer();
	}
}

async function* pieces(source: AsyncIterable<Uint8Array>, watchdog: Watchdog): AsyncGenerator<Uint8Array> {
	const close = () => (source as { destroy?: () => void }).destroy?.();
	// a file streamed from n8n's binary store is closed when the limit runs out, even if the client never asks for more
	void watchdog.expired.then(close);
	try {
		for await (const chunk of source) {
			for (let at = 0; at < chunk.length; at += UPLOAD_PIECE_BYTES) {
				if (watchdog.ranOut) throw new Error('The upload was stopped: no progress within the time limit');
				watchdog.touch();
				yield chunk.subarray(at, at + UPLOAD_PIECE_BYTES);
			}
		}
		// a source closed by the limit must not end the part as if the file were whole
		if (watchdog.ranOut) throw new Error('The upload was stopped: no progress within the time limit');
	} finally {
		close();
	}
}

/** The multipart body with each file part counted by `watchdog` (text fields as they are). */
export function countUploadProgress(form: FormData, watchdog: Watchdog): FormData {
	const counted = new FormData();
	form.forEach((value, name) => {
		if (typeof value === 'string') counted.append(name, value);
		else counted.append(name, new ProgressFile(value, watchdog));
	});
	return counted;
}
