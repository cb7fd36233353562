/**
 * (g) Forged deliveries: anyone who knows a trigger's URL can post to it. FORGED_DELIVERIES with a
 * wrong signature at 20 in flight against the same trigger's as many signed ones, on one `n8n start`
 * set up as (c) (SQLite, one active workflow holding only the Workplace Trigger at its defaults,
 * warmed up). Measured per round: deliveries/s and the CPU seconds of the n8n process (user + system,
 * /proc/<pid>/stat); checked: every forged delivery answered 401 and starting no run, every signed
 * one answered 200 and recorded as one succeeded execution.
 */
import type { N8nInstall } from '../scripts/lib/n8n';
import { sleep } from '../scripts/lib/proc';
import { messageEvent, sendWebhook, type Simulator, type WebhookDelivery } from '../simulator';
import { cpuSecondsOf, log, pool, stat } from './lib';
import { burst, countExecutions, describeAnswers, IN_FLIGHT, withWarmSide, type BurstTarget } from './trigger';

/** Deliveries of each kind per round (BENCH_FORGED_DELIVERIES). */
export const FORGED_DELIVERIES = Number(process.env.BENCH_FORGED_DELIVERIES ?? 1000);

export interface ForgedRound {
	kind: 'forged' | 'signed';
	/** First request sent to last answer received. */
	answerMs: number;
	/** CPU seconds of n8n: forged, until the last answer + 1 s; signed, until every run was recorded + 1 s. */
	cpuSeconds: number;
	statuses: Record<string, number>;
	/** Executions the round added, and how many of them succeeded. */
	executions: number;
	succeeded: number;
}

/** FORGED_DELIVERIES new messages signed with another secret, as anyone without the secret would send them. */
async function forgedBurst(t: BurstTarget, round: number): Promise<ForgedRound> {
	const pid = t.processes[0].pid;
	const deliveries: WebhookDelivery[] = Array.from({ length: FORGED_DELIVERIES }, (_, i) => ({
		kind: 'bot',
		events: [messageEvent({ text: `forged ${round}/${i}` })],
	}));
	const before = await countExecutions(t.server, t.workflowId);
	const statuses: Record<string, number> = {};
	const startCpu = cpuSecondsOf(pid);
	const started = Date.now();
	await pool(FORGED_DELIVERIES, IN_FLIGHT, async (i) => {
		const res = await sendWebhook(t.url, deliveries[i], { secret: t.secret, signature: 'wrong', timeoutMs: 120_000 });
		statuses[res.status] = (statuses[res.status] ?? 0) + 1;
	});
	const answerMs = Date.now() - started;
	await sleep(1000); // nothing more arrives late
	const cpuSeconds = cpuSecondsOf(pid) - startCpu;
	const executions = (await countExecutions(t.server, t.workflowId)) - before;
	log(
		`  round ${round} forged: answered in ${answerMs} ms (${(FORGED_DELIVERIES / (answerMs / 1000)).toFixed(0)}/s), statuses ${JSON.stringify(statuses)}, executions ${executions}, CPU ${cpuSeconds.toFixed(1)} s`,
	);
	return { kind: 'forged', answerMs, cpuSeconds, statuses, executions, succeeded: 0 };
}

/** Each round: the forged burst, then the signed one, on the same warm trigger. */
export async function benchForged(inst: N8nInstall, packageNodesDir: string, sim: Simulator, rounds: number): Promise<ForgedRound[]> {
	return await withWarmSide(inst, packageNodesDir, sim, 'workplaceTrigger', async (target) => {
		const results: ForgedRound[] = [];
		for (let round = 1; round <= rounds; round++) {
			results.push(await forgedBurst(target, round));
			const signed = await burst({ ...target, label: 'signed' }, round, FORGED_DELIVERIES);
			results.push({ kind: 'signed', ...signed, cpuSeconds: signed.cpuSeconds[0] });
		}
		return results;
	});
}

/** Whether every delivery of the rounds got `status` and the executions are as expected. */
function allAnswered(rounds: ForgedRound[], status: number, runs: boolean): boolean {
	return rounds.every(
		(r) => r.statuses[status] === FORGED_DELIVERIES && (runs ? r.succeeded === FORGED_DELIVERIES : r.executions === 0),
	);
}

export function forgedSection(rounds: ForgedRound[], version: string): string[] {
	const n = FORGED_DELIVERIES.toLocaleString('en');
	const lines = [`## (g) Forged deliveries: ${n} with a wrong signature vs ${n} signed, ${IN_FLIGHT} in flight, one trigger`, ''];
	lines.push(
		`The setup of (c) on ${version}: one \`n8n start\`, one active workflow holding only the Workplace Trigger at its defaults, warmed up. Each round sends ${n} new messages signed with another secret (as anyone without the secret would), then ${n} signed ones, ${IN_FLIGHT} in flight. CPU = user + system seconds of the n8n process (/proc/<pid>/stat): forged, from the first request until 1 s after the last answer; signed, until 1 s after every run was recorded.`,
		'',
	);
	lines.push('| n8n | deliveries | answered: deliveries/s | CPU s of n8n | answers | executions (succeeded) | as expected |');
	lines.push('|---|---|---|---|---|---|---|');
	for (const kind of ['forged', 'signed'] as const) {
		const rs = rounds.filter((r) => r.kind === kind);
		if (!rs.length) continue;
		const expected = kind === 'forged' ? allAnswered(rs, 401, false) : allAnswered(rs, 200, true);
		lines.push(
			`| ${version} | ${kind === 'forged' ? 'forged (wrong signature)' : 'signed'} | ${stat(rs.map((r) => FORGED_DELIVERIES / (r.answerMs / 1000)), 0)} | ${stat(rs.map((r) => r.cpuSeconds), 1)} | ${describeAnswers(rs.map((r) => r.statuses))} | ${rs.map((r) => `${r.executions} (${r.succeeded})`).join(', ')} | ${expected ? 'yes' : '**no**'} |`,
		);
	}
	lines.push('');
	return lines;
}
