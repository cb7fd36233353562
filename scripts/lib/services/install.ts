/** Finding the servers, and installing missing ones with apt-get once per machine. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { formatDuration, isProcessAlive, run, runChecked, sleep } from '../proc';
import { pidsByName } from './process-table';
import { InstallRecord } from './service';

function isExecutable(file: string): boolean {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return fs.statSync(file).isFile();
	} catch {
		return false;
	}
}

function findExecutable(preferred: string, name: string): string | undefined {
	if (isExecutable(preferred)) return preferred;
	for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
		if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
	}
	return undefined;
}

const POSTGRES_TOOLS = ['initdb', 'pg_ctl', 'postgres', 'psql', 'pg_isready'];

/** Highest-version /usr/lib/postgresql/<v>/bin that has every tool we use. */
function findPostgresBinDir(): string | undefined {
	const root = '/usr/lib/postgresql';
	let versions: string[];
	try {
		versions = fs.readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v));
	} catch {
		return undefined;
	}
	versions.sort((a, b) => Number(b) - Number(a));
	for (const v of versions) {
		const bin = path.join(root, v, 'bin');
		if (POSTGRES_TOOLS.every((t) => isExecutable(path.join(bin, t)))) return bin;
	}
	return undefined;
}

export const isRoot = (): boolean => process.getuid?.() === 0;

/** Prefix for commands that need root: none as root, `sudo -n` otherwise (undefined: impossible). */
async function privilegePrefix(): Promise<string[] | undefined> {
	if (isRoot()) return [];
	const sudo = findExecutable('/usr/bin/sudo', 'sudo');
	if (!sudo) return undefined;
	// -n: fail instead of prompting; a password prompt would hang a test run
	const probe = await run(sudo, ['-n', 'true'], { timeoutMs: 10_000 });
	return probe.code === 0 ? [sudo, '-n'] : undefined;
}

