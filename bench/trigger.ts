/**
 * (c) Trigger: 2,000 signed deliveries at 20 in flight into an active workflow of a real
 * `n8n start`, Workplace Trigger (signature checked, one message event per delivery) vs n8n's
 * Webhook node receiving the same signed bodies. Counted: answers, and the executions n8n
 * recorded (all must succeed, one per delivery).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { createUserFolder, fetchWebhook, startN8nServer, type N8nInstall, type N8nServer } from '../scripts/lib/n8n';
import { sleep } from '../scripts/lib/proc';
import { messageEvent, sendWebhook, type Simulator, type WebhookDelivery } from '../simulator';
import { cpuSecondsOf, log, memoryOf, MiB, pool, resetPeak, stat } from './lib';

const PACKAGE = 'n8n-nodes-workplace';
export const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2000);
export const IN_FLIGHT = 20;
/** Deliveries per side before the measured rounds (BENCH_WARMUP). */
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);

/** Workplace Trigger at its default (received events saved on every delivery), with Batched saving, and n8n's Webhook node. */
export type Side = 'workplaceTrigger' | 'workplaceTriggerBatched' | 'webhook';
const ALL_SIDES: Side[] = ['workplaceTrigger', 'workplaceTriggerBatched', 'webhook'];
/** BENCH_TRIGGER_SIDES: a comma list of sides (default all). */
const SIDES: Side[] = process.env.BENCH_TRIGGER_SIDES
	? ALL_SIDES.filter((side) => process.env.BENCH_TRIGGER_SIDES!.split(',').map((x) => x.trim()).includes(side))
	: ALL_SIDES;
/** N8N_CONCURRENCY_PRODUCTION_LIMIT of the measured n8n (BENCH_PRODUCTION_CONCURRENCY; n8n's default -1 = unlimited). BENCH_N8N_ENV: more environment for it, as a JSON object. */
export const PRODUCTION_CONCURRENCY = process.env.BENCH_PRODUCTION_CONCURRENCY ?? '-1';
export const SIDE_NAMES: Record<Side, string> = {
	workplaceTrigger: 'Workplace Trigger (default: saved on every delivery)',
	workplaceTriggerBatched: 'Workplace Trigger (Remember Received Events: Batched)',
	webhook: 'Webhook',
};

/** One measured burst: DELIVERIES signed deliveries at IN_FLIGHT in flight to one workflow. */
export interface Burst {
	/** First request sent to last answer received. */
	answerMs: number;
	/** First request sent until n8n had recorded every execution as finished (NaN: not within BENCH_RECORD_TIMEOUT_S). */
	recordedMs: number;
	statuses: Record<string, number>;
	executions: number;
	succeeded: number;
	/** Executions that ended in error or crashed. */
	errored: number;
	/** Peak RSS of each measured process during the burst, above its RSS before it (BurstTarget.processes' order). */
	peaksAboveStart: number[];
	/** CPU seconds each measured process used from the first request until all were recorded (+1 s). */
	cpuSeconds: number[];
	/** Executions by status when the round ended (only when not all finished). */
	unfinished?: Record<string, number>;
}

export interface TriggerRound extends Burst {
	side: Side;
}

/** Where a burst goes and what is measured. */
export interface BurstTarget {
	/** The n8n whose REST API counts the executions (in queue mode: the main process). */
	server: N8nServer;
	workflowId: string;
	/** The production URL the deliveries are sent to. */
	url: string;
	/** The webhook secret the deliveries are signed with. */
	secret: string;
	/** Processes whose peak RSS is measured. */
	processes: Array<{ name: string; pid: number }>;
	/** For the log lines, e.g. the side. */
	label: string;
}

