/**
 * `npm run bench`: measurements in real n8n against the platform simulator (20 ms added latency),
 * each comparison with both sides in the same run, several rounds, median and spread. Writes
 * bench/RESULTS.md. A report, not a test: nothing here fails on speed.
 *
 *   (a) Bot send text, 500 items to 500 users and 500 items to one chat, vs n8n's HTTP Request
 *       node making the same calls with a Header Auth credential carrying a token fetched first.
 *   (b) Knowledge upload and download of a 256 MiB file (filesystem and database binary modes) vs HTTP Request:
 *       n8n's peak RSS above idle and seconds (bench/files.ts).
 *   (c) Trigger: 2,000 signed deliveries at 20 in flight vs the Webhook node (bench/trigger.ts).
 *   (d) Package: time to load all nodes and credentials; size of the packed tarball.
 *
 * Switches: BENCH_ROUNDS (default 3), BENCH_TARGET (1 = n8n 1.x on Node 20, default; 2),
 * BENCH_ONLY=a,b,c,d (default all), BENCH_BINARY_MODES=filesystem,database (for b), BENCH_KEEP=1 keeps the user folders.
 * For (c): BENCH_DELIVERIES (2000), BENCH_TRIGGER_SIDES (workplaceTrigger,workplaceTriggerBatched,webhook),
 * BENCH_RECORD_TIMEOUT_S (300), BENCH_PRODUCTION_CONCURRENCY (-1), BENCH_N8N_ENV (JSON, e.g. {"N8N_EXPRESSION_ENGINE":"legacy"}). Needs dist/ (npm run build) and an installed n8n (npm run n8n:install).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	TARGETS,
	createUserFolder,
	executeWorkflow,
	findInstalled,
	importCredentials,
	importWorkflows,
	installCommunityPackage,
	n8nEnv,
	packPackage,
	repoRoot,
	type N8nInstall,
	type TargetId,
} from '../scripts/lib/n8n';
import { getFreePort, run } from '../scripts/lib/proc';
import { startSimulator, type Simulator } from '../simulator';
import { chain, credentialId, manualTrigger, node, workflowId } from '../test/e2e/workflow';
import { benchFiles, BINARY_MODES, filesSection } from './files';
import { log, stat } from './lib';
import { benchTrigger, triggerSection } from './trigger';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const TARGET = (process.env.BENCH_TARGET ?? '1') as TargetId;
const ONLY = (process.env.BENCH_ONLY ?? 'a,b,c,d').split(',').map((s) => s.trim());
const LATENCY_MS = 20;
/** Report file under bench/ (a partial run can write elsewhere than RESULTS.md). */
const BENCH_OUT = process.env.BENCH_OUT ?? 'RESULTS.md';
const ITEMS = 500;
const PACKAGE = 'n8n-nodes-workplace';

// ---------------------------------------------------------------------------------------------
// (a) Bot send text vs HTTP Request

interface SendRound {
	side: 'workplaceBot' | 'workplaceBot20' | 'httpRequest';
	scenario: '500 users' | 'one chat';
	nodeMs: number;
	itemsPerSecond: number;
	sends: number;
	tokenRequests: number;
	delivered: number;
	distinctDelivered: number;
	inOrder?: boolean;
	/** For one chat: how many adjacent arrivals are out of item order. */
	inversions?: number;
	errors: number;
}

const SIDE_NAMES: Record<SendRound['side'], string> = {
	workplaceBot: 'Workplace Bot (Concurrency 5, default)',
	workplaceBot20: 'Workplace Bot (Concurrency 20)',
	httpRequest: 'HTTP Request',
};

const botCred = { id: credentialId('bench/workplaceBotOAuth2Api'), name: 'Workplace Bot (bench)', type: 'workplaceBotOAuth2Api' };
const headerCred = { id: credentialId('bench/httpHeaderAuth'), name: 'Bearer token (bench)', type: 'httpHeaderAuth' };

function itemsCode(uids: string[]): string {
	return `const uids = ${JSON.stringify(uids)};\nreturn uids.map((uid, i) => ({ json: { uid, text: 'bench ' + i } }));`;
}

