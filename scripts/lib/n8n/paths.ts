/** Where things live: the repository, the install cache, npm's CLI. */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { N8nTarget, NodeRuntimeSpec } from './targets';

export const PACKAGE_NAME = 'n8n-nodes-workplace';

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

export function nodeRuntimeDir(spec: NodeRuntimeSpec): string {
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
