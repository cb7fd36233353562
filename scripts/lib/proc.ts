/**
 * Small process helpers shared by the tooling scripts (install-n8n, e2e, dev).
 * No dependencies beyond Node's standard library.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import * as net from 'node:net';

export interface RunOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	/** Kill the whole process group after this many milliseconds. */
	timeoutMs?: number;
	/** Echo output lines to our stdout, each prefixed with this string. */
	echoPrefix?: string;
	/** Only echo lines for which this returns true (default: all). */
	echoFilter?: (line: string) => boolean;
	/** Append stdout and stderr to this file as well. */
	logFile?: string;
	/** Print "still running" every this many milliseconds (with echoPrefix). */
	heartbeatMs?: number;
}

export interface RunResult {
	command: string;
	code: number | null;
	signal: NodeJS.Signals | null;
	timedOut: boolean;
	stdout: string;
	stderr: string;
	durationMs: number;
}

export class CommandError extends Error {
	constructor(
		message: string,
		readonly result: RunResult,
	) {
		super(message);
	}
}

export function describeCommand(cmd: string, args: readonly string[]): string {
	return [cmd, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/** Last `n` lines of a text, for error messages. */
export function tail(text: string, n = 40): string {
	const lines = text.trimEnd().split('\n');
	return lines.slice(Math.max(0, lines.length - n)).join('\n');
}

// ---------------------------------------------------------------------------
// Children run in their own process group (so a timeout can kill grandchildren such as
// n8n's task runners). A terminal's Ctrl-C reaches only our group, so we forward it.
// ---------------------------------------------------------------------------

const activeGroups = new Set<number>();
let handlersInstalled = false;
let interruptedBy: NodeJS.Signals | undefined;

/** The signal that interrupted this process, if any (callers stop retrying then). */
export function interrupted(): NodeJS.Signals | undefined {
	return interruptedBy;
}

/** Registers a detached child's process group to be killed when this process exits or is interrupted. */
export function trackGroup(pid: number | undefined): void {
	if (pid === undefined) return;
	activeGroups.add(pid);
	if (handlersInstalled) return;
	handlersInstalled = true;
	process.on('exit', () => {
		for (const g of activeGroups) killGroup(g, 'SIGKILL');
	});
	for (const [sig, num] of [
		['SIGINT', 2],
		['SIGTERM', 15],
		['SIGHUP', 1],
	] as const) {
		const handler = () => {
			interruptedBy = sig;
			for (const g of activeGroups) killGroup(g, 'SIGTERM');
			// nobody else handles it: behave like the default (terminate)
			if (process.listenerCount(sig) === 1) {
				setTimeout(() => process.exit(128 + num), 200);
			}
		};
		process.on(sig, handler);
	}
}

export function untrackGroup(pid: number | undefined): void {
	if (pid !== undefined) activeGroups.delete(pid);
}

/**
 * Runs a command to completion and captures its output. The child gets its own
 * process group so that a timeout kills its children too (n8n starts task runners).
 */
export function run(cmd: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
	const started = Date.now();
	const command = describeCommand(cmd, args);
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		trackGroup(child.pid);
		const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
		log?.write(`\n$ ${command}\n`);
		const out: Buffer[] = [];
		const err: Buffer[] = [];
		let timedOut = false;
		const pending: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
		const echo = (stream: 'stdout' | 'stderr', chunk: Buffer, flush = false) => {
			if (options.echoPrefix === undefined) return;
			pending[stream] += chunk.toString('utf8');
			const lines = pending[stream].split('\n');
			pending[stream] = flush ? '' : (lines.pop() ?? '');
			for (const line of lines) {
				if (line.trim() === '') continue;
				if (options.echoFilter && !options.echoFilter(line)) continue;
				process.stdout.write(`${options.echoPrefix}${line}\n`);
			}
		};
		child.stdout.on('data', (c: Buffer) => {
			out.push(c);
			log?.write(c);
			echo('stdout', c);
		});
		child.stderr.on('data', (c: Buffer) => {
			err.push(c);
			log?.write(c);
			echo('stderr', c);
		});
		const timer =
			options.timeoutMs !== undefined
				? setTimeout(() => {
						timedOut = true;
						killGroup(child.pid, 'SIGKILL');
					}, options.timeoutMs)
				: undefined;
		const heartbeat =
			options.heartbeatMs !== undefined
				? setInterval(() => {
						const s = Math.round((Date.now() - started) / 1000);
						process.stdout.write(`${options.echoPrefix ?? ''}... still running (${s}s): ${command}\n`);
					}, options.heartbeatMs)
				: undefined;
		child.on('error', (e) => {
			untrackGroup(child.pid);
			if (timer) clearTimeout(timer);
			if (heartbeat) clearInterval(heartbeat);
			log?.end();
			reject(e);
		});
		child.on('close', (code, signal) => {
			untrackGroup(child.pid);
			if (timer) clearTimeout(timer);
			if (heartbeat) clearInterval(heartbeat);
			echo('stdout', Buffer.alloc(0), true);
			echo('stderr', Buffer.alloc(0), true);
			log?.write(`[exit code ${code}${signal ? `, signal ${signal}` : ''}]\n`);
			log?.end();
			resolve({
				command,
				code,
				signal,
				timedOut,
				stdout: Buffer.concat(out).toString('utf8'),
				stderr: Buffer.concat(err).toString('utf8'),
				durationMs: Date.now() - started,
			});
		});
	});
}

/** Like run(), but rejects with a CommandError (carrying the output tail) unless the exit code is 0. */
export async function runChecked(
	cmd: string,
	args: readonly string[],
	options: RunOptions = {},
): Promise<RunResult> {
	const result = await run(cmd, args, options);
	if (result.code !== 0) {
		const why = result.timedOut ? `timed out after ${options.timeoutMs} ms` : `exited with ${result.code ?? result.signal}`;
		throw new CommandError(
			`Command ${why}: ${result.command}\n--- stdout (tail) ---\n${tail(result.stdout)}\n--- stderr (tail) ---\n${tail(result.stderr)}`,
			result,
		);
	}
	return result;
}

/** Sends a signal to a process group started with detached: true (falls back to the process). */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGTERM'): void {
	if (pid === undefined) return;
	try {
		process.kill(-pid, signal);
	} catch {
		try {
			process.kill(pid, signal);
		} catch {
			// already gone
		}
	}
}

export function isProcessAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function getFreePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

export function sleep(ms: number): Promise<void> {
	return new Promise((r) => setTimeout(r, ms));
}

export function formatDuration(ms: number): string {
	if (ms < 1000) return `${ms} ms`;
	const s = ms / 1000;
	if (s < 60) return `${s.toFixed(1)} s`;
	return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}