function sendWorkflow(name: string, side: SendRound['side'], uids: string[], simUrl: string) {
	const items = node('Items', 'n8n-nodes-base.code', 2, { jsCode: itemsCode(uids) });
	const send =
		side !== 'httpRequest'
			? node('Send', `${PACKAGE}.workplaceBot`, 1, {
					resource: 'directMessage',
					operation: 'sendText',
					userId: '={{ $json.uid }}',
					text: '={{ $json.text }}',
					...(side === 'workplaceBot20' ? { requestOptions: { concurrency: 20 } } : {}),
				}, { credentials: { ...botCred, data: () => ({}) } })
			: node('Send', 'n8n-nodes-base.httpRequest', 4.2, {
					method: 'POST',
					url: `${simUrl}/bot/v1/direct/message`,
					authentication: 'genericCredentialType',
					genericAuthType: 'httpHeaderAuth',
					sendBody: true,
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify({ uid: $json.uid, message: { type: "text", data: $json.text } }) }}',
					options: {},
				}, { credentials: { ...headerCred, data: () => ({}) } });
	return { ...chain([manualTrigger(), items, send]), id: workflowId(name), name, active: false, settings: { executionOrder: 'v1' } };
}

interface RunData {
	data?: { resultData?: { runData?: Record<string, Array<{ executionTime?: number; data?: { main?: Array<Array<{ json?: Record<string, unknown> }>> } }>>; error?: unknown } };
}

async function benchSends(inst: N8nInstall, userFolder: string, env: NodeJS.ProcessEnv, sim: Simulator): Promise<SendRound[]> {
	const users = Array.from({ length: ITEMS }, (_, n) => sim.state.addUser({ username: `bench${n}` })._id);
	const oneUser = sim.state.addUser({ username: 'bench-one-chat' })._id;
	const oneChat = Array.from({ length: ITEMS }, () => oneUser);

	// The HTTP Request side gets a token fetched by hand, as a user would do it.
	const tokenResponse = await fetch(`${sim.url}/oauth/token`, {
		method: 'POST',
		headers: {
			authorization: `Basic ${Buffer.from(`${sim.credentials.botClientId}:${sim.credentials.botClientSecret}`).toString('base64')}`,
			'content-type': 'application/x-www-form-urlencoded',
		},
		body: 'grant_type=client_credentials',
	});
	const token = ((await tokenResponse.json()) as { access_token: string }).access_token;

	const workDir = path.join(userFolder, 'bench-input');
	fs.mkdirSync(workDir, { recursive: true });
	await importCredentials(inst, env, [
		{ ...botCred, data: { baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret: sim.credentials.botClientSecret } },
		{ ...headerCred, data: { name: 'Authorization', value: `Bearer ${token}` } },
	], workDir);
	const plans = [
		{ side: 'workplaceBot' as const, scenario: '500 users' as const, uids: users },
		{ side: 'httpRequest' as const, scenario: '500 users' as const, uids: users },
		{ side: 'workplaceBot20' as const, scenario: '500 users' as const, uids: users },
		{ side: 'workplaceBot' as const, scenario: 'one chat' as const, uids: oneChat },
		{ side: 'httpRequest' as const, scenario: 'one chat' as const, uids: oneChat },
	];
	const workflows = plans.map((p) => sendWorkflow(`bench: ${p.side} ${p.scenario}`, p.side, p.uids, sim.url));
	await importWorkflows(inst, env, workflows, workDir);

	const rounds: SendRound[] = [];
	for (let round = 1; round <= ROUNDS; round++) {
		for (const [i, plan] of plans.entries()) {
			sim.log.clear();
			sim.state.clearMessages();
			const exec = await executeWorkflow(inst, env, workflows[i].id, 600_000);
			const runData = (exec.data as RunData | undefined)?.data?.resultData?.runData?.Send?.[0];
			if (!runData) throw new Error(`${workflows[i].name}: no run data (exit ${exec.run.code})\n${exec.run.stdout.slice(-2000)}\n${exec.run.stderr.slice(-2000)}`);
			const nodeMs = runData.executionTime ?? NaN;
			const out = runData.data?.main?.[0] ?? [];
			const requests = sim.log.all();
			const sends = requests.filter((r) => r.path === '/bot/v1/direct/message').length;
			const tokenRequests = requests.filter((r) => r.interface === 'oauth').length;
			const messages = sim.state.sentMessages();
			const texts = messages.map((m) => String((m.content as { text?: unknown }).text));
			const result: SendRound = {
				side: plan.side,
				scenario: plan.scenario,
				nodeMs,
				itemsPerSecond: ITEMS / (nodeMs / 1000),
				sends,
				tokenRequests,
				delivered: messages.length,
				distinctDelivered: new Set(texts).size,
				errors: out.filter((o) => o.json?.error !== undefined).length + requests.filter((r) => r.status >= 400).length,
			};
			if (plan.scenario === 'one chat') {
				const order = texts.map((t) => Number(t.replace('bench ', '')));
				result.inOrder = order.every((v, n) => v === n);
				result.inversions = order.filter((v, n) => n > 0 && v < order[n - 1]).length;
			}
			rounds.push(result);
			log(`  round ${round} ${plan.side} ${plan.scenario}: ${nodeMs} ms, ${result.itemsPerSecond.toFixed(0)} items/s, ${sends} sends + ${tokenRequests} token, ${result.delivered} delivered` +
				(result.inOrder === undefined ? '' : `, in order: ${result.inOrder} (${result.inversions} inversions)`));
		}
	}
	return rounds;
}

