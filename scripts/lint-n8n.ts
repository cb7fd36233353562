/**
 * Lints the package as n8n's own tooling does: `n8n-node lint` of @n8n/node-cli (pinned, installed
 * on demand into the cache) with the repository's eslint.config.mjs, which is n8n's default config
 * byte for byte. package.json declares `"n8n": {"strict": true}`, under which `n8n-node lint` first
 * refuses any other ESLint config; the default one holds the cloud rule set.
 *
 * The default config lints every .ts file with the cloud rules, and tests, simulator and scripts
 * are not shipped (they follow eslint.project.config.mjs): package.json, tsconfig.json,
 * eslint.config.mjs, nodes/ and credentials/ are copied into a throwaway folder shaped like a
 * package `n8n-node new` creates, and `n8n-node lint` runs there. Any problem fails, warnings included.
 *
 *   npm run lint:n8n              (npm run lint runs it after this repository's own config)
 */
import { ensureNodeCli, NODE_CLI_VERSION } from './lib/n8n';
import { runN8nLint } from './lib/n8n/node-cli-checks';
import { formatDuration } from './lib/proc';

async function main(): Promise<number> {
	const started = Date.now();
	const cli = await ensureNodeCli();
	const result = await runN8nLint(cli);
	process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
	if (!result.ok) {
		console.error(`n8n-node lint (@n8n/node-cli ${NODE_CLI_VERSION}) FAILED (warnings count as failures)`);
		return 1;
	}
	console.log(
		`n8n-node lint (@n8n/node-cli ${NODE_CLI_VERSION}, n8n's default ESLint config${result.strict ? ', strict mode' : ''}): no problems in nodes/, credentials/ and package.json (${formatDuration(Date.now() - started)})`,
	);
	return 0;
}

main().then(
	(code) => process.exit(code),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
