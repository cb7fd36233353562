/**
 * `npm run bench`: measurements in real n8n against the platform simulator (20 ms added latency),
 * each comparison with both sides in the same run, several rounds, median and spread. Writes
 * bench/RESULTS.md. A report, not a test: nothing here fails on speed.
 *
 *   (a) Bot send text as users configure it (bench/userSends.ts): Group Message > Send Text with its fields
 *       as expressions vs HTTP Request with n8n's generic OAuth2 credential and one JSON-body expression,
 *       both in one running n8n, also under the platform limit of (e) (BENCH_CPU_PROF=<dir> profiles
 *       n8n; BENCH_USER_SENDS_ONLY=1 runs only these); then 500 items over 20 conversations, to 500 users and to one chat, vs n8n's
 *       HTTP Request node making the same calls with a Header Auth credential carrying a token
 *       fetched first (bench/sends.ts); (e) the same over 20 conversations under a platform rate
 *       limit of 50/s, bursts of 10, with a chart of delivered items per second.
 *   (b) Knowledge upload and download of a 256 MiB file (filesystem and database binary modes) vs HTTP Request:
 *       n8n's peak RSS above idle and seconds (bench/files.ts).
 *   (c) Trigger: 2,000 signed deliveries at 20 in flight vs the Webhook node (bench/trigger.ts).
 *   (d) Package: time to load all nodes and credentials; size of the packed tarball.
 *   (f) Queue mode: the burst of (c) through nginx to 2 webhook processes and 2 workers (PostgreSQL,
 *       Redis; scripts/lib/queue-cluster.ts), Workplace Trigger vs Webhook, a fresh cluster per side:
 *       answers, executions, runs per worker, peak RSS and CPU time of each n8n process (bench/queue-burst.ts).
 *   (g) Trigger: 1,000 deliveries with a wrong signature vs 1,000 signed ones at 20 in flight, one warm
 *       trigger set up as (c): deliveries/s, CPU seconds of n8n, every forged one 401 (bench/forged.ts).
 *
 * Switches: BENCH_ROUNDS (default 3), BENCH_TARGET (1 = n8n 1.x on Node 20, default; 2),
 * BENCH_ONLY=a,b,c,d,e,f,g (default all; a and e run together; one letter runs one section), BENCH_SEND_SCENARIOS (for a/e, e.g. "rate limit"), BENCH_BINARY_MODES=filesystem,database (for b), BENCH_KEEP=1 keeps the user folders.
 * For (c): BENCH_DELIVERIES (2000), BENCH_TRIGGER_SIDES (workplaceTrigger,workplaceTriggerBatched,webhook),
 * BENCH_RECORD_TIMEOUT_S (300), BENCH_PRODUCTION_CONCURRENCY (-1), BENCH_N8N_ENV (JSON, e.g. {"N8N_EXPRESSION_ENGINE":"legacy"}), BENCH_WARMUP (300).
 * For (g): BENCH_FORGED_DELIVERIES (1000 of each kind), BENCH_WARMUP and BENCH_N8N_ENV as for (c).
 * A partial run writes only its sections: BENCH_OUT=<file under bench/> keeps RESULTS.md as it is.
 * For (f): BENCH_DELIVERIES, BENCH_WARMUP, BENCH_RECORD_TIMEOUT_S and BENCH_N8N_ENV (every n8n process) as for (c);
 * BENCH_QUEUE_ROUND_ROBIN=1 spreads the one trigger URL over both webhook processes (default: one URL, one
 * process). Starts PostgreSQL, Redis and nginx as `npm run test:queue` does (installed with apt-get when missing).
 * Needs dist/ (npm run build) and an installed n8n (npm run n8n:install).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	TARGETS,
	createUserFolder,
	findInstalled,
	installCommunityPackage,
	n8nEnv,
	packPackage,
	repoRoot,
	type N8nInstall,
	type TargetId,
} from '../scripts/lib/n8n';
import { getFreePort, run } from '../scripts/lib/proc';
import { startSimulator } from '../simulator';
import { benchFiles, BINARY_MODES, filesSection } from './files';
import { benchForged, forgedSection } from './forged';
import { log, stat } from './lib';
import { benchQueueBurst, queueBurstSection } from './queue-burst';
import { benchSends, sendSections } from './sends';
import { benchTrigger, triggerSection } from './trigger';
import { benchUserSends, userSendSection } from './userSends';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const TARGET = (process.env.BENCH_TARGET ?? '1') as TargetId;
const ONLY = (process.env.BENCH_ONLY ?? 'a,b,c,d,e,f,g').split(',').map((s) => s.trim());
const LATENCY_MS = 20;
/** Report file under bench/ (a partial run can write elsewhere than RESULTS.md). */
const BENCH_OUT = process.env.BENCH_OUT ?? 'RESULTS.md';
const PACKAGE = 'n8n-nodes-workplace';

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
	// (f) starts its own n8n processes from the tarball; the others share one user folder.
	const inFolder = ['a', 'b', 'c', 'e', 'g'].filter((x) => ONLY.includes(x));
	if (inFolder.length || ONLY.includes('f')) {
		inst = findInstalled(TARGETS[TARGET]);
		if (!inst) throw new Error(`n8n ${TARGETS[TARGET].n8nVersion} is not installed: run \`npm run n8n:install\``);
		const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-bench-pack-'));
		const userFolder = inFolder.length ? createUserFolder('n8n-bench-') : undefined;
		const sim = await startSimulator({ port: 0, latencyMs: LATENCY_MS });
		try {
			const tarball = await packPackage(tmp);
			if (userFolder) {
				await installCommunityPackage(inst, userFolder, tarball);
				const env = n8nEnv(inst, {
					userFolder,
					logLevel: 'info',
					env: { N8N_RUNNERS_BROKER_PORT: String(await getFreePort()), N8N_PORT: String(await getFreePort()) },
				});
				if (ONLY.includes('a') || ONLY.includes('e')) {
					log(`(a, e) Bot send text vs HTTP Request: n8n ${TARGETS[TARGET].n8nVersion}, ${ROUNDS} round(s)`);
					log(`(a, e) Bot send text as users configure it vs HTTP Request (OAuth2), in one running n8n`);
					sections.push(...userSendSection(await benchUserSends(inst, userFolder, env, sim, ROUNDS), `n8n ${TARGETS[TARGET].n8nVersion}`));
					if (process.env.BENCH_USER_SENDS_ONLY !== '1') {
						sections.push(...sendSections(await benchSends(inst, userFolder, env, sim, ROUNDS), `n8n ${TARGETS[TARGET].n8nVersion}`));
					}
				}
				if (ONLY.includes('b')) {
					log(`(b) Knowledge 256 MiB upload and download vs HTTP Request: ${BINARY_MODES.join(' and ')} mode, ${ROUNDS} round(s)`);
					sections.push(...filesSection(await benchFiles(inst, userFolder, env, sim, ROUNDS), `n8n ${TARGETS[TARGET].n8nVersion}`));
				}
				if (ONLY.includes('c')) {
					log(`(c) Trigger deliveries vs Webhook: ${ROUNDS} round(s)`);
					sections.push(...triggerSection(await benchTrigger(inst, path.join(userFolder, '.n8n', 'nodes'), sim, ROUNDS)));
				}
				if (ONLY.includes('g')) {
					log(`(g) Trigger: forged deliveries vs signed ones, ${ROUNDS} round(s)`);
					const rounds = await benchForged(inst, path.join(userFolder, '.n8n', 'nodes'), sim, ROUNDS);
					sections.push(...forgedSection(rounds, `n8n ${TARGETS[TARGET].n8nVersion}`));
				}
			}
			if (ONLY.includes('f')) {
				log(`(f) Queue mode: trigger deliveries vs Webhook through 2 webhook processes and 2 workers, ${ROUNDS} round(s)`);
				sections.push(...queueBurstSection(await benchQueueBurst(inst, tarball, sim, ROUNDS)));
			}
		} finally {
			await sim.close();
			fs.rmSync(tmp, { recursive: true, force: true });
			if (userFolder && !process.env.BENCH_KEEP) fs.rmSync(userFolder, { recursive: true, force: true });
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
