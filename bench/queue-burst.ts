/**
 * (f) Queue mode under the burst of (c): n8n in queue mode on one host (scripts/lib/queue-cluster.ts,
 * as `npm run test:queue`: PostgreSQL, Redis, a main process, 2 webhook processes behind nginx,
 * 2 workers), the same workflows as (c) (bench/trigger.ts workflowBody) for the Workplace Trigger
 * at its defaults and n8n's Webhook node, each side on its own fresh cluster. Counted: answers,
 * executions recorded (through the main process's REST API), runs per worker, and the peak RSS
 * above start and CPU time of every n8n process.
 */
import type { N8nInstall } from '../scripts/lib/n8n';
import {
	clusterOutputTails,
	clusterProcesses,
	DEFAULT_WORKER_CONCURRENCY,
	executionsPerWorker,
	startQueueCluster,
	workerLogMarks,
	type QueueCluster,
} from '../scripts/lib/queue-cluster';
import type { Simulator } from '../simulator';
import { log, median, MiB, stat } from './lib';
import {
	burst,
	createSideWorkflow,
	DELIVERIES,
	describeAnswers,
	IN_FLIGHT,
	SIDE_NAMES,
	warmUp,
	WARMUP,
	type Burst,
	type BurstTarget,
	type Side,
} from './trigger';

/** The Workplace Trigger at its defaults (received events saved on every delivery) and n8n's Webhook node. */
const SIDES: Side[] = ['workplaceTrigger', 'webhook'];
const WORKERS = 2;
const WEBHOOK_PROCESSES = 2;
/**
 * BENCH_QUEUE_ROUND_ROBIN=1: nginx spreads the requests of one URL over both webhook processes.
 * Default: each URL goes to one webhook process (the routing the README asks for the trigger).
 */
const ROUND_ROBIN = process.env.BENCH_QUEUE_ROUND_ROBIN === '1';

export interface QueueBurstRound extends Burst {
	side: Side;
	/** Names of the processes in peaksAboveStart's order (main, webhook1, …, worker1, …). */
	processes: string[];
	/** Executions each worker started during the round (its log). */
	perWorker: number[];
}

export interface QueueBurstResult {
	rounds: QueueBurstRound[];
	/** How long each side's cluster took to start. */
	startups: Array<{ side: Side; timings: string[] }>;
	n8nVersion: string;
}

/** Each side on its own fresh cluster, one after another: one side's queue and database never weigh on the other's figures. */
export async function benchQueueBurst(inst: N8nInstall, tarball: string, sim: Simulator, rounds: number): Promise<QueueBurstResult> {
	const result: QueueBurstResult = { rounds: [], startups: [], n8nVersion: inst.target.n8nVersion };
	for (const side of SIDES) {
		const started = Date.now();
		let cluster: QueueCluster | undefined;
		try {
			cluster = await startQueueCluster(inst, {
				tarball,
				workers: WORKERS,
				webhookProcesses: WEBHOOK_PROCESSES,
				nginxHash: ROUND_ROBIN ? '' : undefined,
				env: { EXECUTIONS_DATA_PRUNE: 'false', ...(JSON.parse(process.env.BENCH_N8N_ENV ?? '{}') as Record<string, string>) },
				log: (m) => log(`  ${m}`),
			});
			result.startups.push({ side, timings: cluster.timings });
			log(`  ${side}: cluster up in ${((Date.now() - started) / 1000).toFixed(0)} s (${cluster.timings.join(', ')})`);
			const secret = sim.credentials.webhookSecret;
			const { workflowId, webhookId, webhookPath } = await createSideWorkflow(cluster.main, side, secret);
			const processes = clusterProcesses(cluster).map(({ name, server }) => ({ name, pid: server.pid! }));
			const target: BurstTarget = {
				server: cluster.main,
				workflowId,
				url: cluster.webhookUrl(webhookId, webhookPath),
				secret,
				processes,
				label: `${side} (queue mode)`,
			};
			await warmUp(target);
			for (let round = 1; round <= rounds; round++) {
				const marks = workerLogMarks(cluster);
				const measured = await burst(target, round);
				const perWorker = executionsPerWorker(cluster, marks);
				log(`    runs per worker: ${perWorker.join(' + ')}`);
				result.rounds.push({ side, processes: processes.map((p) => p.name), perWorker, ...measured });
			}
		} catch (e) {
			const tails = cluster ? `\n${clusterOutputTails(cluster)}` : '';
			throw new Error(`(f) queue mode, ${side}: ${(e as Error).stack ?? String(e)}${tails}`);
		} finally {
			await cluster?.stop();
		}
	}
	return result;
}

/** stat() of the rates whose time was measured; rounds whose executions were not all recorded in time are named. */
function rate(values: number[]): string {
	const finite = values.filter((v) => Number.isFinite(v));
	const missing = values.length - finite.length;
	if (!finite.length) return 'not all recorded in time';
	return `${stat(finite, 0)}${missing ? ` (${missing} round(s) not all recorded in time)` : ''}`;
}

