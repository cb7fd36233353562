/**
 * What the Workplace Trigger remembers in real n8n, over deliveries and over a restart
 * (`n8n start`, SIGTERM, start again on the same database): chats learned by Direct Chats Only
 * and the keys of received events, counted from the executions n8n recorded and read from the
 * static data n8n saved. Run on n8n's default SQLite and on PostgreSQL (scripts/lib/services/
 * starts a throwaway cluster; E2E_POSTGRES=0 skips that variant).
 *
 * Phases (as in issue "Workplace Trigger state is lost"):
 * - Direct Chats Only: join A + message in A; 6 s later B; 6 s later C; joins D and E at the
 *   same moment, a message in each; messages in a group never joined. 10 runs.
 * - Received events (the default, saved on every delivery): 200 distinct events at 10 in
 *   flight; the same 200 again; 50 new events each sent twice at the same moment; restart;
 *   40 of the answered events again. 250 runs, 250 keys stored, 0 re-runs after the restart.
 * - Received events with Remember Received Events: Batched: 100 events, restart, all 100 again:
 *   exactly the events whose keys were not saved yet run again.
 *
 * Short form (`npm run test:compat`, SQLite only): 5 events, the same 5 again, restart, the same 5
 * again and one new event: 6 runs, 5 keys saved before the restart.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { joinEvent, messageEvent, sendWebhook } from '../../../simulator';
import type { WebhookResult } from '../../../simulator';
import { sleep } from '../../../scripts/lib/proc';
import { startPostgres } from '../../../scripts/lib/services';
import { withTriggerServer, type TriggerServer } from '../trigger-server';
import type { Scenario, ScenarioContext, WorkflowJson } from '../types';
import { chain, manualTrigger, PACKAGE, set } from '../workflow';

const NODE_NAME = 'Workplace Trigger';

export interface MemoryReport {
	database: string;
	directChatRuns: number;
	directChatsStored: number;
	phases: Array<{ name: string; runs: number; expected: number }>;
	keysStored: number;
	batched: { sent: number; savedBeforeRestart: number; rerunsAfterRestart: number };
	answers: string[];
	/** Deliveries answered 503 (their event's first delivery still being received) and sent again. */
	askedToRetry: number;
}

const reports = new Map<string, MemoryReport | ShortMemoryReport>();

/** The short form's phases (ctx.short). */
export interface ShortMemoryReport {
	short: true;
	phases: Array<{ name: string; runs: number; expected: number }>;
	keysStoredBeforeRestart: number;
}

export function triggerWorkflow(webhookId: string, parameters: Record<string, unknown>, secretId: string): WorkflowJson {
	return {
		nodes: [
			{
				id: randomUUID(),
				name: NODE_NAME,
				type: `${PACKAGE}.workplaceTrigger`,
				typeVersion: 1.1,
				position: [0, 0],
				parameters: { verification: 'secret', ...parameters },
				credentials: { workplaceWebhookApi: { id: secretId, name: 'Workplace webhook secret (e2e)' } },
				webhookId,
			},
		],
		connections: {},
	};
}

/** Runs `tasks` with at most `inFlight` at a time. */
export async function pool<T>(inFlight: number, tasks: Array<() => Promise<T>>): Promise<T[]> {
	const results: T[] = new Array(tasks.length);
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(inFlight, tasks.length) }, async () => {
			while (next < tasks.length) {
				const index = next++;
				results[index] = await tasks[index]();
			}
		}),
	);
	return results;
}

export function nodeStaticData(stored: Record<string, unknown>): Record<string, unknown> {
	return (stored[`node:${NODE_NAME}`] ?? {}) as Record<string, unknown>;
}

export function storedKeyCount(stored: Record<string, unknown>): number {
	const keys = nodeStaticData(stored).recentEventKeys;
	return typeof keys === 'string' ? keys.split(',').filter(Boolean).length : 0;
}

/** What the phases need of an n8n: one process (withTriggerServer) or a queue-mode cluster (scripts/queue-test.ts). */
export type TriggerHost = Pick<
	TriggerServer,
	'createCredential' | 'createActiveWorkflow' | 'webhookUrl' | 'waitForWebhook' | 'executionCount' | 'storedStaticData' | 'restart'
>;

