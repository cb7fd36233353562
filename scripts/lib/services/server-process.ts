/** A server process we started: launch, readiness, log tail and stop. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { describeCommand, formatDuration, sleep, tail, trackGroup, untrackGroup } from '../proc';
import { processTreePids } from './process-table';
import { Service, START_ATTEMPTS, STOP_GRACE_MS } from './service';

const running = new Set<ServerProcess>();
let exitHandlerInstalled = false;

export interface LaunchSpec {
	name: string;
	bin: string;
	args: string[];
	dir: string;
	port: number;
	/** Where the child's stdout and stderr go (inside dir). */
	outputFile: string;
	/** More log files shown by logTail (e.g. nginx's error.log). */
	extraLogs?: string[];
	/** Sent to the main PID by stop(): the server's own clean, fast shutdown. */
	stopSignal: NodeJS.Signals;
	uid?: number;
	gid?: number;
}

export class ServerProcess implements Service {
	readonly name: string;
	readonly pid: number | undefined;
	port: number;
	readonly dir: string;
	readonly command: string;
	exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	spawnError: Error | undefined;
	private readonly exited: Promise<void>;
	private readonly logFiles: string[];
	private readonly stopSignal: NodeJS.Signals;
	private stopping: Promise<void> | undefined;
	private finalLog: string | undefined;

	constructor(spec: LaunchSpec) {
		this.name = spec.name;
		this.port = spec.port;
		this.dir = spec.dir;
		this.command = describeCommand(spec.bin, spec.args);
		this.logFiles = [spec.outputFile, ...(spec.extraLogs ?? [])];
		this.stopSignal = spec.stopSignal;
		// the child writes straight to a file: no pipes tie it to our event loop or die with us
		const out = fs.openSync(spec.outputFile, 'a');
		let child: ChildProcess;
		try {
			child = spawn(spec.bin, spec.args, {
				cwd: spec.dir,
				stdio: ['ignore', out, out],
				detached: true,
				uid: spec.uid,
				gid: spec.gid,
			});
		} finally {
			fs.closeSync(out);
		}
		this.pid = child.pid;
		this.exited = new Promise((resolve) => {
			child.on('exit', (code, signal) => {
				this.exitStatus = { code, signal };
				resolve();
			});
			child.on('error', (e) => {
				this.spawnError = e;
				resolve();
			});
		});
		// stop() or the exit handler ends it; don't keep a finished script alive
		child.unref();
		trackGroup(child.pid);
		running.add(this);
		installExitHandler();
	}

	get alive(): boolean {
		return this.exitStatus === undefined && this.spawnError === undefined && this.pid !== undefined;
	}

	logTail(lines = 40): string {
		if (this.finalLog !== undefined) return tail(this.finalLog, lines);
		return tail(this.readLogs(), lines);
	}

	private readLogs(): string {
		const parts: string[] = [];
		for (const file of this.logFiles) {
			try {
				const text = fs.readFileSync(file, 'utf8');
				if (text.trim()) parts.push(this.logFiles.length > 1 ? `[${path.basename(file)}]\n${text.trimEnd()}` : text.trimEnd());
			} catch {
				// not written yet
			}
		}
		return parts.join('\n');
	}

	/** Why the server is not up, for error messages: the command, its exit, its log. */
	describeFailure(what: string): string {
		const exit = this.spawnError
			? `could not be started (${this.spawnError.message})`
			: this.exitStatus
				? `exited with ${this.exitStatus.code ?? this.exitStatus.signal}`
				: 'is running';
		return `${this.name} ${what}; the server ${exit}.\nCommand: ${this.command}\n--- ${this.name} log (tail) ---\n${this.logTail()}`;
	}

	/** Polls probe() until true; fails early when the server exits. */
	async waitUntil(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			if (!this.alive) throw new Error(this.describeFailure(`did not ${what}`));
			if (await probe()) return;
			if (Date.now() > deadline) {
				throw new Error(this.describeFailure(`did not ${what} within ${formatDuration(timeoutMs)}`));
			}
			await sleep(100);
		}
	}

	stop(): Promise<void> {
		this.stopping ??= this.doStop();
		return this.stopping;
	}

	private async doStop(): Promise<void> {
		const pid = this.pid;
		if (pid !== undefined && this.alive) {
			try {
				process.kill(pid, this.stopSignal);
			} catch {
				// exited meanwhile
			}
			let timer: NodeJS.Timeout | undefined;
			const graceOver = new Promise<boolean>((r) => (timer = setTimeout(() => r(true), STOP_GRACE_MS)));
			const timedOut = await Promise.race([this.exited.then(() => false), graceOver]);
			clearTimeout(timer);
			if (timedOut) {
				killTree(pid);
				await Promise.race([this.exited, sleep(5_000)]);
			}
		}
		// whatever the main process left in its group (it is gone, so no new members appear)
		if (pid !== undefined) killOwnGroup(pid);
		untrackGroup(pid);
		running.delete(this);
		this.finalLog = this.readLogs();
		fs.rmSync(this.dir, { recursive: true, force: true });
	}

	/** At process exit: no time for a clean shutdown. */
	killNow(): void {
		if (this.pid !== undefined && this.alive) killTree(this.pid);
		try {
			fs.rmSync(this.dir, { recursive: true, force: true });
		} catch {
			// best effort
		}
	}
}

/** SIGKILL to the group only, never the bare PID: the group is ours, a reused PID might not be. */
function killOwnGroup(pgid: number): void {
	try {
		process.kill(-pgid, 'SIGKILL');
	} catch {
		// group already empty
	}
}

/** SIGKILL to a server we started and everything it forked (found while it is still their parent). */
function killTree(pid: number): void {
	for (const p of processTreePids(pid)) {
		try {
			process.kill(p, 'SIGKILL');
		} catch {
			// gone
		}
	}
	killOwnGroup(pid);
}

function installExitHandler(): void {
	if (exitHandlerInstalled) return;
	exitHandlerInstalled = true;
	process.on('exit', () => {
		for (const s of running) s.killNow();
	});
}

/** Stops every service this process started that is still running (for finally blocks). */
export async function stopAllServices(): Promise<void> {
	await Promise.all([...running].map((s) => s.stop()));
}

export function makeTempDir(name: string): string {
	return fs.mkdtempSync(path.join(os.tmpdir(), `workplace-${name}-`));
}

const PORT_IN_USE = /address already in use|could not bind|bind\(\) to .* failed|could not create .*listening socket/i;

/** Starts with fresh free ports; retries when another process grabbed a port in between. */
export async function withPortRetry<T>(name: string, log: (m: string) => void, attempt: () => Promise<T>): Promise<T> {
	for (let i = 1; ; i++) {
		try {
			return await attempt();
		} catch (e) {
			if (i >= START_ATTEMPTS || !PORT_IN_USE.test((e as Error).message)) throw e;
			log(`${name}: port taken meanwhile, retrying with another port`);
		}
	}
}
