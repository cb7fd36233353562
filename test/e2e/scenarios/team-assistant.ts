/**
 * examples/flow-team-assistant-in-chat.json in real n8n (`n8n start`), imported and activated as
 * `npm run dev` does: Workplace Trigger -> AI Agent (the simulator's scripted chat model, Simple
 * Memory keyed by the trigger's `conversationKey`, knowledge tools, Create Task behind a human
 * review answered in the chat) -> Reply to Event.
 *
 * Two people in two conversations, each asking twice, interleaved: alice in the Release planning
 * topic of Project Apollo, bob in his direct chat with the bot. The model's script of a conversation
 * is keyed by its first question, which only the conversation's memory brings into a second run's
 * requests. Checked:
 * - each second run's model requests hold the conversation's first exchange and nothing of the other;
 * - bob's long first answer arrives as several messages, in order, in his direct chat;
 * - n8n 2 (human review tools): alice's second question makes the model call Create Task; the
 *   review waits in the topic, bob's tap is refused (he may not answer), no task is created until
 *   alice taps Approve, then one task and the reply.
 * - n8n 1 (no human review tools): activating the example as it is is refused (the review node's
 *   type is unknown there); with the change the docs tell 1.x users to make (the review node and
 *   Create Task deleted) it activates, and the conversations run the same, memory and the split
 *   answer included; alice's task request is answered without a tool (docs/team-assistant.md).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { parseExecutionData } from '../../../bench/lib';
import { decodeAnswerToken } from '../../../nodes/shared/approvals/tapProtocol';
import type { LlmRequestRecord, LlmSimulator, LlmTurn, Simulator, SimulatorState, TapResult } from '../../../simulator';
import { messageEvent, SEED, sendWebhook } from '../../../simulator';
import { activateWorkflow, importExamples, loadExample, triggerWebhookUrl, withoutHumanReview, type ExampleWorkflow, type SimulatorInfo } from '../../../scripts/lib/examples';
import { createUserFolder, findInstalled, startN8nServer, targetFor, type N8nServer } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import type { LoggedRequest, Scenario, ScenarioContext } from '../types';
import { chain, manualTrigger, set } from '../workflow';
import type { Button } from './send-and-wait';
import { sentOf } from './send-and-wait-chat';

export const TEAM_ASSISTANT_FILE = 'flow-team-assistant-in-chat.json';

const { bob } = SEED.users;
const { project } = SEED.groups;
const release = project.topics.release;
const handbook = SEED.knowledge.handbook;

/** The example's node names the scenario relies on. */
const TASK_NODE = 'Create Task';
/** The Reply node's Options > Max Length in the example. */
const MAX_LENGTH = 600;

/** What alice and bob write, and what the scripted model answers. The first questions key the scripts. */
const ALICE = {
	first: 'What is in the Employee Handbook?',
	firstAnswer: 'The Employee Handbook has two files: remote-work-policy.md and holidays-2025.csv.',
	second: 'Please create a task for bob to review the remote work policy by Friday.',
	secondAnswer: 'Done: bob has a task to review the remote work policy, due Friday 27 November 2026.',
	/** n8n 1.x, without the task tool. */
	secondAnswerWithoutTool: 'I cannot create tasks here; please create it in Workplace Tasks.',
};
const TASK = { title: 'Review the remote work policy', assigneeId: bob._id, dueDate: '2026-11-27T17:00:00+01:00' };
const LONG_ANSWER = [
	'You may work from home up to three days a week. The remote work policy in the Employee Handbook says so in its first section, and it applies to everyone on a permanent contract, whatever team you are in.',
	'Agree the days with your team lead, so that the team still meets in the office at least twice a week. Planning the week ahead on Friday works well for most teams, and the shared calendar shows who is where.',
	'Keep your laptop encrypted and use the VPN outside the office. If you need a second screen or a chair for your home office, ask IT: the policy covers one of each.',
	'On a home office day, be reachable in the team chat during core hours, from ten to four. If you are ill, say so as on any other day: a home office day is a working day, not a day off.',
].join('\n\n');
const BOB = {
	first: 'How many days a week may I work from home?',
	firstAnswer: LONG_ANSWER,
	second: 'Do I need to tell anyone before a home office day?',
	secondAnswer: 'Yes: tell your team lead, as I said before. Nobody else needs to know.',
};