// ---------------------------------------------------------------------------------------------
// (d) package load time and tarball size

interface PackageFigures {
	loadMs: number[];
	tarballBytes: number;
	unpackedBytes: number;
	files: number;
	nodes: number;
	credentials: number;
}

async function benchPackage(): Promise<PackageFigures> {
	const root = repoRoot();
	const pj = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
	const files = [...pj.n8n.nodes, ...pj.n8n.credentials].map((f) => path.join(root, f));
	// A fresh process per round: require every node and credential file and construct each class,
	// as n8n's loader does (n8n-workflow is already loaded by n8n, so it is required first).
	const script = `
		require('n8n-workflow');
		const t = process.hrtime.bigint();
		for (const f of ${JSON.stringify(files)}) {
			const m = require(f);
			for (const C of Object.values(m)) if (typeof C === 'function') new C();
		}
		process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e6));`;
	const loadMs: number[] = [];
	for (let i = 0; i < Math.max(5, ROUNDS); i++) {
		const r = await run(process.execPath, ['-e', script], { cwd: root, timeoutMs: 60_000 });
		loadMs.push(Number(r.stdout.trim()));
	}
	const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
	const info = (JSON.parse(out) as Array<{ size: number; unpackedSize: number; entryCount: number }>)[0];
	return { loadMs, tarballBytes: info.size, unpackedBytes: info.unpackedSize, files: info.entryCount, nodes: pj.n8n.nodes.length, credentials: pj.n8n.credentials.length };
}

// ---------------------------------------------------------------------------------------------
// report

function machine(inst?: N8nInstall): string[] {
	const cpus = os.cpus();
	let commit = '';
	try {
		commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot(), encoding: 'utf8' }).trim();
	} catch {
		commit = 'unknown';
	}
	const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { version: string };
	return [
		`- Machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()} (${os.arch()})`,
		`- ${PACKAGE} ${pkg.version} at ${commit}; bench driver on Node ${process.version}`,
		inst ? `- n8n ${TARGETS[TARGET].n8nVersion} on Node ${inst.node.version}, sqlite, filesystem binary mode unless a section says otherwise, task runners internal` : '- n8n: not run',
		`- Simulator in the bench process, ${LATENCY_MS} ms added latency per request; ${ROUNDS} round(s); figures are median (min–max, ±half the range as % of the median)`,
		`- Run ${new Date().toISOString()}`,
	];
}

function sendSection(rounds: SendRound[]): string[] {
	const lines: string[] = ['## (a) Bot send text: Workplace Bot vs HTTP Request', ''];
	lines.push('Manual Trigger → Code (500 items) → the sending node, run by `n8n execute`. Time is the sending node\'s own execution time as n8n records it (`executionTime`), so n8n\'s start-up is not counted. The HTTP Request node (v4.2) posts the same JSON to the same endpoint with a Header Auth credential holding a bearer token the bench fetched first (so its token request is not counted; ours fetches and saves its token itself).', '');
	lines.push('| scenario | node | node time (ms) | items/s | sends | token requests | delivered (distinct) | order at the simulator |');
	lines.push('|---|---|---|---|---|---|---|---|');
	for (const scenario of ['500 users', 'one chat'] as const) {
		for (const side of ['workplaceBot', 'workplaceBot20', 'httpRequest'] as const) {
			const rs = rounds.filter((r) => r.scenario === scenario && r.side === side);
			if (!rs.length) continue;
			const uniq = (vals: Array<number | string | boolean | undefined>) => [...new Set(vals.map(String))].join(' / ');
			const order = scenario === 'one chat' ? rs.map((r) => (r.inOrder ? 'in order' : `${r.inversions} inversions`)).join(', ') : '—';
			lines.push(`| ${scenario} | ${SIDE_NAMES[side]} | ${stat(rs.map((r) => r.nodeMs), 0)} | ${stat(rs.map((r) => r.itemsPerSecond), 0)} | ${uniq(rs.map((r) => r.sends))} | ${uniq(rs.map((r) => r.tokenRequests))} | ${uniq(rs.map((r) => r.delivered))} (${uniq(rs.map((r) => r.distinctDelivered))}) | ${order} |`);
		}
	}
	lines.push('');
	lines.push('Notes:');
	lines.push('- Workplace Bot works on up to 5 conversations at once ("Request Options → Concurrency", default 5) and sends the items of one conversation strictly one after another, so "one chat" is sequential by design: its rate is about 1 / (latency + per-call overhead). With 5 calls in flight and 20 ms latency per call its ceiling is about 5 / (20 ms + connection and n8n overhead); the Concurrency 20 row shows the same node when more calls may be in flight.');
	lines.push('- HTTP Request (no batching) starts the calls of all items at once and promises no order. "In order" above is a property of the simulator: it records a message when the request arrives and adds its latency afterwards, so arrival order is send order; a platform whose processing time varies per call would reorder them. HTTP Request keeps order only with Batching (1 item per batch), i.e. sequential.');
	lines.push('- The token requests column counts calls to /oauth/token during the run: ours fetches one token in the first execution and n8n saves it in the credential, so later executions reuse it; the HTTP Request side uses a token fetched by hand before the runs.');
	lines.push('');
	return lines;
}

