/**
 * Workplace Trigger's One Run per Conversation at a Time in real n8n (`n8n start`, active
 * workflows, signed deliveries to the trigger's production URL): the run of a conversation's
 * second message waits in the trigger until the run of its first has ended, which the trigger
 * learns from the run's lifecycle hooks (docs/ARCHITECTURE.md reliance 14).
 *
 * Workflows: Workplace Trigger -> Work, n8n's Code node (on both majors in the task runner) that
 * takes a while (a setTimeout, not a Wait node, which would end the run's turn) and returns when it
 * started and ended. Each case sends two messages ~100 ms apart and reads the two executions n8n
 * recorded: whether the second run's work started after the first run's work ended.
 *
 * - option on, the same conversation (group and topic): the second waits (work 1.5 s);
 * - option on, two topics of one group: they overlap;
 * - option off, the same conversation: they overlap (what the option changes);
 * - option on with Max Wait 1 s, work 3 s: the second goes ahead after 1 s, overlapping, and n8n's
 *   log has the trigger's one Max Wait warning.
 * On every case: both executions succeeded, each node ran once, each delivery was answered when its
 * run started (the waiting run's too), and no fallback line (no "runEnd") in n8n's log.
 *
 * Short form (`npm run test:compat`): the first case only.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { parseExecutionData } from '../../../bench/lib';
import { findInstalled, targetFor, type N8nInstall } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import { messageEvent, sendWebhook } from '../../../simulator';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { ScenarioContext, WorkflowJson } from '../types';
import { PACKAGE } from '../workflow';

const TRIGGER = 'Workplace Trigger';
const WORK = 'Work';
const GROUP = '64f0c0000000000000e2ec01';
const TOPIC = '64f0c0000000000000e2ec11';
const OTHER_TOPIC = '64f0c0000000000000e2ec12';
/** The start of the line the trigger logs when a run stops waiting at Max Wait (conversationTurns.ts). */
const MAX_WAIT_LINE = `waited 1 s (One Run per Conversation at a Time: Max Wait) for the conversation's previous run to end and now runs anyway`;
/** The start of the runEnd fallback line (conversationTurns.ts). */
const RUN_END_FALLBACK = 'n8n hands the trigger\'s run no lifecycle hooks';

/** One run as n8n recorded it. */
interface RunReport {
	id: string;
	status: string;
	/** The message's text (first / second). */
	text: string;
	/** When the trigger node started and how long it took (its wait), from n8n's run data. */
	triggerStart: number;
	triggerMs: number;
	/** When the Code node's work started and ended (Date.now() in the task runner). */
	workStart: number;
	workEnd: number;
	/** How many times each node ran in the execution. */
	nodeRuns: Record<string, number>;
}

interface CaseReport {
	name: string;
	/** Whether the second run's work must start only after the first's ended. */
	expectWait: boolean;
	workMs: number;
	/** Delivery status and the ms from sending to the answer, in the order sent. */
	deliveries: Array<{ status: number; body: string; answerMs: number }>;
	/** The runs ordered by the start of their work. */
	runs: RunReport[];
	/** Max Wait lines in n8n's log after the case (the Max Wait case only). */
	maxWaitLines?: number;
}

interface Report {
	cases: CaseReport[];
	runEndFallback: boolean;
}

function workflow(webhookId: string, secretId: string, options: Record<string, unknown>, workMs: number): WorkflowJson {
	return {
		nodes: [
			{
				id: randomUUID(),
				name: TRIGGER,
				type: `${PACKAGE}.workplaceTrigger`,
				typeVersion: 1.1,
				position: [0, 0],
				parameters: { verification: 'secret', events: ['message'], options },
				credentials: { workplaceWebhookApi: { id: secretId, name: 'Workplace webhook secret (e2e)' } },
				webhookId,
			},
			{
				id: randomUUID(),
				name: WORK,
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					mode: 'runOnceForAllItems',
					language: 'javaScript',
					jsCode: [
						'const start = Date.now();',
						`await new Promise((resolve) => setTimeout(resolve, ${workMs}));`,
						'return [{ json: { start, end: Date.now(), text: $input.first().json.message?.text ?? "" } }];',
					].join('\n'),
				},
			},
		],
		connections: { [TRIGGER]: { main: [[{ node: WORK, type: 'main', index: 0 }]] } },
	};
}