/** alice's script: two tool calls and an answer, then Create Task behind the review and an answer. */
function aliceScript(withTaskTool: boolean): LlmTurn[] {
	return [
		{ toolCalls: [{ name: 'List Knowledge Bases', arguments: {} }] },
		{ toolCalls: [{ name: 'List Files', arguments: { knowledgeBaseId: handbook.id } }] },
		{ content: ALICE.firstAnswer },
		...(withTaskTool
			? [
					// A tool behind human review takes its own parameters in toolParameters (n8n's schema for it).
					{ toolCalls: [{ name: TASK_NODE, arguments: { toolParameters: TASK, hitlParameters: {} } }] },
					{ content: ALICE.secondAnswer },
				]
			: [{ content: ALICE.secondAnswerWithoutTool }]),
	];
}

const BOB_SCRIPT: LlmTurn[] = [
	{ toolCalls: [{ name: 'Download File', arguments: { knowledgeBaseId: handbook.id, fileId: handbook.files.policy } }] },
	{ content: BOB.firstAnswer },
	{ content: BOB.secondAnswer },
];

/** n8n 2.x generates the human review tools; n8n 1.x does not. */
const hasReviewTools = (ctx: ScenarioContext) => ctx.target !== '1';

/**
 * n8n 1.x: activating the example as it is is refused; then the change docs/team-assistant.md tells
 * 1.x users to make (the review node and the Create Task tool behind it deleted), saved as the
 * editor saves it, and the example activated. Returns the refusal's message.
 */
async function activateOnN8n1(server: N8nServer, example: ExampleWorkflow): Promise<string> {
	let refusal = '';
	try {
		await activateWorkflow(server, example.id);
	} catch (e) {
		refusal = (e as Error).message;
	}
	const saved = await server.rest<{ versionId: string; nodes: ExampleWorkflow['nodes']; connections: ExampleWorkflow['connections'] }>('GET', `/workflows/${example.id}`);
	const changed = withoutHumanReview({ ...example, nodes: saved.nodes, connections: saved.connections });
	await server.rest('PATCH', `/workflows/${example.id}`, { versionId: saved.versionId, nodes: changed.nodes, connections: changed.connections });
	await activateWorkflow(server, example.id);
	return refusal;
}

interface Conversation {
	who: 'alice' | 'bob';
	gid: string;
	tid: string;
}

interface Exchange {
	conversation: Conversation;
	question: string;
	/** The trigger's answer to the delivery. */
	status: number;
	execution: string;
	/** The model's requests of this run. */
	requests: LlmRequestRecord[];
	/** The bot's texts in the conversation after the question, in order. */
	texts: string[];
	/** From the message to the run's end (and the review's taps). */
	seconds: number;
}

interface Review {
	buttons: Button[];
	question: { messageId: string; groupId: string; threadId: string };
	statusAfterQuestion: string;
	bobTap: TapResult;
	statusAfterBob: string;
	tasksAfterBob: number;
	aliceTap: TapResult;
}

interface Report {
	/** n8n 1.x: why it refused to activate the example as it is. */
	refusedOnN8n1?: string;
	exchanges: Exchange[];
	review?: Review;
	/** Every execution of the example, once settled. */
	statuses: string[];
	/** Task creates at the platform. */
	taskCreates: LoggedRequest[];
	totalSeconds: number;
}

const reports = new Map<string, Report>();

async function executionList(server: N8nServer, workflowId: string): Promise<Array<{ id: string; status: string }>> {
	return (await server.executions({ workflowId })).results;
}

/** Waits for the workflow's `n`-th execution to reach one of `statuses` (newest first in n8n's list). */
async function nthExecution(server: N8nServer, workflowId: string, n: number, statuses: string[], timeoutMs = 60_000): Promise<{ id: string; status: string }> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const list = await executionList(server, workflowId);
		const sorted = [...list].sort((a, b) => Number(a.id) - Number(b.id));
		const nth = sorted[n - 1];
		if (nth && statuses.includes(nth.status)) return nth;
		if (Date.now() > deadline) throw new Error(`execution ${n} of the team assistant: ${JSON.stringify(sorted)}, wanted ${statuses.join('/')}`);
		await sleep(200);
	}
}