export function workflowBody(side: Side, webhookId: string, credential: { id: string; name: string }) {
	const trigger =
		side !== 'webhook'
			? {
					name: 'Workplace Trigger',
					type: `${PACKAGE}.workplaceTrigger`,
					typeVersion: 1.1,
					parameters: {
						verification: 'secret',
						events: ['message'],
						options: side === 'workplaceTriggerBatched' ? { rememberEvents: 'batched' } : {},
					},
					credentials: { workplaceWebhookApi: credential },
				}
			: {
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					parameters: { httpMethod: 'POST', path: webhookId, responseMode: 'onReceived', options: {} },
				};
	return {
		name: `bench trigger: ${side}`,
		nodes: [{ id: randomUUID(), position: [0, 0], webhookId, ...trigger }],
		connections: {},
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' },
		active: false,
	};
}

/**
 * The side's credential (the secret) and its active workflow (workflowBody), created through
 * `server`'s REST API (after setupOwner()). The production URL is /webhook/<webhookId>[/<webhookPath>].
 */
export async function createSideWorkflow(server: N8nServer, side: Side, secret: string): Promise<{ workflowId: string; webhookId: string; webhookPath?: string }> {
	const credName = 'Workplace webhook secret (bench)';
	const cred = await server.rest<{ id: string }>('POST', '/credentials', { name: credName, type: 'workplaceWebhookApi', data: { secret } });
	const webhookId = randomUUID();
	const created = await server.rest<{ id: string; versionId: string }>('POST', '/workflows', workflowBody(side, webhookId, { id: cred.id, name: credName }));
	await server.rest('POST', `/workflows/${created.id}/activate`, { versionId: created.versionId });
	return { workflowId: created.id, webhookId, webhookPath: side !== 'webhook' ? 'webhook' : undefined };
}

export async function countExecutions(server: N8nServer, workflowId: string, status?: string[]): Promise<number> {
	return (await server.executions(status ? { workflowId, status } : { workflowId }, 1)).count;
}

/**
 * Waits until the URL is served, then sends WARMUP deliveries (not measured) and waits until their
 * executions are recorded: without it a cold n8n (code not yet compiled, caches empty) is measured
 * 30% slower than it is.
 */
export async function warmUp(t: BurstTarget): Promise<void> {
	// An empty delivery: answered without a run by both nodes once n8n serves the webhook.
	await fetchWebhook(t.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"events":[]}' });
	const before = await countExecutions(t.server, t.workflowId);
	await pool(WARMUP, IN_FLIGHT, async (i) => {
		await sendWebhook(t.url, { kind: 'bot', events: [messageEvent({ text: `warm-up ${i}` })] }, { secret: t.secret, timeoutMs: 120_000 });
	});
	const deadline = Date.now() + 120_000;
	while ((await countExecutions(t.server, t.workflowId)) - before < WARMUP || (await countExecutions(t.server, t.workflowId, ['new', 'running'])) > 0) {
		if (Date.now() > deadline) throw new Error(`warm-up of ${t.label}: executions not recorded within 120 s`);
		await sleep(100);
	}
}