type RunEntry = { startTime?: number; executionTime?: number; data?: { main?: Array<Array<{ json?: Record<string, unknown> }> | null> } };

function runOf(inst: N8nInstall, id: string, status: string, execution: Record<string, unknown>): RunReport {
	const data = parseExecutionData(inst, execution.data) as { resultData?: { runData?: Record<string, RunEntry[]> } } | undefined;
	const runData = data?.resultData?.runData ?? {};
	const trigger = runData[TRIGGER]?.[0];
	const work = runData[WORK]?.[0]?.data?.main?.[0]?.[0]?.json ?? {};
	return {
		id,
		status,
		text: String(work.text ?? ''),
		triggerStart: Number(trigger?.startTime ?? NaN),
		triggerMs: Number(trigger?.executionTime ?? NaN),
		workStart: Number(work.start ?? NaN),
		workEnd: Number(work.end ?? NaN),
		nodeRuns: Object.fromEntries(Object.entries(runData).map(([name, runs]) => [name, runs.length])),
	};
}

async function run(ctx: ScenarioContext, srv: TriggerServer): Promise<Report> {
	const inst = findInstalled(targetFor(ctx.n8nVersion));
	if (!inst) throw new Error(`n8n ${ctx.n8nVersion} is not installed`);
	const secret = ctx.sim.credentials.webhookSecret;
	const secretId = await srv.createCredential('Workplace webhook secret (e2e)', 'workplaceWebhookApi', { secret });
	const activate = async (name: string, options: Record<string, unknown>, workMs: number) => {
		const hook = randomUUID();
		const id = await srv.createActiveWorkflow(name, workflow(hook, secretId, options, workMs));
		const url = srv.webhookUrl(hook, 'webhook');
		await srv.waitForWebhook(url);
		return { id, url, workMs };
	};

	const cases: CaseReport[] = [];
	/** Two messages ~100 ms apart to a workflow; the two executions it then holds. */
	const pair = async (
		name: string,
		wf: { id: string; url: string; workMs: number },
		topics: [string, string],
		expectWait: boolean,
	): Promise<CaseReport> => {
		const before = new Set((await srv.settledExecutions(wf.id, 500)).map((e) => e.id));
		const send = async (text: string, topicId: string) => {
			const sent = Date.now();
			const event = messageEvent({ groupId: GROUP, topicId, text });
			const result = await sendWebhook(wf.url, { kind: 'bot', events: [event] }, { secret });
			return { status: result.status, body: result.body, answerMs: Date.now() - sent };
		};
		const first = send('first', topics[0]);
		await sleep(100);
		const second = send('second', topics[1]);
		const deliveries = await Promise.all([first, second]);
		const executions = (await srv.settledExecutions(wf.id, 1000)).filter((e) => !before.has(e.id));
		const runs = await Promise.all(executions.map(async (e) => runOf(inst, e.id, e.status, await srv.execution(e.id))));
		runs.sort((a, b) => a.workStart - b.workStart);
		const report: CaseReport = { name, expectWait, workMs: wf.workMs, deliveries, runs };
		cases.push(report);
		return report;
	};

	const on = await activate('e2e conversation turns: on', { oneRunPerConversation: true }, 1500);
	await pair('option on, the same conversation', on, [TOPIC, TOPIC], true);
	if (!ctx.short) {
		await pair('option on, two topics of one group', on, [TOPIC, OTHER_TOPIC], false);
		const off = await activate('e2e conversation turns: off', {}, 1500);
		await pair('option off, the same conversation', off, [TOPIC, TOPIC], false);
		const bounded = await activate('e2e conversation turns: Max Wait 1 s', { oneRunPerConversation: true, conversationMaxWait: 1 }, 3000);
		const report = await pair('option on, Max Wait 1 s, work 3 s', bounded, [TOPIC, TOPIC], false);
		// n8n prints the line when the run stops waiting, long before the executions settle; a moment more for its stdout.
		for (const deadline = Date.now() + 5000; !srv.output().includes(MAX_WAIT_LINE) && Date.now() < deadline; ) await sleep(200);
		report.maxWaitLines = srv.output().split('\n').filter((line) => line.includes(MAX_WAIT_LINE)).length;
	}
	return { cases, runEndFallback: srv.output().includes(RUN_END_FALLBACK) };
}