/** The bot's texts in a conversation after message seq `since` (sent or pushed), in order. */
function textsSince(state: SimulatorState, c: Conversation, since: number): string[] {
	return state
		.sentMessages({ gid: c.gid, tid: c.tid })
		.filter((m) => m.seq > since)
		.map((m) => m.content as { type?: string; text?: unknown })
		.filter((content) => typeof content.text === 'string' && (content.type === undefined || content.type === 'text'))
		.map((content) => String(content.text));
}

const lastSeq = (state: SimulatorState) => state.sentMessages().at(-1)?.seq ?? 0;

async function ask(ctx: ScenarioContext, server: N8nServer, url: string, workflowId: string, c: Conversation, question: string, n: number, review?: (exec: string) => Promise<void>): Promise<Exchange> {
	const started = Date.now();
	const llm = ctx.sim.llm as LlmSimulator;
	const state = ctx.sim.state as SimulatorState;
	const since = lastSeq(state);
	const requestsBefore = llm.requests().length;
	const user = SEED.users[c.who];
	const event = messageEvent({ text: question, userId: user._id, username: user.username, groupId: c.gid, topicId: c.tid });
	const res = await sendWebhook(url, { kind: 'bot', events: [event] }, { secret: ctx.sim.credentials.webhookSecret });
	let execution: string;
	if (review) {
		execution = (await nthExecution(server, workflowId, n, ['waiting', 'success', 'error', 'crashed'])).id;
		await review(execution);
	}
	execution = (await nthExecution(server, workflowId, n, ['success', 'error', 'crashed', 'canceled'])).id;
	return {
		conversation: c,
		question,
		status: res.status,
		execution,
		requests: llm.requests().slice(requestsBefore),
		texts: textsSince(state, c, since),
		seconds: Math.round((Date.now() - started) / 100) / 10,
	};
}

const TASKS = '/api/v1/task-projects/tasks';
const taskCreates = (ctx: ScenarioContext) => ctx.sim.log.find({ method: 'POST', path: TASKS });

const REVIEW_INTRO = 'Create the task "';
const PUSH = '/bot/v2/message/push';

/** The buttons of the review's question, once the platform got it. */
async function reviewButtons(ctx: ScenarioContext, timeoutMs = 60_000): Promise<Button[]> {
	for (const deadline = Date.now() + timeoutMs; ; await sleep(200)) {
		const template = ctx.sim.log
			.find({ method: 'POST', path: PUSH })
			.map((r) => (r.body as { messages?: Array<{ template?: { text?: string; actions: Button[] } }> }).messages?.[0]?.template)
			.find((t) => t?.text?.startsWith(REVIEW_INTRO));
		if (template) return template.actions;
		if (Date.now() > deadline) throw new Error('no review question reached the simulator');
	}
}

/** alice's review: the question in the topic, bob's tap (refused), then alice's Approve. */
async function answerReview(ctx: ScenarioContext, server: N8nServer, out: { review?: Review }): Promise<void> {
	const sim = ctx.sim as unknown as Simulator;
	const buttons = await reviewButtons(ctx);
	const token = String(buttons[0]?.data ?? '');
	const executionId = decodeAnswerToken(token)?.executionId ?? '';
	const question = sentOf(sim, token);
	const statusOf = async () => String((await server.rest<{ status: string }>('GET', `/executions/${executionId}`)).status);
	const statusAfterQuestion = await statusOf();
	const bobTap = await sim.tap({ messageId: question.messageId, label: 'Approve', user: 'bob' });
	await sleep(1500);
	const statusAfterBob = await statusOf();
	const tasksAfterBob = taskCreates(ctx).length;
	const aliceTap = await sim.tap({ messageId: question.messageId, label: 'Approve', user: 'alice' });
	out.review = { buttons, question, statusAfterQuestion, bobTap, statusAfterBob, tasksAfterBob, aliceTap };
}