export async function runPhases(srv: TriggerHost, secret: string, database: string): Promise<MemoryReport> {
	const secretId = await srv.createCredential('Workplace webhook secret (e2e)', 'workplaceWebhookApi', { secret });
	const answers = new Set<string>();
	let askedToRetry = 0;
	// As a platform would: a 503 (the first delivery of the event is still being received) is sent again a second later.
	const send = async (url: string, events: object[]): Promise<WebhookResult> => {
		for (let attempt = 1; ; attempt++) {
			const result = await sendWebhook(url, { kind: 'bot', events: events as never }, { secret });
			if (result.status === 503 && attempt < 10) {
				askedToRetry++;
				await sleep(1000);
				continue;
			}
			assert.equal(result.status, 200, `delivery answered ${result.status}: ${result.body}`);
			answers.add(result.body);
			return result;
		}
	};
	const activate = async (name: string, parameters: Record<string, unknown>) => {
		const hook = randomUUID();
		const id = await srv.createActiveWorkflow(name, triggerWorkflow(hook, parameters, secretId));
		const url = srv.webhookUrl(hook, 'webhook');
		await srv.waitForWebhook(url);
		return { id, url };
	};
	const runs = async (workflowId: string) => await srv.executionCount(workflowId, 1000);

	// Direct Chats Only.
	const direct = await activate('e2e trigger memory: direct chats', { events: ['message', 'join'], options: { directChatsOnly: true } });
	const chat = (name: string) => `64f0c0000000000000e2e0${name.charCodeAt(0).toString(16)}`;
	const join = (name: string) => joinEvent({ gid: chat(name) });
	const message = (name: string) => messageEvent({ groupId: chat(name), topicId: '' });
	for (const [i, name] of ['A', 'B', 'C'].entries()) {
		if (i > 0) await sleep(6000);
		await send(direct.url, [join(name)]);
		await send(direct.url, [message(name)]);
	}
	await Promise.all([send(direct.url, [join('D')]), send(direct.url, [join('E')])]);
	await send(direct.url, [message('D')]);
	await send(direct.url, [message('E')]);
	await send(direct.url, [messageEvent({ groupId: chat('X'), topicId: '' })]);
	await send(direct.url, [messageEvent({ groupId: chat('Y'), topicId: '' })]);
	const directChatRuns = await runs(direct.id);
	const chatsStored = nodeStaticData(await srv.storedStaticData(direct.id)).directChatGroupIds;

	// Received events, saved on every delivery (the default).
	const keys = await activate('e2e trigger memory: received events', { events: ['message'] });
	const batched = await activate('e2e trigger memory: batched', { events: ['message'], options: { rememberEvents: 'batched' } });
	const phases: MemoryReport['phases'] = [];
	let total = 0;
	const phase = async (name: string, expectedNew: number, work: () => Promise<unknown>) => {
		await work();
		const now = await runs(keys.id);
		phases.push({ name, runs: now - total, expected: expectedNew });
		total = now;
	};
	const distinct = Array.from({ length: 200 }, (_, i) => messageEvent({ messageId: `e2e-memory-${i}` }));
	const pairs = Array.from({ length: 50 }, (_, i) => messageEvent({ messageId: `e2e-memory-pair-${i}` }));
	await phase('200 distinct events, 10 in flight', 200, () => pool(10, distinct.map((e) => () => send(keys.url, [e]))));
	await phase('the same 200 again', 0, () => pool(10, distinct.map((e) => () => send(keys.url, [e]))));
	await phase('50 new events, each twice at the same moment', 50, () =>
		pool(5, pairs.map((e) => () => Promise.all([send(keys.url, [e]), send(keys.url, [e])]))),
	);
	const keysStored = storedKeyCount(await srv.storedStaticData(keys.id));

	const batchedEvents = Array.from({ length: 100 }, (_, i) => messageEvent({ messageId: `e2e-batched-${i}` }));
	await pool(10, batchedEvents.map((e) => () => send(batched.url, [e])));
	const batchedRunsBefore = await runs(batched.id);
	const savedBeforeRestart = storedKeyCount(await srv.storedStaticData(batched.id));

	await srv.restart();
	await srv.waitForWebhook(keys.url);
	const answered = [...distinct.slice(0, 30), ...pairs.slice(0, 10)];
	await phase('after a restart: 40 answered events again', 0, () => pool(10, answered.map((e) => () => send(keys.url, [e]))));
	// A chat learned before the restart (Direct Chats Only workflow).
	await send(direct.url, [message('E')]);
	phases.push({ name: 'after a restart: a message in chat E (learned before it)', runs: (await runs(direct.id)) - directChatRuns, expected: 1 });
	await pool(10, batchedEvents.map((e) => () => send(batched.url, [e])));
	const rerunsAfterRestart = (await runs(batched.id)) - batchedRunsBefore;
	phases.push({ name: 'batched: runs of the first 100 events', runs: batchedRunsBefore, expected: 100 });

	return {
		database,
		directChatRuns,
		directChatsStored: Array.isArray(chatsStored) ? chatsStored.length : 0,
		phases,
		keysStored,
		batched: { sent: batchedEvents.length, savedBeforeRestart, rerunsAfterRestart },
		answers: [...answers],
		askedToRetry,
	};
}