/** The second run's work started this many ms after the first run's work ended (negative: they overlapped). */
function gap(c: CaseReport): number {
	return c.runs[1].workStart - c.runs[0].workEnd;
}

function describe(c: CaseReport): string {
	const [a, b] = c.runs;
	const parts = [
		`${c.name}: ${c.runs.length} runs (${c.runs.map((r) => r.status).join(', ')})`,
		a && b ? `second work started ${gap(c)} ms after the first ended (${a.text} ${a.workStart - a.triggerStart}-${a.workEnd - a.triggerStart} ms, ${b.text} ${b.workStart - a.triggerStart}-${b.workEnd - a.triggerStart} ms from the first run's start)` : '',
		b ? `second trigger node ${b.triggerMs} ms` : '',
		`answers ${c.deliveries.map((d) => `${d.status} in ${d.answerMs} ms`).join(', ')}`,
		c.maxWaitLines !== undefined ? `Max Wait lines ${c.maxWaitLines}` : '',
	];
	return parts.filter(Boolean).join('; ');
}

function check(report: Report, ctx: ScenarioContext): void {
	process.stdout.write(`      [n8n ${ctx.n8nVersion}] conversation turns${ctx.short ? ' (short)' : ''}:\n${report.cases.map((c) => `        ${describe(c)}`).join('\n')}\n`);
	assert.equal(report.runEndFallback, false, 'the runEnd fallback line in n8n\'s log');
	assert.equal(report.cases.length, ctx.short ? 1 : 4, 'cases');
	for (const c of report.cases) {
		for (const d of c.deliveries) {
			assert.equal(d.status, 200, `${c.name}: delivery answered ${d.status}: ${d.body}`);
			assert.match(d.body, /^\{"received":1\}$/, `${c.name}: answer`);
			// Answered when the run started, the waiting run's too (not after the previous run's work).
			assert.ok(d.answerMs < c.workMs, `${c.name}: answered after ${d.answerMs} ms`);
		}
		assert.equal(c.runs.length, 2, `${c.name}: executions`);
		for (const r of c.runs) {
			assert.equal(r.status, 'success', `${c.name}: execution ${r.id}`);
			assert.deepEqual(r.nodeRuns, { [TRIGGER]: 1, [WORK]: 1 }, `${c.name}: node runs of execution ${r.id}`);
			assert.ok(r.workEnd - r.workStart >= c.workMs - 50, `${c.name}: work of ${r.id} took ${r.workEnd - r.workStart} ms`);
		}
		assert.deepEqual(c.runs.map((r) => r.text).sort(), ['first', 'second'], `${c.name}: messages`);
		if (c.expectWait) {
			assert.ok(gap(c) >= 0, `${c.name}: the second run's work started ${-gap(c)} ms before the first's ended`);
			assert.equal(c.runs[1].text, 'second', `${c.name}: the first message's run worked first`);
		} else {
			assert.ok(gap(c) < 0, `${c.name}: the second run's work started ${gap(c)} ms after the first's ended (want an overlap)`);
		}
		if (c.maxWaitLines !== undefined) assert.equal(c.maxWaitLines, 1, `${c.name}: Max Wait lines in n8n's log`);
	}
}

export const scenario = triggerServerScenario<Report>({
	name: 'trigger conversation turns: one run per conversation at a time',
	compat: true,
	placeholderNote: 'the conversation-turn cases run in before() on an own n8n start',
	run,
	check,
});