/** One measured burst of `count` deliveries (round `round`): answers, executions recorded, peak RSS of each process. */
export async function burst(t: BurstTarget, round: number, count = DELIVERIES): Promise<Burst> {
	const { server, workflowId: id } = t;
	const before = await countExecutions(server, id);
	const succeededBefore = await countExecutions(server, id, ['success']);
	const erroredBefore = await countExecutions(server, id, ['error', 'crashed']);
	// One new message per delivery, built before the clock starts; the simulator's webhook
	// sender signs each body (HMAC-SHA256, hex, x-service-signature) as the platform does.
	const deliveries: WebhookDelivery[] = Array.from({ length: count }, (_, i) => ({ kind: 'bot', events: [messageEvent({ text: `bench ${round}/${i}` })] }));
	const statuses: Record<string, number> = {};
	const startRss = t.processes.map((p) => memoryOf(p.pid).rss);
	for (const p of t.processes) resetPeak(p.pid);
	const startCpu = t.processes.map((p) => cpuSecondsOf(p.pid));
	const started = Date.now();
	await pool(count, IN_FLIGHT, async (i) => {
		const res = await sendWebhook(t.url, deliveries[i], { secret: t.secret, timeoutMs: 120_000 });
		statuses[res.status] = (statuses[res.status] ?? 0) + 1;
	});
	const answerMs = Date.now() - started;
	// Recorded: every execution counted and none still new or running.
	const deadline = Date.now() + Number(process.env.BENCH_RECORD_TIMEOUT_S ?? 300) * 1000;
	let executions = 0;
	let recordedMs = NaN;
	for (;;) {
		executions = (await countExecutions(server, id)) - before;
		const unfinished = await countExecutions(server, id, ['new', 'running']);
		if (executions >= count && unfinished === 0) {
			recordedMs = Date.now() - started;
			break;
		}
		if (Date.now() > deadline) break;
		await sleep(100);
	}
	await sleep(1000); // nothing more arrives late
	// never below 0: a process's RSS may shrink between the reading before the burst and the reset
	const peaksAboveStart = t.processes.map((p, i) => Math.max(0, memoryOf(p.pid).peak - startRss[i]));
	const cpuSeconds = t.processes.map((p, i) => cpuSecondsOf(p.pid) - startCpu[i]);
	executions = (await countExecutions(server, id)) - before;
	const succeeded = (await countExecutions(server, id, ['success'])) - succeededBefore;
	const errored = (await countExecutions(server, id, ['error', 'crashed'])) - erroredBefore;
	let unfinished: Record<string, number> | undefined;
	if (Number.isNaN(recordedMs)) {
		unfinished = {};
		for (const status of ['new', 'running', 'waiting', 'error', 'crashed', 'canceled']) {
			unfinished[status] = await countExecutions(server, id, [status]);
		}
	}
	const named = (values: string[]) => values.map((v, i) => `${t.processes.length > 1 ? `${t.processes[i].name} ` : ''}${v}`).join(', ');
	log(
		`  round ${round} ${t.label}: answered in ${answerMs} ms (${(count / (answerMs / 1000)).toFixed(0)}/s), all recorded after ${recordedMs} ms, statuses ${JSON.stringify(statuses)}, executions ${executions} (${succeeded} succeeded, ${errored} errored)` +
			`, peak RSS ${named(peaksAboveStart.map((b) => `+${(b / MiB).toFixed(0)}`))} MiB, CPU ${named(cpuSeconds.map((c) => c.toFixed(1)))} s${unfinished ? `, by status ${JSON.stringify(unfinished)}` : ''}`,
	);
	return { answerMs, recordedMs, statuses, executions, succeeded, errored, peaksAboveStart, cpuSeconds, unfinished };
}

/** "200× 200 + 3× 503" */
export function describeAnswers(statuses: Array<Record<string, number>>): string {
	return [...new Set(statuses.map((s) => Object.entries(s).map(([k, v]) => `${v}× ${k}`).join(' + ')))].join(' / ');
}

/** Each side in its own fresh `n8n start`, one after another, so one side's runs never weigh on the other's figures. */
export async function benchTrigger(inst: N8nInstall, packageNodesDir: string, sim: Simulator, rounds: number): Promise<TriggerRound[]> {
	const results: TriggerRound[] = [];
	for (const side of SIDES) results.push(...(await benchSide(inst, packageNodesDir, sim, side, rounds)));
	return results;
}

/**
 * A fresh `n8n start` of its own (SQLite, the package from `packageNodesDir`) holding the side's
 * active workflow, warmed up; `run` measures it, then n8n is stopped and its folder removed.
 */
