/** Installing n8n releases into the cache, once, with a smoke check. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { formatDuration, runChecked } from '../proc';
import { withLock } from './lock';
import { defaultLogger, type Logger } from './logger';
import { MARKER, NPM_DONE, readJson, sha256 } from './markers';
import { ensureNodeRuntime, retry, systemRuntime, type NodeRuntime } from './node-runtime';
import { cleanEnv, npmEnv, registryInstallEnv } from './npm-env';
import { installDir, nodeRuntimeDir, npmCliPath, PACKAGE_NAME } from './paths';
import type { N8nTarget } from './targets';

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
			await retry(2, log, (attempt) =>
				runChecked(
					node.bin,
					[npmCli, 'install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn', '--progress=false'],
					{
						cwd: dir,
						env: registryInstallEnv(node.bin, { fresh: attempt > 1 }),
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