function packageSection(p: PackageFigures): string[] {
	return [
		'## (d) Package',
		'',
		`- Load time of all ${p.nodes} nodes and ${p.credentials} credentials (require + construct, fresh Node ${process.version} process each, n8n-workflow preloaded): ${stat(p.loadMs, 1, ' ms')} over ${p.loadMs.length} rounds`,
		`- Packed tarball: ${(p.tarballBytes / 1024).toFixed(1)} KiB (${p.tarballBytes} bytes), unpacked ${(p.unpackedBytes / 1024).toFixed(1)} KiB, ${p.files} files`,
		'- The load time is mostly reading and compiling the JavaScript files (n8n loads node classes on first use); the tarball holds dist/, package.json, README.md and LICENSE only.',
		'',
	];
}

async function main(): Promise<void> {
	const sections: string[] = [];
	let inst: N8nInstall | undefined;
	const inN8n = ['a', 'b', 'c'].filter((x) => ONLY.includes(x));
	if (inN8n.length) {
		inst = findInstalled(TARGETS[TARGET]);
		if (!inst) throw new Error(`n8n ${TARGETS[TARGET].n8nVersion} is not installed: run \`npm run n8n:install\``);
		const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-bench-pack-'));
		const userFolder = createUserFolder('n8n-bench-');
		const sim = await startSimulator({ port: 0, latencyMs: LATENCY_MS });
		try {
			const tarball = await packPackage(tmp);
			await installCommunityPackage(inst, userFolder, tarball);
			const env = n8nEnv(inst, {
				userFolder,
				logLevel: 'info',
				env: { N8N_RUNNERS_BROKER_PORT: String(await getFreePort()), N8N_PORT: String(await getFreePort()) },
			});
			if (ONLY.includes('a')) {
				log(`(a) Bot send text vs HTTP Request: n8n ${TARGETS[TARGET].n8nVersion}, ${ROUNDS} round(s)`);
				sections.push(...sendSection(await benchSends(inst, userFolder, env, sim)));
			}
			if (ONLY.includes('b')) {
				log(`(b) Knowledge 256 MiB upload and download vs HTTP Request: ${BINARY_MODES.join(' and ')} mode, ${ROUNDS} round(s)`);
				sections.push(...filesSection(await benchFiles(inst, userFolder, env, sim, ROUNDS), `n8n ${TARGETS[TARGET].n8nVersion}`));
			}
			if (ONLY.includes('c')) {
				log(`(c) Trigger deliveries vs Webhook: ${ROUNDS} round(s)`);
				sections.push(...triggerSection(await benchTrigger(inst, path.join(userFolder, '.n8n', 'nodes'), sim, ROUNDS)));
			}
		} finally {
			await sim.close();
			fs.rmSync(tmp, { recursive: true, force: true });
			if (!process.env.BENCH_KEEP) fs.rmSync(userFolder, { recursive: true, force: true });
		}
	}
	if (ONLY.includes('d')) {
		log('(d) package load time and size');
		sections.push(...packageSection(await benchPackage()));
	}
	const report = ['# Benchmarks', '', '`npm run bench` (bench/bench.ts). Reports only; no test asserts a speed.', '', ...machine(inst), '', ...sections].join('\n');
	const file = path.join(repoRoot(), 'bench', BENCH_OUT);
	fs.writeFileSync(file, report);
	log(`\nwrote ${file}\n\n${report}`);
}

void main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