async function runPrivileged(prefix: string[], cmd: string, args: string[], timeoutMs: number) {
	const full = [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', cmd, ...args];
	return runChecked(full[0], full.slice(1), { timeoutMs });
}

const LOCK_FILE = path.join(os.tmpdir(), 'n8n-nodes-workplace-apt.lock');
const LOCK_WAIT_MS = 30 * 60_000;
let lockHeld = false;
let lockExitHandler = false;

function lockOwner(): { pid: number; ino: number; ageMs: number } | undefined {
	try {
		const st = fs.statSync(LOCK_FILE);
		const pid = parseInt(fs.readFileSync(LOCK_FILE, 'utf8'), 10);
		return { pid, ino: st.ino, ageMs: Date.now() - st.mtimeMs };
	} catch {
		return undefined;
	}
}

function releaseLock(): void {
	if (!lockHeld) return;
	lockHeld = false;
	try {
		if (lockOwner()?.pid === process.pid) fs.unlinkSync(LOCK_FILE);
	} catch {
		// already gone
	}
}

/** Cross-process lock: O_EXCL create of a file holding our PID; a dead owner's lock is taken over. */
async function withInstallLock<T>(log: (m: string) => void, fn: () => Promise<T>): Promise<T> {
	const deadline = Date.now() + LOCK_WAIT_MS;
	let announced = false;
	for (;;) {
		try {
			const fd = fs.openSync(LOCK_FILE, 'wx', 0o644);
			fs.writeSync(fd, `${process.pid}\n`);
			fs.closeSync(fd);
			lockHeld = true;
			break;
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
		}
		const owner = lockOwner();
		if (!owner) continue; // released between our open and stat
		// empty/garbled file older than 10 s: the owner died between create and write
		const stale = Number.isNaN(owner.pid) ? owner.ageMs > 10_000 : !isProcessAlive(owner.pid);
		if (stale) {
			// only remove the file we judged (another waiter may have replaced it meanwhile)
			if (lockOwner()?.ino === owner.ino) {
				try {
					fs.unlinkSync(LOCK_FILE);
				} catch {
					// someone else removed it
				}
			}
			continue;
		}
		if (Date.now() > deadline) {
			throw new Error(
				`Timed out after ${formatDuration(LOCK_WAIT_MS)} waiting for the install lock ${LOCK_FILE} (held by pid ${owner.pid}).`,
			);
		}
		if (!announced) {
			announced = true;
			log(`waiting for the install lock ${LOCK_FILE} (held by pid ${owner.pid})`);
		}
		await sleep(500);
	}
	if (!lockExitHandler) {
		lockExitHandler = true;
		process.on('exit', releaseLock);
	}
	try {
		return await fn();
	} finally {
		releaseLock();
	}
}

interface Installable {
	what: string;
	/** Undefined while not installed. */
	find(): string | undefined;
	packages(): Promise<string[]>;
	/** Process name (comm) of the daemon a package's postinst may start. */
	daemon: string;
	/** Its system service, stopped again if the install started it. */
	systemService: string;
}

let aptUpdated = false;
const installs: InstallRecord[] = [];
// one install at a time inside this process too (the file lock is per process)
let installChain: Promise<unknown> = Promise.resolve();

/** Packages installed by this process, with durations. */
export function installHistory(): readonly InstallRecord[] {
	return installs;
}

function aptCandidate(pkg: string): Promise<boolean> {
	return run('apt-cache', ['policy', pkg], { timeoutMs: 60_000 }).then((r) => {
		const m = /Candidate:\s*(\S+)/.exec(r.stdout);
		return r.code === 0 && m !== null && m[1] !== '(none)';
	});
}

export async function ensureInstalled(item: Installable, log: (m: string) => void): Promise<string> {
	const found = item.find();
	if (found) return found;
	const job = installChain.then(() => install(item, log));
	installChain = job.catch(() => undefined);
	return job;
}

async function install(item: Installable, log: (m: string) => void): Promise<string> {
	const already = item.find();
	if (already) return already;
	const apt = findExecutable('/usr/bin/apt-get', 'apt-get');
	const prefix = await privilegePrefix();
	if (!apt || !prefix) {
		throw new Error(
			`${item.what} is not installed, and it cannot be installed automatically ` +
				`(${apt ? 'not root, and no passwordless `sudo -n`' : 'apt-get not found'}). ` +
				`Install it, e.g. as root: apt-get install -y --no-install-recommends ${item.what === 'nginx' ? 'nginx-light (or nginx)' : (await item.packages()).join(' ')}`,
		);
	}
	return withInstallLock(log, async () => {
		// another process may have installed it while we waited for the lock
		const meanwhile = item.find();
		if (meanwhile) return meanwhile;
		const started = Date.now();
		const before = new Set(pidsByName(item.daemon));
		// DPkg::Lock::Timeout: wait for an unrelated apt/dpkg run instead of failing at once
		const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];
		if (!aptUpdated) {
			log(`${item.what} not found: apt-get update`);
			await runPrivileged(prefix, apt, [...lockWait, 'update'], 10 * 60_000);
			aptUpdated = true;
		}
		const packages = await item.packages();
		log(`installing ${packages.join(' ')} with apt-get`);
		await runPrivileged(
			prefix,
			apt,
			[...lockWait, 'install', '-y', '--no-install-recommends', ...packages],
			20 * 60_000,
		);
		const durationMs = Date.now() - started;
		installs.push({ what: item.what, packages, durationMs });
		log(`installed ${packages.join(' ')} in ${formatDuration(durationMs)}`);
		// Debian postinst scripts start the packaged service where policy-rc.d allows it; we
		// never use it (own ports, own config), so stop it again rather than leave a daemon on :80/:6379/:5432.
		const appeared = pidsByName(item.daemon).filter((p) => !before.has(p));
		if (appeared.length > 0) {
			// `service` only acts on the system instance (its pid file), never on servers we started
			const stop = [...prefix, 'service', item.systemService, 'stop'];
			const result = await run(stop[0], stop.slice(1), { timeoutMs: 60_000 });
			log(
				result.code === 0
					? `stopped the system ${item.systemService} service the package started (pids ${appeared.join(' ')})`
					: `note: the package started a system ${item.systemService} service (pids ${appeared.join(' ')}); ` +
							`\`service ${item.systemService} stop\` failed (${result.code}), leaving it alone: we use our own ports`,
			);
		}
		const found = item.find();
		if (!found) throw new Error(`apt-get installed ${packages.join(' ')}, but ${item.what} is still not found.`);
		return found;
	});
}

export const POSTGRES: Installable = {
	what: 'postgresql',
	find: findPostgresBinDir,
	packages: () => Promise.resolve(['postgresql']),
	daemon: 'postgres',
	systemService: 'postgresql',
};

export const REDIS: Installable = {
	what: 'redis-server',
	find: () => findExecutable('/usr/bin/redis-server', 'redis-server'),
	packages: () => Promise.resolve(['redis-server']),
	daemon: 'redis-server',
	systemService: 'redis-server',
};

export const NGINX: Installable = {
	what: 'nginx',
	find: () => findExecutable('/usr/sbin/nginx', 'nginx'),
	// nginx-light is enough for a proxy; newer Debian releases only ship `nginx`
	packages: async () => ((await aptCandidate('nginx-light')) ? ['nginx-light'] : ['nginx']),
	daemon: 'nginx',
	systemService: 'nginx',
};