export async function withWarmSide<T>(
	inst: N8nInstall,
	packageNodesDir: string,
	sim: Simulator,
	side: Side,
	run: (target: BurstTarget) => Promise<T>,
): Promise<T> {
	const userFolder = createUserFolder('n8n-bench-trigger-');
	fs.cpSync(packageNodesDir, path.join(userFolder, '.n8n', 'nodes'), { recursive: true });
	const server = await startN8nServer(inst, {
		userFolder,
		logLevel: 'warn',
		env: { EXECUTIONS_DATA_PRUNE: 'false', N8N_CONCURRENCY_PRODUCTION_LIMIT: PRODUCTION_CONCURRENCY, ...(JSON.parse(process.env.BENCH_N8N_ENV ?? '{}') as Record<string, string>) },
		startTimeoutMs: 180_000,
	});
	try {
		await server.setupOwner();
		const secret = sim.credentials.webhookSecret;
		const { workflowId, webhookId, webhookPath } = await createSideWorkflow(server, side, secret);
		const target: BurstTarget = {
			server,
			workflowId,
			url: `${server.url}/webhook/${webhookId}${webhookPath ? `/${webhookPath}` : ''}`,
			secret,
			processes: [{ name: 'n8n', pid: server.pid! }],
			label: side,
		};
		await warmUp(target);
		return await run(target);
	} finally {
		await server.stop();
		if (!process.env.BENCH_KEEP) fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

async function benchSide(inst: N8nInstall, packageNodesDir: string, sim: Simulator, side: Side, rounds: number): Promise<TriggerRound[]> {
	return await withWarmSide(inst, packageNodesDir, sim, side, async (target) => {
		const results: TriggerRound[] = [];
		for (let round = 1; round <= rounds; round++) results.push({ side, ...(await burst(target, round)) });
		return results;
	});
}

export function triggerSection(rounds: TriggerRound[]): string[] {
	const lines = [`## (c) Trigger: ${DELIVERIES.toLocaleString('en')} signed deliveries at ${IN_FLIGHT} in flight: Workplace Trigger vs Webhook`, ''];
	lines.push(
		`\`n8n start\`, one active workflow per side holding only the trigger node, ${DELIVERIES} bot deliveries per round (one new message each, built before the clock starts, HMAC-SHA256 signed as sent), ${IN_FLIGHT} requests in flight. Workplace Trigger checks the signature and emits the message event; the Webhook node (v2, respond immediately) receives the same bodies unchecked. "Answered" = first request to last answer; "recorded" = first request until n8n's executions list holds one finished execution per delivery (polled every 100 ms through the REST API).`,
		'',
	);
	if (process.env.BENCH_N8N_ENV) lines.push(`n8n's environment adds: \`${process.env.BENCH_N8N_ENV}\``, '');
	lines.push('| node | answered: deliveries/s | answered (ms) | all recorded: executions/s | recorded (ms) | peak RSS above start (MiB) | answers | executions (succeeded) |');
	lines.push('|---|---|---|---|---|---|---|---|');
	for (const side of SIDES) {
		const rs = rounds.filter((r) => r.side === side);
		if (!rs.length) continue;
		const answers = describeAnswers(rs.map((r) => r.statuses));
		lines.push(
			`| ${SIDE_NAMES[side]} | ${stat(rs.map((r) => DELIVERIES / (r.answerMs / 1000)), 0)} | ${stat(rs.map((r) => r.answerMs), 0)} | ${stat(rs.map((r) => DELIVERIES / (r.recordedMs / 1000)), 0)} | ${stat(rs.map((r) => r.recordedMs), 0)} | ${stat(rs.map((r) => r.peaksAboveStart[0] / MiB), 0)} | ${answers} | ${rs.map((r) => `${r.executions} (${r.succeeded})`).join(', ')} |`,
		);
	}
	lines.push('');
	lines.push('Notes:');
	lines.push('- Each side runs in its own fresh `n8n start` (SQLite), one after the other, after a warm-up of its own.');
	lines.push("- Answers: Workplace Trigger reads its credential (the secret) and the workflow's static data for every delivery, checks the signature, records the event's key (saved with the workflow on every delivery that brings a new one, deliveries arriving together sharing one write) and hands the event to n8n, which saves the static data and starts the run. Where a run costs an expression isolate (n8n 2's default engine) the trigger answers once the run has started, as the Webhook node answers once its run is started; elsewhere (n8n 1) at once.");
	lines.push("- Peak RSS above start: n8n's main process, its peak reset before each round. On n8n 2.41 with its default expression engine (isolated-vm, `N8N_EXPRESSION_ENGINE=vm`), every execution, and every webhook request of a trigger other than the Webhook node, gets an expression isolate (a pool of 1, then created cold): the trigger costs two per delivery, the Webhook node one, which is why it answers at about half the Webhook node's rate there.");
	lines.push('');
	return lines;
}