async function runTeamAssistant(ctx: ScenarioContext): Promise<Report> {
	const started = Date.now();
	const inst = findInstalled(targetFor(ctx.n8nVersion));
	if (!inst) throw new Error(`n8n ${ctx.n8nVersion} is not installed`);
	const sim = ctx.sim as unknown as Simulator;
	const userFolder = createUserFolder(`n8n-e2e-assistant-${ctx.target}-`);
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-assistant-import-'));
	let server: N8nServer | undefined;
	try {
		fs.cpSync(path.join(ctx.userFolder, '.n8n', 'nodes'), path.join(userFolder, '.n8n', 'nodes'), { recursive: true });
		await importExamples(inst, userFolder, ctx.sim as unknown as SimulatorInfo, workDir);
		server = await startN8nServer(inst, { userFolder, logLevel: 'warn' });
		await server.setupOwner();
		const example = loadExample(TEAM_ASSISTANT_FILE);
		const refusedOnN8n1 = hasReviewTools(ctx) ? undefined : await activateOnN8n1(server, example);
		if (hasReviewTools(ctx)) await activateWorkflow(server, example.id);
		const url = triggerWebhookUrl(server.url, example);
		sim.configure({ botWebhookUrl: url, botWebhookSecret: ctx.sim.credentials.webhookSecret });
		// an empty probe until the trigger's webhook is registered (401 from the trigger; never a run)
		for (const deadline = Date.now() + 30_000; ; await sleep(250)) {
			const probe = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"events":[]}' });
			await probe.text();
			if (probe.status !== 404 || Date.now() > deadline) break;
		}

		const llm = ctx.sim.llm as LlmSimulator;
		llm.reset();
		llm.setScript(aliceScript(hasReviewTools(ctx)), ALICE.first);
		llm.setScript(BOB_SCRIPT, BOB.first);
		const state = ctx.sim.state as SimulatorState;
		const bobChat = state.ensureDirectChat(bob._id);
		const topic: Conversation = { who: 'alice', gid: project._id, tid: release._id };
		const direct: Conversation = { who: 'bob', gid: bobChat.gid, tid: bobChat.tid };

		const out: { review?: Review } = {};
		const exchanges = [
			await ask(ctx, server, url, example.id, topic, ALICE.first, 1),
			await ask(ctx, server, url, example.id, direct, BOB.first, 2),
			await ask(ctx, server, url, example.id, topic, ALICE.second, 3, hasReviewTools(ctx) ? async () => await answerReview(ctx, server as N8nServer, out) : undefined),
			await ask(ctx, server, url, example.id, direct, BOB.second, 4),
		];
		const statuses = (await executionList(server, example.id)).map((e) => e.status);
		return { refusedOnN8n1, exchanges, review: out.review, statuses, taskCreates: taskCreates(ctx), totalSeconds: Math.round((Date.now() - started) / 100) / 10 };
	} catch (e) {
		if (server) process.stdout.write(`      team assistant, on failure: ${await diagnosis(ctx, server)}\n`);
		const output = server ? `\n--- n8n start output (tail) ---\n${server.output().split('\n').slice(-30).join('\n')}` : '';
		throw new Error(`${(e as Error).message}${output}`);
	} finally {
		sim.configure({ botWebhookUrl: null, botWebhookSecret: null });
		await server?.stop();
		fs.rmSync(workDir, { recursive: true, force: true });
		if (process.env.E2E_KEEP === '1') process.stdout.write(`      team assistant user folder kept: ${userFolder}\n`);
		else fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

/** What went on: the model's requests (script, turn, answer) and each execution's status, last node and error. */
async function diagnosis(ctx: ScenarioContext, server: N8nServer): Promise<string> {
	const inst = findInstalled(targetFor(ctx.n8nVersion));
	const llmLines = (ctx.sim.llm as LlmSimulator).requests().map((r) => `${r.script}#${r.turn}${r.exhausted ? ' exhausted' : ''} ${JSON.stringify(r.response).slice(0, 200)} tool results ${JSON.stringify(((r.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? []).filter((m) => m.role === 'tool').map((m) => m.content)).slice(-700)}`);
	const executions = [];
	for (const x of await executionList(server, loadExample(TEAM_ASSISTANT_FILE).id)) {
		const detail = await server.rest<{ data?: unknown }>('GET', `/executions/${x.id}`);
		const data = inst ? (parseExecutionData(inst, detail.data) as { resultData?: { error?: unknown; lastNodeExecuted?: string; runData?: Record<string, Array<{ error?: { message?: string }; data?: unknown }>> } }) : undefined;
		const runs = Object.entries(data?.resultData?.runData ?? {}).map(([name, rs]) => `${name}: ${rs.map((r) => (r.error ? `error ${r.error.message}` : JSON.stringify(r.data).slice(0, 300))).join(' | ')}`);
		executions.push(`${x.id} ${x.status} last ${data?.resultData?.lastNodeExecuted} error ${JSON.stringify(data?.resultData?.error)?.slice(0, 600)}\n          ${runs.join('\n          ')}`);
	}
	return `model requests:\n        ${llmLines.join('\n        ')}\n      executions:\n        ${executions.join('\n        ')}`;
}

/** Every text of a request's messages (system, user, assistant, tool), one string. */
function requestText(r: LlmRequestRecord): string {
	const messages = (r.body as { messages?: Array<{ content?: unknown }> }).messages ?? [];
	return messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''))).join('\n');
}

