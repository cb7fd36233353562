/** The Node.js binary (and headers) each target runs n8n with. */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { formatDuration, interrupted, runChecked, sleep } from '../proc';
import { withLock } from './lock';
import type { Logger } from './logger';
import { MARKER, readJson } from './markers';
import { registryInstallEnv } from './npm-env';
import { nodeRuntimeDir, npmCliPath } from './paths';
import type { NodeRuntimeSpec } from './targets';

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

export function systemRuntime(): NodeRuntime {
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

export async function ensureNodeRuntime(spec: NodeRuntimeSpec, log: Logger): Promise<NodeRuntime> {
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
		await retry(2, log, (attempt) =>
			runChecked(
				process.execPath,
				[npmCliPath(), 'install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
				{ cwd: dir, env: registryInstallEnv(process.execPath, { fresh: attempt > 1 }), timeoutMs: 15 * 60_000, heartbeatMs: 30_000, echoPrefix: '    ' },
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

export async function retry<T>(attempts: number, log: Logger, fn: (attempt: number) => Promise<T>): Promise<T> {
	for (let i = 1; ; i++) {
		try {
			return await fn(i);
		} catch (e) {
			if (i >= attempts || interrupted()) throw e;
			log(`  attempt ${i} failed, retrying: ${String((e as Error).message).split('\n')[0]}`);
			await sleep(3000);
		}
	}
}