export function queueBurstSection(result: QueueBurstResult): string[] {
	const { rounds } = result;
	const names = rounds[0]?.processes ?? [];
	const lines = [
		`## (f) Queue mode: ${DELIVERIES.toLocaleString('en')} signed deliveries at ${IN_FLIGHT} in flight: Workplace Trigger vs Webhook`,
		'',
		`n8n ${result.n8nVersion} in queue mode on this one host, as \`npm run test:queue\` starts it (scripts/lib/queue-cluster.ts): PostgreSQL, Redis, a main process (editor and REST API, \`N8N_DISABLE_PRODUCTION_MAIN_PROCESS=true\`), ${WEBHOOK_PROCESSES} webhook processes behind nginx and ${WORKERS} workers at \`--concurrency=${DEFAULT_WORKER_CONCURRENCY}\` (n8n's default is 10), binary data in \`database\` mode, execution pruning off. ` +
			`Each side on its own fresh cluster, one after another; the same workflow as (c) (only the trigger node; the Workplace Trigger at its defaults, signature checked, message events) and the same deliveries (${WARMUP} warm-up deliveries first, not measured, then ${DELIVERIES} per round, one new message each, HMAC-SHA256 signed, ${IN_FLIGHT} in flight through nginx). ` +
			(ROUND_ROBIN
				? 'nginx spreads the requests of the one trigger URL over both webhook processes (round robin, BENCH_QUEUE_ROUND_ROBIN=1). '
				: "nginx sends each URL to one webhook process (`hash $request_uri consistent`, the routing the README asks for the trigger), so one webhook process receives a side's whole burst. ") +
			'"Answered" = first request to last answer; "recorded" = first request until the main process\'s executions list holds one finished execution per delivery (polled every 100 ms through its REST API). Peak RSS above start: each n8n process (its own Node process; not PostgreSQL, Redis, nginx or task runners), peak reset before each round. Runs per worker: "Worker started execution" lines in its log.',
		'',
	];
	if (process.env.BENCH_N8N_ENV) lines.push(`Every n8n process's environment adds: \`${process.env.BENCH_N8N_ENV}\``, '');
	const startups = result.startups.map((s) => `${SIDE_NAMES[s.side]}: ${s.timings.join(', ')}`).join('; ');
	if (startups) lines.push(`Cluster start: ${startups}.`, '');
	lines.push(`| node | answered: deliveries/s | all recorded: executions/s | ${names.map((n) => `${n}: peak RSS above start (MiB)`).join(' | ')} | runs per worker | answers | executions (succeeded, errored) |`);
	lines.push(`|---|---|---|${names.map(() => '---|').join('')}---|---|---|`);
	for (const side of SIDES) {
		const rs = rounds.filter((r) => r.side === side);
		if (!rs.length) continue;
		lines.push(
			`| ${SIDE_NAMES[side]} | ${stat(rs.map((r) => DELIVERIES / (r.answerMs / 1000)), 0)} | ${rate(rs.map((r) => DELIVERIES / (r.recordedMs / 1000)))} | ` +
				`${names.map((_, i) => stat(rs.map((r) => r.peaksAboveStart[i] / MiB), 0)).join(' | ')} | ${rs.map((r) => r.perWorker.join(' + ')).join(', ')} | ` +
				`${describeAnswers(rs.map((r) => r.statuses))} | ${rs.map((r) => `${r.executions} (${r.succeeded}, ${r.errored})`).join(', ')} |`,
		);
	}
	lines.push('');
	for (const side of SIDES) {
		const rs = rounds.filter((r) => r.side === side);
		if (!rs.length) continue;
		const cpu = names.map((n, i) => `${n} ${median(rs.map((r) => r.cpuSeconds[i])).toFixed(1)}`).join(', ');
		lines.push(`- CPU seconds per process, first request until all recorded (median): ${SIDE_NAMES[side]}: ${cpu}`);
	}
	lines.push('');
	for (const r of rounds) {
		if (r.unfinished) lines.push(`- ${SIDE_NAMES[r.side]}: a round's executions were not all recorded within the time limit; by status then: \`${JSON.stringify(r.unfinished)}\``);
	}
	if (rounds.some((r) => r.unfinished)) lines.push('');
	lines.push('Notes:');
	lines.push(
		'- In a webhook process no run starts (the workers run them), so the Workplace Trigger cannot answer when the run starts as it does in a single n8n: its first answers wait up to 2 s for a run there, then it answers at once (nodes/WorkplaceTrigger/pacing.ts); the warm-up holds that wait. The Webhook node (respond immediately) answers once the job is queued.',
	);
	lines.push(
		"- On n8n 2.x with its default expression engine (isolated-vm, `N8N_EXPRESSION_ENGINE=vm`), every webhook request of a trigger other than the Webhook node starts an expression isolate, here in the webhook process, where the Webhook node's requests start none (its runs, on the workers, do); see (c) and BENCH_N8N_ENV.",
	);
	lines.push('');
	return lines;
}
