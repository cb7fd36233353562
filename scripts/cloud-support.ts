/**
 * Is the package eligible for n8n Cloud verification? Asks n8n's own CLI (@n8n/node-cli, pinned,
 * installed on demand into the cache) and fails unless all of these hold:
 *
 * 1. `n8n-node cloud-support`, run on this repository, reports "eligible for n8n Cloud verification":
 *    package.json has `"n8n": {"strict": true}` and eslint.config.mjs is n8n's default config
 *    (the command compares it with whitespace collapsed, and always exits 0: its report is read here);
 * 2. eslint.config.mjs is byte for byte the CLI's template (dist/template/templates/shared/default/);
 * 3. "(if lint passes)": `n8n-node lint` passes on the shipped sources (as `npm run lint:n8n`).
 *
 *   npm run cloud-support
 *   node build/scripts/cloud-support.js --no-lint     (1 and 2 only, about a second)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { ensureNodeCli, NODE_CLI_VERSION, repoRoot } from './lib/n8n';
import { cloudSupportStatus, runN8nLint } from './lib/n8n/node-cli-checks';
import { formatDuration } from './lib/proc';

async function main(argv: string[]): Promise<number> {
	const lint = !argv.includes('--no-lint');
	const started = Date.now();
	const cli = await ensureNodeCli();
	const root = repoRoot();
	const failures: string[] = [];

	const status = await cloudSupportStatus(cli, root);
	process.stdout.write(status.output.endsWith('\n') ? status.output : `${status.output}\n`);
	if (!status.eligible) {
		failures.push(
			`n8n-node cloud-support: NOT eligible (strict mode ${status.strictMode ? 'enabled' : 'disabled'}, ESLint config ${status.defaultEslintConfig ? 'default' : 'custom'})`,
		);
	}

	const config = path.join(root, 'eslint.config.mjs');
	const expected = fs.readFileSync(cli.defaultEslintConfig, 'utf8');
	const actual = fs.existsSync(config) ? fs.readFileSync(config, 'utf8') : undefined;
	if (actual !== expected) {
		failures.push(
			`eslint.config.mjs is ${actual === undefined ? 'missing' : 'not'} byte for byte n8n's default (keep this repository's rules in eslint.project.config.mjs); expected:\n${expected}`,
		);
	}

	if (lint) {
		const result = await runN8nLint(cli, root);
		if (!result.ok) {
			process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
			failures.push('n8n-node lint failed (output above; warnings count)');
		}
	}

	const checked = `@n8n/node-cli ${NODE_CLI_VERSION}: cloud-support status, eslint.config.mjs byte for byte${lint ? ', n8n-node lint' : ''}`;
	if (failures.length) {
		for (const failure of failures) console.error(`✖ ${failure}`);
		console.error(`NOT eligible for n8n Cloud verification (${checked}; ${formatDuration(Date.now() - started)})`);
		return 1;
	}
	console.log(
		`Eligible for n8n Cloud verification (${checked}${lint ? '' : '; lint not run'}; ${formatDuration(Date.now() - started)})`,
	);
	return 0;
}

main(process.argv.slice(2)).then(
	(code) => process.exit(code),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