function roles(r: LlmRequestRecord): string[] {
	return ((r.body as { messages?: Array<{ role: string }> }).messages ?? []).map((m) => m.role);
}

function check(report: Report, ctx: ScenarioContext): void {
	const [alice1, bob1, alice2, bob2] = report.exchanges;
	process.stdout.write(
		`      [n8n ${ctx.n8nVersion}] team assistant: ${report.totalSeconds} s in all; exchanges ${report.exchanges.map((x) => `${x.conversation.who} ${x.seconds} s (${x.requests.length} model requests, ${x.texts.length} messages)`).join(', ')}; executions ${report.statuses.join(', ')}\n`,
	);
	for (const x of report.exchanges) {
		assert.equal(x.status, 200, `${x.question}: the trigger's answer`);
		for (const r of x.requests) assert.equal(r.exhausted, false, `${x.question}: a scripted turn answered (script ${r.script}); the model read ${requestText(r).slice(0, 400)}`);
	}
	assert.deepEqual(report.statuses, ['success', 'success', 'success', 'success'], 'four runs, each a success');

	// The scripts: every request of a conversation was keyed by its first question.
	assert.deepEqual(
		report.exchanges.map((x) => [...new Set(x.requests.map((r) => r.script))]),
		[[ALICE.first], [BOB.first], [ALICE.first], [BOB.first]],
		"each run's requests belong to its conversation's script",
	);

	// Memory: a second run's requests hold the first exchange, and nothing of the other conversation.
	const other = { alice: [BOB.first, ...LONG_ANSWER.split('\n\n'), BOB.second, BOB.secondAnswer], bob: [ALICE.first, ALICE.firstAnswer, ALICE.second, ALICE.secondAnswer, ALICE.secondAnswerWithoutTool] };
	for (const [first, second] of [
		[alice1, alice2],
		[bob1, bob2],
	]) {
		const who = first.conversation.who;
		for (const r of second.requests) {
			const text = requestText(r);
			assert.ok(text.includes(first.question), `${who}'s second run: the model read the first question (${roles(r).join(', ')})`);
			const answer = who === 'alice' ? ALICE.firstAnswer : LONG_ANSWER;
			assert.ok(text.includes(answer), `${who}'s second run: the model read the first answer`);
			assert.ok(text.includes(second.question), `${who}'s second run: the model read the second question`);
			for (const foreign of other[who]) assert.ok(!text.includes(foreign), `${who}'s second run: nothing of the other conversation (found "${foreign.slice(0, 40)}")`);
		}
		for (const r of first.requests) for (const foreign of other[who]) assert.ok(!requestText(r).includes(foreign), `${who}'s first run: nothing of the other conversation`);
	}
	// (n8n 2.41's agent keeps the first run's tool call and result in the memory too; 1.123's does not)
	const bobRoles = roles(bob2.requests[0]);
	assert.deepEqual(
		[bobRoles[0], bobRoles[1], bobRoles.at(-2), bobRoles.at(-1), bobRoles.filter((r) => r === 'user').length],
		['system', 'user', 'assistant', 'user', 2],
		`bob's second run: the system message, the first exchange, the question (${bobRoles.join(', ')})`,
	);

	// The replies: in the conversation asked in; the long answer in several messages, in order.
	assert.deepEqual(alice1.texts, [ALICE.firstAnswer]);
	assert.ok(bob1.texts.length >= 2, `the long answer came in several messages (${bob1.texts.length})`);
	assert.ok(
		bob1.texts.every((t) => t.length <= MAX_LENGTH),
		`each message at most ${MAX_LENGTH} characters (${bob1.texts.map((t) => t.length).join(', ')})`,
	);
	assert.equal(bob1.texts.join(' ').replace(/\s+/g, ' '), LONG_ANSWER.replace(/\s+/g, ' '), 'the messages in order make the answer');
	assert.deepEqual(bob2.texts, [BOB.secondAnswer]);

	if (!hasReviewTools(ctx)) {
		assert.match(report.refusedOnN8n1 ?? '', /400.*Unrecognized node type: n8n-nodes-workplace\.workplaceBotHitl/, 'n8n 1.x refuses to activate the example as it is');
		assert.equal(report.review, undefined);
		assert.deepEqual(alice2.texts, [ALICE.secondAnswerWithoutTool]);
		assert.deepEqual(report.taskCreates, [], 'no task without the tool');
		const tools = (alice2.requests[0].body as { tools?: Array<{ function: { name: string } }> }).tools ?? [];
		assert.deepEqual(tools.map((t) => t.function.name).sort(), ['Download_File', 'List_Files', 'List_Knowledge_Bases']);
		return;
	}

	// n8n 2: the task only after alice's tap, never after bob's.
	const review = report.review;
	assert.ok(review, 'the review ran');
	assert.deepEqual(
		review.buttons.map((b) => b.label),
		['Approve', 'Decline'],
	);
	assert.deepEqual([review.question.groupId, review.question.threadId], [project._id, release._id], 'the review asked in the conversation');
	assert.equal(review.statusAfterQuestion, 'waiting');
	assert.equal(review.bobTap.status, 200);
	assert.match(review.bobTap.body, /\(notAllowed\)/, `bob's tap: ${review.bobTap.body}`);
	assert.equal(review.statusAfterBob, 'waiting', "bob's tap resumed nothing");
	assert.equal(review.tasksAfterBob, 0, "no task after bob's tap");
	assert.match(review.aliceTap.body, /\(resumed\)/, `alice's tap: ${review.aliceTap.body}`);
	assert.equal(report.taskCreates.length, 1, 'one task');
	const [create] = report.taskCreates;
	assert.ok(create.time >= Date.parse(String(review.aliceTap.event.timestamp)) - 1000, "the task was created after alice's tap");
	assert.deepEqual(create.body, { taskTitle: TASK.title, assigneeId: bob._id, dueDate: '2026-11-27T16:00:00Z' });
	// The trigger posts the confirmation while the resumed run replies: either may come first.
	const topicTexts = alice2.texts.filter((t) => !t.startsWith(REVIEW_INTRO));
	assert.equal(topicTexts[0], 'bob may not answer this request.', "bob's tap answered first");
	assert.deepEqual(topicTexts.slice(1).sort(), ['Approved by alice', ALICE.secondAnswer].sort(), "what the topic showed after alice's second question");
	const toolResults = alice2.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
	assert.ok(
		toolResults.messages.some((m) => m.role === 'tool' && JSON.stringify(m.content).includes(TASK.title)),
		'the model read the created task',
	);
}

export const scenario: Scenario = {
	name: `example: ${TEAM_ASSISTANT_FILE} (activated in n8n start: two conversations with memory, a split answer, a task reviewed in the chat)`,
	workflow: () => chain([manualTrigger(), set('Placeholder', { note: 'the team assistant runs in before()' })]),
	async before(ctx) {
		reports.set(ctx.n8nVersion, await runTeamAssistant(ctx));
	},
	assert(_result, ctx) {
		const report = reports.get(ctx.n8nVersion);
		assert.ok(report, 'before() produced no report');
		check(report, ctx);
	},
};
