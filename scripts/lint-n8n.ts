/**
 * Lints the package as n8n's own tooling does: `n8n-node lint` of @n8n/node-cli (pinned, installed
 * on demand into the cache) with its default ESLint config, unchanged. package.json declares
 * `"n8n": {"strict": true}`, n8n's mark of a package eligible for n8n Cloud: in strict mode
 * `n8n-node lint` refuses any other ESLint config, and the default one holds the cloud rule set.
 *
 * This repository keeps its own eslint.config.mjs (tests, simulator and scripts need other rules),
 * so the shipped sources (package.json, tsconfig.json, nodes/, credentials/) are copied into a
 * throwaway folder shaped like a package `n8n-node new` creates, with the CLI's default config
 * file as it ships, and `n8n-node lint` runs there. Any problem fails, warnings included.
 *
 *   npm run lint:n8n
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { cleanEnv, ensureNodeCli, NODE_CLI_VERSION, repoRoot } from './lib/n8n';
import { formatDuration, run } from './lib/proc';

/** What a package made by `n8n-node new` holds and its lint reads. */
const SHIPPED_SOURCES = ['package.json', 'tsconfig.json', 'nodes', 'credentials'];

const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

async function main(): Promise<number> {
	const started = Date.now();
	const cli = await ensureNodeCli();
	const root = repoRoot();
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'workplace-n8n-lint-'));
	try {
		for (const name of SHIPPED_SOURCES) fs.cpSync(path.join(root, name), path.join(work, name), { recursive: true });
		fs.copyFileSync(cli.defaultEslintConfig, path.join(work, 'eslint.config.mjs'));
		fs.symlinkSync(cli.nodeModules, path.join(work, 'node_modules'), 'dir');

		// Without the npm_* variables of `npm run`, whose local prefix would point npm exec back at this repository.
		const result = await run(process.execPath, [cli.bin, 'lint'], { cwd: work, env: cleanEnv(), timeoutMs: 10 * 60_000 });
		const output = stripAnsi(`${result.stdout}${result.stderr}`).split(work).join('.');
		process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
		const problems = /✖ \d+ problems?/.test(output);
		if (result.code !== 0 || problems) {
			console.error(`n8n-node lint (@n8n/node-cli ${NODE_CLI_VERSION}) FAILED${result.code === 0 ? ' (warnings count as failures)' : ''}`);
			return 1;
		}
		const strict = (JSON.parse(fs.readFileSync(path.join(work, 'package.json'), 'utf8')) as { n8n?: { strict?: boolean } }).n8n?.strict === true;
		console.log(
			`n8n-node lint (@n8n/node-cli ${NODE_CLI_VERSION}, its default ESLint config${strict ? ', strict mode' : ''}): no problems in ${SHIPPED_SOURCES.join(', ')} (${formatDuration(Date.now() - started)})`,
		);
		return 0;
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

main().then(
	(code) => process.exit(code),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
