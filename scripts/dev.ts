/**
 * A real n8n with this package installed, next to the platform simulator, for trying the nodes
 * in n8n's editor.
 *
 *   node build/scripts/dev.js [1|2] [--port 5678] [--sim-port 3900] [--no-simulator] [--fresh]
 *
 * (after `npm run build && npm run build:tools`). Default target: 2 (n8n 2.x on Node 24);
 * env DEV_N8N=1|2 also chooses. The user folder `.n8n-e2e/dev-n8n<major>/` (git-ignored) is
 * kept between runs; --fresh starts from an empty one. On each start the freshly built package
 * is installed as n8n's Community Nodes panel would, and a "Workplace Knowledge (simulator)"
 * credential pointing to the simulator is imported. Ctrl-C stops n8n and the simulator.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	E2E_OWNER,
	ensureN8n,
	importCredentials,
	installCommunityPackage,
	n8nEnv,
	packPackage,
	parseTargetIds,
	repoRoot,
	startN8nServer,
	TARGETS,
} from './lib/n8n';
import type { E2eSimulator, ScenarioContext } from '../test/e2e/types';
import { knowledgeCredential } from '../test/e2e/workplace';

function option(args: string[], name: string): string | undefined {
	const i = args.indexOf(name);
	return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const positional = args.filter((a, i) => !a.startsWith('--') && !['--port', '--sim-port'].includes(args[i - 1]));
	const [id] = parseTargetIds(positional[0] ?? process.env.DEV_N8N ?? '2');
	const target = TARGETS[id];
	const port = Number(option(args, '--port') ?? process.env.N8N_PORT ?? 5678);
	const simPort = Number(option(args, '--sim-port') ?? 3900);
	const withSimulator = !args.includes('--no-simulator');

	const inst = await ensureN8n(target);
	const userFolder = path.join(repoRoot(), '.n8n-e2e', `dev-n8n${id}`);
	if (args.includes('--fresh')) fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });

	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-dev-'));
	try {
		const pkg = await installCommunityPackage(inst, userFolder, await packPackage(tmp));
		console.log(`Installed ${pkg.name}@${pkg.version} into ${pkg.dir}`);
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}

	let sim: E2eSimulator | undefined;
	if (withSimulator) {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { startSimulator } = require(path.join(repoRoot(), 'build', 'simulator', 'index.js')) as {
			startSimulator: (o: { port: number }) => Promise<E2eSimulator>;
		};
		sim = await startSimulator({ port: simPort });
		const ctx = { sim, target: id, n8nVersion: target.n8nVersion, nodeVersion: inst.node.version, userFolder } as ScenarioContext;
		const creds = [knowledgeCredential].map((c) => ({ id: c.id, name: c.name, type: c.type, data: c.data(ctx) }));
		await importCredentials(inst, n8nEnv(inst, { userFolder }), creds, userFolder);
		console.log(`Simulator on ${sim.url}; imported credential(s): ${creds.map((c) => c.name).join(', ')}`);
	}

	const server = await startN8nServer(inst, { userFolder, port, echoPrefix: '[n8n] ', startTimeoutMs: 300_000 });
	try {
		await server.setupOwner();
	} catch {
		// owner set up in an earlier run
	}
	console.log(`
n8n ${target.n8nVersion} (Node ${inst.node.version}) is ready: ${server.url}
  login:       ${E2E_OWNER.email} / ${E2E_OWNER.password}
  user folder: ${userFolder}${sim ? `\n  simulator:   ${sim.url} (knowledge API ${sim.knowledgeUrl})` : ''}
Ctrl-C stops.`);

	await new Promise<void>((resolve) => {
		process.once('SIGINT', resolve);
		process.once('SIGTERM', resolve);
		server.process.once('exit', resolve);
	});
	console.log('Stopping ...');
	await server.stop();
	await sim?.close();
}

main().then(
	() => process.exit(0),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