/** The short form: received events kept over a restart (static data saved on every delivery). */
export async function runShortPhases(srv: TriggerHost, secret: string): Promise<ShortMemoryReport> {
	const secretId = await srv.createCredential('Workplace webhook secret (e2e)', 'workplaceWebhookApi', { secret });
	const hook = randomUUID();
	const id = await srv.createActiveWorkflow('e2e trigger memory: received events (short)', triggerWorkflow(hook, { events: ['message'] }, secretId));
	const url = srv.webhookUrl(hook, 'webhook');
	await srv.waitForWebhook(url);
	const send = async (event: object) => {
		const result = await sendWebhook(url, { kind: 'bot', events: [event as never] }, { secret });
		assert.equal(result.status, 200, `delivery answered ${result.status}: ${result.body}`);
	};
	const phases: ShortMemoryReport['phases'] = [];
	let total = 0;
	const phase = async (name: string, expected: number, events: object[]) => {
		for (const e of events) await send(e);
		const now = await srv.executionCount(id, 1000);
		phases.push({ name, runs: now - total, expected });
		total = now;
	};
	const events = Array.from({ length: 5 }, (_, i) => messageEvent({ messageId: `e2e-memory-short-${i}` }));
	await phase('5 distinct events', 5, events);
	await phase('the same 5 again', 0, events);
	const keysStoredBeforeRestart = storedKeyCount(await srv.storedStaticData(id));
	await srv.restart();
	await srv.waitForWebhook(url);
	await phase('after a restart: the same 5 again', 0, events);
	await phase('after a restart: a new event', 1, [messageEvent({ messageId: 'e2e-memory-short-new' })]);
	return { short: true, phases, keysStoredBeforeRestart };
}

export function describeMemoryReport(report: MemoryReport): string[] {
	return [
		`Direct Chats Only sequence: ${report.directChatRuns} runs (want 10), ${report.directChatsStored} chats stored`,
		...report.phases.map((p) => `${p.name}: +${p.runs} runs (want +${p.expected})`),
		`keys stored after the pairs: ${report.keysStored} (want 250)`,
		`batched: ${report.batched.savedBeforeRestart} of ${report.batched.sent} keys saved before the restart, ${report.batched.rerunsAfterRestart} re-runs after it`,
		`answers of accepted deliveries: ${report.answers.join(' | ')}`,
		`deliveries answered 503 and sent again a second later: ${report.askedToRetry}`,
	];
}

export function checkMemoryReport(report: MemoryReport): void {
	assert.equal(report.directChatRuns, 10, 'runs of the Direct Chats Only sequence');
	assert.equal(report.directChatsStored, 5, 'learned chats in the saved static data');
	for (const p of report.phases) assert.equal(p.runs, p.expected, p.name);
	assert.equal(report.keysStored, 250, 'event keys in the saved static data');
	// The window of batched saving is exactly the events received after its last save.
	assert.equal(report.batched.rerunsAfterRestart, report.batched.sent - report.batched.savedBeforeRestart, 'batched re-runs');
	assert.ok(report.batched.savedBeforeRestart >= 1, 'batched saved its first event');
	for (const answer of report.answers) assert.match(answer, /^\{"received":\d+(,"message":"[^"]*")?\}$/, 'answer body');
}

function scenarioFor(database: 'SQLite' | 'PostgreSQL'): Scenario {
	const key = (ctx: ScenarioContext) => `${ctx.n8nVersion}:${database}`;
	return {
		name: `trigger memory: learned chats and received events over a restart (${database})`,
		compat: database === 'SQLite',
		timeoutMs: 60_000,
		workflow: () => chain([manualTrigger(), set('Placeholder', { note: 'the trigger phases run in before()' })]),
		async before(ctx) {
			const phases = (srv: TriggerServer): Promise<MemoryReport | ShortMemoryReport> =>
				ctx.short ? runShortPhases(srv, ctx.sim.credentials.webhookSecret) : runPhases(srv, ctx.sim.credentials.webhookSecret, database);
			if (database === 'SQLite') {
				reports.set(key(ctx), await withTriggerServer(ctx, phases));
				return;
			}
			const postgres = await startPostgres();
			try {
				await postgres.createDatabase('n8n');
				reports.set(key(ctx), await withTriggerServer(ctx, phases, { env: postgres.n8nEnv('n8n') }));
			} finally {
				await postgres.stop();
			}
		},
		assert(_result, ctx) {
			const report = reports.get(key(ctx));
			assert.ok(report, 'before() produced no report');
			if ('short' in report) {
				const lines = [...report.phases.map((p) => `${p.name}: +${p.runs} runs (want +${p.expected})`), `keys saved before the restart: ${report.keysStoredBeforeRestart} (want 5)`];
				process.stdout.write(`      [n8n ${ctx.n8nVersion}, ${database}] trigger memory (short):\n${lines.map((l) => `        ${l}`).join('\n')}\n`);
				for (const p of report.phases) assert.equal(p.runs, p.expected, p.name);
				assert.equal(report.keysStoredBeforeRestart, 5, 'event keys in the saved static data');
				return;
			}
			process.stdout.write(`      [n8n ${ctx.n8nVersion}, ${database}] trigger memory:\n${describeMemoryReport(report).map((l) => `        ${l}`).join('\n')}\n`);
			checkMemoryReport(report);
		},
	};
}

export const scenarios: Scenario[] = [
	scenarioFor('SQLite'),
	...(process.env.E2E_POSTGRES === '0' ? [] : [scenarioFor('PostgreSQL')]),
];
