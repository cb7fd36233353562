/**
 * `npm run dev`: a real n8n with this package installed, the platform simulator, the six
 * credentials and every example workflow, for trying the nodes in n8n's editor.
 *
 *   node build/scripts/dev.js [--n8n 1|2] [--port 5678] [--sim-port 3900] [--user-folder DIR] [--fresh] [--watch]
 *
 * (after `npm run build && npm run build:tools`; `npm run dev -- --n8n 2` passes options through npm).
 * Default target: n8n 1.x (Node 20, this machine's); `--n8n 2` (or env DEV_N8N=2) runs n8n 2.x on
 * Node 24. n8n is installed on first use into the git-ignored cache (`.cache/`, or
 * $WORKPLACE_N8N_CACHE), as for the e2e tests.
 *
 * On each start:
 * 1. the built package is packed and installed into the user folder `.n8n-e2e/dev-n8n<major>/`
 *    (git-ignored, kept between runs; --fresh empties it) as n8n's Community Nodes panel does;
 * 2. the simulator starts (http://127.0.0.1:3900);
 * 3. the six credentials (pointing at the simulator) and examples/*.json are imported with n8n's
 *    CLI (same ids each time: an example you changed in the editor is replaced);
 * 4. `n8n start` on http://localhost:5678, the owner account is set up, its login printed, and
 *    the examples started by a Workplace Trigger or a Webhook node are activated (their URLs printed).
 * --watch: `tsc --watch` rebuilds the nodes; after each successful rebuild n8n is stopped, the
 * package reinstalled and n8n started again.
 * Ctrl-C stops n8n (with its task runners), the simulator and the compiler.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	activateWorkflow,
	needsN8n2,
	importExamples,
	isServerStarted,
	isTriggerStarted,
	loadExamples,
	triggerWebhookUrl,
	webhookNodeUrl,
	type SimulatorInfo,
} from './lib/examples';
import {
	E2E_OWNER,
	ensureN8n,
	installCommunityPackage,
	packPackage,
	parseTargetIds,
	repoRoot,
	startN8nServer,
	TARGETS,
	type N8nInstall,
	type N8nServer,
} from './lib/n8n';
import { killGroup, runChecked, trackGroup, untrackGroup } from './lib/proc';

interface Simulator extends SimulatorInfo {
	controlUrl: string;
	close(): Promise<void>;
}

const VALUE_OPTIONS = ['--n8n', '--port', '--sim-port', '--user-folder'];

function option(args: string[], name: string): string | undefined {
	const i = args.indexOf(name);
	if (i >= 0) return args[i + 1];
	const eq = args.find((a) => a.startsWith(`${name}=`));
	return eq?.slice(name.length + 1);
}

function log(message: string): void {
	process.stdout.write(`[dev] ${message}\n`);
}

async function installPackage(inst: N8nInstall, userFolder: string): Promise<void> {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-dev-'));
	try {
		const pkg = await installCommunityPackage(inst, userFolder, await packPackage(tmp));
		log(`installed ${pkg.name}@${pkg.version} into ${pkg.dir}`);
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const positional = args.filter((a, i) => !a.startsWith('--') && !VALUE_OPTIONS.includes(args[i - 1]));
	const [id] = parseTargetIds(option(args, '--n8n') ?? positional[0] ?? process.env.DEV_N8N ?? '1');
	const target = TARGETS[id];
	const port = Number(option(args, '--port') ?? process.env.N8N_PORT ?? 5678);
	const simPort = Number(option(args, '--sim-port') ?? process.env.SIMULATOR_PORT ?? 3900);
	const watch = args.includes('--watch');
	const root = repoRoot();

	const started = Date.now();
	const inst = await ensureN8n(target, { log: (m) => log(m) });
	const userFolder = path.resolve(
		option(args, '--user-folder') ?? process.env.DEV_USER_FOLDER ?? path.join(root, '.n8n-e2e', `dev-n8n${id}`),
	);
	if (args.includes('--fresh')) fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	await installPackage(inst, userFolder);

	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { startSimulator } = require(path.join(root, 'build', 'simulator', 'index.js')) as {
		startSimulator: (o: { port: number }) => Promise<Simulator>;
	};
	const sim = await startSimulator({ port: simPort });
	log(`simulator on ${sim.url}`);

	let server: N8nServer | undefined;
	let compiler: ChildProcess | undefined;
	let stopping = false;
	const stopAll = async () => {
		stopping = true;
		if (compiler?.pid) {
			killGroup(compiler.pid, 'SIGTERM');
			untrackGroup(compiler.pid);
		}
		await server?.stop();
		await sim.close();
	};

	try {
		const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-dev-import-'));
		try {
			const imported = await importExamples(inst, userFolder, sim, workDir);
			log(`imported credentials: ${imported.credentials.join(', ')}`);
			log(`imported ${imported.workflows.length} example workflows from examples/`);
		} finally {
			fs.rmSync(workDir, { recursive: true, force: true });
		}

		const examples = loadExamples();
		const startServer = async (): Promise<N8nServer> => {
			const s = await startN8nServer(inst, { userFolder, port, echoPrefix: '[n8n] ', logLevel: 'warn', startTimeoutMs: 300_000 });
			// the owner is set up once per user folder; later starts (and --watch restarts) log in
			const settings = await s.rest<{ userManagement?: { showSetupOnFirstLoad?: boolean } }>('GET', '/settings');
			if (settings.userManagement?.showSetupOnFirstLoad === false) await s.login();
			else await s.setupOwner();
			for (const e of examples.filter(isServerStarted)) {
				if (target.major === '1' && needsN8n2(e)) {
					log(`not activated on n8n 1.x: "${e.name}" needs n8n 2's human review tools (docs/team-assistant.md says what to change for 1.x)`);
					continue;
				}
				try {
					await activateWorkflow(s, e.id);
				} catch (err) {
					log(`could not activate "${e.name}": ${(err as Error).message}`);
				}
			}
			return s;
		};
		server = await startServer();

		const url = `http://localhost:${port}`;
		const triggers = examples.filter(isTriggerStarted);
		const replyFlow = triggers.find((e) => e.file === 'flow-reply-to-bot-messages.json') ?? triggers[0];
		process.stdout.write(`
n8n ${target.n8nVersion} (Node ${inst.node.version}) with n8n-nodes-workplace is ready (${Math.round((Date.now() - started) / 1000)} s):

  editor:      ${url}
  login:       ${E2E_OWNER.email} / ${E2E_OWNER.password}
  simulator:   ${sim.url}  (request log: curl ${sim.controlUrl}/requests)
  credentials: Workplace Knowledge / Bot / Form / Task / Webhook (simulator)
  examples:    ${examples.length} workflows from examples/ (Overview > Workflows), e.g. open
               "${examples.find((e) => e.file === 'bot-buttons-to-direct-chat.json')?.name ?? examples[0].name}"
               and click "Execute workflow"
  active:      ${examples
		.filter(isServerStarted)
		.filter((e) => target.major !== '1' || !needsN8n2(e))
		.map((e) => `"${e.name}"\n               ${isTriggerStarted(e) ? triggerWebhookUrl(url, e) : webhookNodeUrl(url, e)}`)
		.join('\n               ')}
  try it:      node build/simulator/send-webhook.js ${replyFlow ? triggerWebhookUrl(url, replyFlow) : '<webhook url>'} --text "Hello bot"
               curl ${sim.controlUrl}/requests     (the bot's reply: POST /bot/v2/message/push)
  user folder: ${userFolder}
${watch ? 'Watching nodes/ and credentials/: n8n restarts after each rebuild.\n' : ''}Ctrl-C stops everything.
`);

		if (watch) {
			const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
			compiler = spawn(process.execPath, [tsc, '-p', 'tsconfig.json', '--watch', '--preserveWatchOutput'], {
				cwd: root,
				stdio: ['ignore', 'pipe', 'pipe'],
				detached: true,
			});
			trackGroup(compiler.pid);
			let first = true;
			let restarting: Promise<void> = Promise.resolve();
			compiler.stdout!.on('data', (chunk: Buffer) => {
				for (const line of chunk.toString('utf8').split('\n')) {
					if (!line.trim()) continue;
					process.stdout.write(`[tsc] ${line}\n`);
					const done = /Found (\d+) errors?\. Watching for file changes/.exec(line);
					if (!done) continue;
					if (first) {
						first = false; // the initial compile of what was just built
						continue;
					}
					if (done[1] !== '0' || stopping) continue;
					restarting = restarting.then(async () => {
						if (stopping) return;
						try {
							log('rebuilt: copying icons, reinstalling the package and restarting n8n ...');
							await runChecked(process.execPath, [path.join(root, 'node_modules', 'gulp', 'bin', 'gulp.js'), 'build:icons'], {
								cwd: root,
								timeoutMs: 120_000,
							});
							await server?.stop();
							await installPackage(inst, userFolder);
							server = await startServer();
							log(`n8n restarted on ${url}`);
						} catch (e) {
							log(`restart failed: ${(e as Error).message}`);
						}
					});
				}
			});
		}

		await new Promise<void>((resolve) => {
			process.once('SIGINT', resolve);
			process.once('SIGTERM', resolve);
			const watchExit = () => {
				// n8n exiting on its own (not during a restart) ends the session
				server?.process.once('exit', () => {
					if (!stopping && !watch) resolve();
				});
			};
			watchExit();
		});
		log('stopping n8n and the simulator ...');
	} finally {
		await stopAll();
	}
}

main().then(
	() => process.exit(0),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
