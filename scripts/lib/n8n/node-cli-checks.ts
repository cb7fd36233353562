/**
 * n8n's own checks of a community package, run with the cached @n8n/node-cli (node-cli.ts):
 *
 * - `n8n-node lint` (dist/commands/lint.js): ESLint with the package's eslint.config.mjs; under
 *   `"n8n": {"strict": true}` it first refuses an eslint.config.mjs that differs (whitespace aside)
 *   from its template dist/template/templates/shared/default/eslint.config.mjs;
 * - `n8n-node cloud-support` (dist/commands/cloud-support.js): with no argument it only reports, and
 *   exits 0 either way: "eligible for n8n Cloud verification (if lint passes)" when package.json has
 *   `n8n.strict === true` and eslint.config.mjs is, whitespace aside, exactly
 *   `import { config } from '@n8n/node-cli/eslint'; export default config;`, else "NOT eligible".
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { run } from '../proc';
import { type NodeCliInstall } from './node-cli';
import { cleanEnv } from './npm-env';
import { repoRoot } from './paths';

/** What a package made by `n8n-node new` holds and its lint reads: the shipped sources and the repository's eslint.config.mjs. */
export const N8N_LINT_SOURCES = ['package.json', 'tsconfig.json', 'eslint.config.mjs', 'nodes', 'credentials'];

const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

export interface N8nLintResult {
	ok: boolean;
	/** ESLint's and n8n-node's output, the throwaway folder's path replaced with `.`. */
	output: string;
	/** package.json declares `"n8n": {"strict": true}`. */
	strict: boolean;
}

/**
 * `n8n-node lint` on the shipped sources: copied into a throwaway folder shaped like a package
 * `n8n-node new` creates (tests, simulator and scripts are not shipped and follow other rules), with
 * the CLI's node_modules, so that eslint.config.mjs resolves `@n8n/node-cli/eslint`. Any problem
 * fails, warnings included.
 */
export async function runN8nLint(cli: NodeCliInstall, root = repoRoot()): Promise<N8nLintResult> {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'workplace-n8n-lint-'));
	try {
		for (const name of N8N_LINT_SOURCES) fs.cpSync(path.join(root, name), path.join(work, name), { recursive: true });
		fs.symlinkSync(cli.nodeModules, path.join(work, 'node_modules'), 'dir');

		// Without the npm_* variables of `npm run`, whose local prefix would point npm exec back at this repository.
		const result = await run(process.execPath, [cli.bin, 'lint'], { cwd: work, env: cleanEnv(), timeoutMs: 10 * 60_000 });
		const output = stripAnsi(`${result.stdout}${result.stderr}`).split(work).join('.');
		const problems = /✖ \d+ problems?/.test(output);
		const strict = (JSON.parse(fs.readFileSync(path.join(work, 'package.json'), 'utf8')) as { n8n?: { strict?: boolean } }).n8n?.strict === true;
		return { ok: result.code === 0 && !problems, output, strict };
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

export interface CloudSupportStatus {
	/** The CLI's verdict: "eligible for n8n Cloud verification (if lint passes)". */
	eligible: boolean;
	strictMode: boolean;
	defaultEslintConfig: boolean;
	output: string;
}

/** `n8n-node cloud-support` (the status report) in `dir`; it reads package.json and eslint.config.mjs only. */
export async function cloudSupportStatus(cli: NodeCliInstall, dir = repoRoot()): Promise<CloudSupportStatus> {
	const result = await run(process.execPath, [cli.bin, 'cloud-support'], { cwd: dir, env: cleanEnv({ NO_COLOR: '1' }), timeoutMs: 2 * 60_000 });
	const output = stripAnsi(`${result.stdout}${result.stderr}`);
	const notEligible = /Status: NOT eligible for n8n Cloud verification/.test(output);
	const eligible = !notEligible && /Status: eligible for n8n Cloud verification/.test(output);
	if (result.code !== 0 || (!eligible && !notEligible)) {
		throw new Error(`n8n-node cloud-support exited ${result.code} without a status this script knows:\n${output}`);
	}
	return {
		eligible,
		strictMode: /Strict mode: enabled/.test(output),
		defaultEslintConfig: /ESLint config: using default config/.test(output),
		output,
	};
}
