/**
 * n8n's own community-node CLI (@n8n/node-cli, the `n8n-node` command), installed on demand into the
 * cache like n8n itself: it is not a dev dependency of this package (its AI SDK alone is hundreds of
 * megabytes). `npm run lint:n8n` runs its `lint` command and `npm run cloud-support` its `cloud-support`
 * command (node-cli-checks.ts) on this repository, whose eslint.config.mjs is the CLI's default one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { formatDuration, runChecked } from '../proc';
import { withLock } from './lock';
import { defaultLogger, type Logger } from './logger';
import { MARKER, readJson, sha256 } from './markers';
import { retry } from './node-runtime';
import { registryInstallEnv } from './npm-env';
import { cacheRoot, npmCliPath, PACKAGE_NAME, repoRoot } from './paths';

/** Pinned: the release whose ESLint plugin (@n8n/eslint-plugin-community-nodes 0.32.0) this package's own lint uses too. */
export const NODE_CLI_VERSION = '0.48.3';

export interface NodeCliInstall {
	dir: string;
	/** node_modules of the install: holds @n8n/node-cli, its ESLint and n8n-workflow for the import resolver. */
	nodeModules: string;
	/** bin/n8n-node.mjs, run with the current Node. */
	bin: string;
	/** The ESLint config n8n-node writes into a new package, which its strict mode requires unchanged. */
	defaultEslintConfig: string;
}

/** n8n-workflow as this package builds against it, so the nodes' imports resolve to the same release. */
function n8nWorkflowVersion(): string {
	const pj = readJson<{ devDependencies?: Record<string, string> }>(path.join(repoRoot(), 'package.json'));
	const version = pj?.devDependencies?.['n8n-workflow'];
	if (!version) throw new Error('package.json has no devDependencies["n8n-workflow"]');
	return version;
}

function installSpec() {
	const packageJson = {
		name: 'n8n-node-cli-runtime',
		private: true,
		description: `@n8n/node-cli ${NODE_CLI_VERSION} for the n8n lint of ${PACKAGE_NAME} (generated, do not edit)`,
		dependencies: { '@n8n/node-cli': NODE_CLI_VERSION, 'n8n-workflow': n8nWorkflowVersion() },
	};
	const text = `${JSON.stringify(packageJson, null, 2)}\n`;
	return { packageJsonText: text, spec: sha256(`${text}|${process.version}`) };
}

function describeInstall(dir: string): NodeCliInstall {
	const nodeModules = path.join(dir, 'node_modules');
	const cli = path.join(nodeModules, '@n8n', 'node-cli');
	return {
		dir,
		nodeModules,
		bin: path.join(cli, 'bin', 'n8n-node.mjs'),
		defaultEslintConfig: path.join(cli, 'dist', 'template', 'templates', 'shared', 'default', 'eslint.config.mjs'),
	};
}

function isComplete(dir: string, spec: string): boolean {
	const inst = describeInstall(dir);
	return readJson<{ spec?: string }>(path.join(dir, MARKER))?.spec === spec && fs.existsSync(inst.bin) && fs.existsSync(inst.defaultEslintConfig);
}

/** Installs @n8n/node-cli into the cache unless a complete install is there (about 700 MB, a minute or two the first time). */
export async function ensureNodeCli(log: Logger = defaultLogger): Promise<NodeCliInstall> {
	const dir = path.join(cacheRoot(), `n8n-node-cli-${NODE_CLI_VERSION}`);
	const { packageJsonText, spec } = installSpec();
	if (isComplete(dir, spec)) return describeInstall(dir);
	return withLock(path.basename(dir), log, async () => {
		if (isComplete(dir, spec)) return describeInstall(dir);
		const started = Date.now();
		log(`Installing @n8n/node-cli ${NODE_CLI_VERSION} into ${dir} (once; about 700 MB)`);
		fs.rmSync(path.join(dir, MARKER), { force: true });
		// A half-extracted tree can look complete to npm: start from scratch.
		fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
		fs.rmSync(path.join(dir, 'package-lock.json'), { force: true });
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, 'package.json'), packageJsonText);
		const logFile = path.join(dir, 'install.log');
		await retry(2, log, (attempt) =>
			runChecked(
				process.execPath,
				[npmCliPath(), 'install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn', '--progress=false'],
				{ cwd: dir, env: registryInstallEnv(process.execPath, { fresh: attempt > 1 }), timeoutMs: 20 * 60_000, heartbeatMs: 30_000, echoPrefix: '  ', echoFilter: (l) => /^npm (error|ERR)|^added \d+/.test(l), logFile },
			),
		);
		const inst = describeInstall(dir);
		if (!fs.existsSync(inst.bin) || !fs.existsSync(inst.defaultEslintConfig)) {
			throw new Error(`@n8n/node-cli ${NODE_CLI_VERSION} installed without ${inst.bin} or its default ESLint config`);
		}
		fs.writeFileSync(path.join(dir, MARKER), JSON.stringify({ spec, installedAt: new Date().toISOString() }, null, 2));
		log(`@n8n/node-cli ${NODE_CLI_VERSION} ready in ${formatDuration(Date.now() - started)}`);
		return inst;
	});
}
