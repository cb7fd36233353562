/**
 * Every workflow in examples/ in real n8n, as a user imports it (only its id and name are set by
 * the runner), with the six simulator credentials `npm run dev` creates.
 *
 * - Examples started by a Manual Trigger run with `n8n execute`; the assertions check the output
 *   items and what the simulator received.
 * - Examples started by a Workplace Trigger or a Webhook node run in before(): a user folder
 *   prepared exactly as `npm run dev` prepares it (package copied from the runner's folder,
 *   credentials and examples imported with n8n's CLI), `n8n start`, the examples activated through
 *   the REST API. A trigger example gets a signed delivery from the simulator's webhook sender; the
 *   approval example gets two drafts POSTed to its Webhook node, and the reviewer's buttons in the
 *   pushes are clicked as a browser would (Publish on one, Decline on the other); the two-of-three
 *   release example gets "release 2.4" in the release topic, then alice's tap on Approve (the
 *   simulator's `tap`), the reminder naming bob and carol (imported with 1 minute instead of the
 *   file's 4 hours), then bob's tap. The executions n8n recorded and what the simulator received
 *   are checked. The executed workflow is a placeholder.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { parseExecutionData } from '../../../bench/lib';
import { decodeAnswerToken } from '../../../nodes/shared/approvals/tapProtocol';
import { askedAtOf } from '../../../nodes/shared/approvals/clockProtocol';
import type { LlmSimulator, Simulator, SimulatorState, TapResult } from '../../../simulator';
import { messageEvent, SEED, sendWebhook } from '../../../simulator';
import {
	activateWorkflow,
	EXAMPLE_CREDENTIALS,
	importable,
	importExamples,
	isServerStarted,
	isTriggerStarted,
	loadExample,
	loadExamples,
	needsN8n2,
	triggerWebhookUrl,
	webhookNodeUrl,
	type ExampleWorkflow,
	type SimulatorInfo,
} from '../../../scripts/lib/examples';
import { createUserFolder, fetchWebhook, findInstalled, settledExecutions, startN8nServer, targetFor, type ExecutionSummary, type N8nInstall, type N8nServer } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import type { Scenario, ScenarioContext, ScenarioCredential, LoggedRequest, WorkflowJson } from '../types';
import { chain, manualTrigger, set } from '../workflow';
import { executionIdOf, open, PUSH, pushedTemplate, type Button } from './send-and-wait';
import { sentOf } from './send-and-wait-chat';
import { TEAM_ASSISTANT_FILE } from './team-assistant';
import { requestLines, sha256 } from '../workplace';

const credentials: ScenarioCredential[] = EXAMPLE_CREDENTIALS.map((c) => ({
	id: c.id,
	name: c.name,
	type: c.type,
	data: (ctx) => c.data(ctx.sim as unknown as SimulatorInfo),
}));

const state = (ctx: ScenarioContext) => ctx.sim.state as SimulatorState;
const knowledgePrefix = (ctx: ScenarioContext) => new URL(ctx.sim.knowledgeUrl).pathname.replace(/\/$/, '');
/** The simulator log without token requests (a token saved with the credential may be reused). */
const calls = (ctx: ScenarioContext): LoggedRequest[] => ctx.sim.log.all().filter((r) => r.path !== '/oauth/token');

function asWorkflow(example: ExampleWorkflow): WorkflowJson {
	return importable(example) as unknown as WorkflowJson;
}

/** A scenario running one example file with `n8n execute`. */
function executable(file: string, assertions: Scenario['assert']): Scenario {
	const example = loadExample(file);
	return {
		name: `example: ${file}`,
		credentials,
		workflow: () => asWorkflow(example),
		assert: assertions,
	};
}

const handbook = SEED.knowledge.handbook;
const faq = SEED.knowledge.faq;
const alice = SEED.users.alice;
const bob = SEED.users.bob;
const project = SEED.groups.project;

const NOTES =
	'# Onboarding notes\n\nLaptops are ordered by IT on the first day.\nAsk your buddy for access to the team channels.\n';
const CHECKLIST = '# Release checklist\n\n1. Freeze the branch\n2. Run the end-to-end tests\n3. Tag and publish\n';

const knowledgeExample = executable('knowledge-upload-and-list.json', (result, ctx) => {
	const [uploaded] = result.json('Upload to Knowledge Base');
	assert.equal(uploaded.name, 'onboarding-notes.md');
	assert.equal(uploaded.size, Buffer.byteLength(NOTES));
	assert.equal(uploaded.sha256, sha256(NOTES));
	const listed = result.json('List Files');
	const ids = listed.map((f) => f.id);
	assert.ok(ids.includes(uploaded.id), `List Files includes the upload (${ids.join(', ')})`);
	for (const seeded of Object.values(handbook.files)) assert.ok(ids.includes(seeded), `List Files includes ${seeded}`);
	assert.equal(new Set(ids).size, ids.length, 'List Files ran once (Execute Once), no file twice');

	const p = knowledgePrefix(ctx);
	const log = calls(ctx);
	assert.deepEqual(requestLines(log).slice(0, 2), [`POST ${p}/knowledge/${handbook.id}/files`, `GET ${p}/knowledge/${handbook.id}/files`]);
	assert.ok(log.every((r) => r.status >= 200 && r.status < 300 && r.headers['x-api-key'] === ctx.sim.credentials.knowledgeApiKey));
	const file = log[0].multipart?.files[0];
	assert.equal(file?.filename, 'onboarding-notes.md');
	assert.equal(file?.sha256, sha256(NOTES));
	assert.equal(state(ctx).knowledgeFile(handbook.id, String(uploaded.id))?.name, 'onboarding-notes.md');
});

const EXPENSE_BUTTONS = {
	type: 'template',
	altText: 'Expense report waiting for you',
	template: {
		type: 'buttons',
		title: 'Expense report for Alice',
		text: 'Bob submitted 120 EUR for the team dinner.',
		actions: [
			{ type: 'postback', label: 'Approve', data: 'expense=42&decision=approve' },
			{ type: 'postback', label: 'Reject', data: 'expense=42&decision=reject' },
			{ type: 'uri', label: 'Open report', linkUri: 'https://workplace.example.com/expenses/42' },
		],
	},
};

const botExample = executable('bot-buttons-to-direct-chat.json', (result, ctx) => {
	assert.equal(result.json('Find User')[0]._id, alice._id);
	assert.deepEqual(result.json('Get Direct Chat')[0], SEED.directChats.alice);
	const [sent] = result.json('Send Buttons');
	assert.equal(sent.gid, SEED.directChats.alice.gid);
	assert.equal(sent.tid, SEED.directChats.alice.tid);
	assert.deepEqual(
		(sent.results as Array<{ status: string }>).map((r) => r.status),
		['success'],
	);
	assert.deepEqual(requestLines(calls(ctx)), [
		'GET /bot/v1/users',
		`GET /bot/v2/groups/users/${alice._id}`,
		'POST /bot/v2/message/push',
	]);
	assert.deepEqual(calls(ctx)[2].body, { ...SEED.directChats.alice, messages: [EXPENSE_BUTTONS] });
	assert.deepEqual(state(ctx).sentMessages({ uid: alice._id }).at(-1)?.content, EXPENSE_BUTTONS);
});

const isoDate = (daysAhead: number) => new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10);

const formExample = executable('form-staged-approval.json', (result, ctx) => {
	const [created] = result.json('Create Purchase Approval');
	assert.equal(created.responseType, 'hierarchy');
	const log = calls(ctx).filter((r) => r.path === '/v1/forms');
	assert.deepEqual(
		log.map((r) => `${r.method} ${r.status}`),
		['POST 201'],
	);
	const body = log[0].body as Record<string, unknown>;
	assert.equal(body.name, 'Purchase request: three laptops');
	assert.deepEqual(body.receiverUserIds, ['bob', 'carol', 'erin']);
	assert.ok([isoDate(7), isoDate(8)].includes(String(body.dueDate)), `form due in 7 days, got ${String(body.dueDate)}`);
	const tiers = body.responseTiers as Array<Record<string, unknown>>;
	assert.equal(tiers.length, 2);
	assert.deepEqual(
		{ ...tiers[0], dueDate: undefined },
		{ title: 'Manager', tier: 1, allowedResponders: [{ type: 'user', entityId: 'bob', weight: 1 }], minimumWeight: 1, dueDate: undefined },
	);
	assert.match(String(tiers[0].dueDate), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
	assert.deepEqual(tiers[1], {
		title: 'HR and finance (in parallel)',
		tier: 2,
		allowedResponders: [
			{ type: 'user', entityId: 'carol', weight: 1 },
			{ type: 'user', entityId: 'erin', weight: 1 },
		],
		minimumWeight: 2,
		duration: 3,
	});
	assert.equal(state(ctx).forms().filter((f) => f.id === created.id).length, 1);
});

const taskExample = executable('task-with-checklist.json', (result, ctx) => {
	const [created] = result.json('Create Onboarding Task');
	const log = calls(ctx).filter((r) => r.path === '/api/v1/task-projects/tasks');
	assert.deepEqual(
		log.map((r) => r.status),
		[201],
	);
	const body = log[0].body as Record<string, unknown>;
	assert.deepEqual({ ...body, dueDate: undefined }, {
		taskTitle: 'Onboard Bob to the support team',
		taskDescription: 'Everything Bob needs in his first week.',
		priority: 1,
		dueDate: undefined,
		assigneeId: bob._id,
		checklist: [
			{ description: 'Order a laptop', isDone: true },
			{ description: 'Create accounts', isDone: false },
			{ description: 'Pick a buddy', isDone: false },
		],
	});
	assert.match(String(body.dueDate), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
	assert.equal(state(ctx).task(String(created.id))?.taskTitle, 'Onboard Bob to the support team');
});

const newFileFlow = executable('flow-new-file-to-knowledge-base.json', async (result, ctx) => {
	const [uploaded] = result.json('Upload to Knowledge Base');
	assert.equal(uploaded.name, 'release-checklist.md');
	assert.equal(uploaded.sha256, sha256(CHECKLIST));
	const [announced] = result.json('Announce in Topic');
	assert.equal((announced.message as { threadId: string }).threadId, project.topics.release._id);
	const p = knowledgePrefix(ctx);
	assert.deepEqual(requestLines(calls(ctx)), [`POST ${p}/knowledge/${faq.id}/files`, 'POST /bot/v1/group/message']);
	const text = `New in the knowledge base: release-checklist.md (${Buffer.byteLength(CHECKLIST)} bytes)`;
	const posted = state(ctx).sentMessages({ gid: project._id, tid: project.topics.release._id }).at(-1);
	assert.ok(posted && JSON.stringify(posted.content).includes(text), `topic message ${JSON.stringify(posted?.content)}`);
	assert.equal((await state(ctx).readKnowledgeFile(faq.id, String(uploaded.id)))?.toString('utf8'), CHECKLIST);
});

// ---------------------------------------------------------------- trigger-started examples

interface TriggerReport {
	/** Per example file: HTTP status of the delivery, executions, the first execution's data. */
	deliveries: Record<string, { status: number; executions: ExecutionSummary[]; execution?: Record<string, unknown> }>;
	activeIds: string[];
	pushes: LoggedRequest[];
	bobReply?: unknown;
	approval?: ApprovalReport;
	release?: ReleaseReport;
}

/** flow-approve-before-publishing.json: one draft published, one declined. */
interface ApprovalReport {
	/** The Webhook node's answers to the two POSTs. */
	posted: number[];
	buttons: { published: Button[]; declined: Button[] };
	/** Execution statuses right after the pushes (both waiting) and after the clicks. */
	waiting: string[];
	finished: string[];
	/** The pages the clicks got. */
	clicks: Array<{ status: number; recorded: boolean }>;
	/** Requests of the approval flow at the simulator, token requests left out. */
	requests: LoggedRequest[];
}

const reports = new Map<string, TriggerReport>();

/** An execution's status as n8n's REST API answers it. */
async function executionStatus(server: N8nServer, id: string): Promise<string> {
	return String((await server.rest<{ status: string }>('GET', `/executions/${id}`)).status);
}

/** Polls an execution until its status is one of `wanted` (or the time is up): the last status seen. */
async function waitForStatus(server: N8nServer, id: string, wanted: string[], timeoutMs = 30_000): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const status = await executionStatus(server, id);
		if (wanted.includes(status) || Date.now() > deadline) return status;
		await sleep(200);
	}
}

type NodeOutputs = Record<string, Array<Array<Array<Record<string, unknown>>>>>;

/** Per node that ran in an execution (GET /executions/:id): each run's outputs, each a list of the items' json. */
function nodeOutputs(inst: N8nInstall, execution: { data?: unknown } | undefined): NodeOutputs {
	type Run = { data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } };
	const data = parseExecutionData(inst, execution?.data) as { resultData?: { runData?: Record<string, Run[]> } } | undefined;
	const runData = data?.resultData?.runData ?? {};
	return Object.fromEntries(Object.entries(runData).map(([name, runs]) => [name, runs.map((run) => (run.data?.main ?? []).map((items) => (items ?? []).map((i) => i.json)))]));
}


async function runTriggerExamples(ctx: ScenarioContext): Promise<TriggerReport> {
	const inst = findInstalled(targetFor(ctx.n8nVersion));
	if (!inst) throw new Error(`n8n ${ctx.n8nVersion} is not installed`);
	const userFolder = createUserFolder(`n8n-e2e-examples-${ctx.target}-`);
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-examples-import-'));
	let server: N8nServer | undefined;
	try {
		// As `npm run dev` does: the package (as the runner installed it), then CLI imports.
		fs.cpSync(path.join(ctx.userFolder, '.n8n', 'nodes'), path.join(userFolder, '.n8n', 'nodes'), { recursive: true });
		await importExamples(inst, userFolder, ctx.sim as unknown as SimulatorInfo, workDir, withShortReminder);
		server = await startN8nServer(inst, { userFolder, logLevel: 'warn' });
		await server.setupOwner();
		const triggered = loadExamples().filter(isTriggerStarted).filter((e) => e.file !== TEAM_ASSISTANT_FILE);
		// n8n 1.x refuses to activate an example with a human review tool; the team assistant's scenario checks that.
		for (const e of loadExamples().filter(isServerStarted)) if (ctx.target !== '1' || !needsN8n2(e)) await activateWorkflow(server, e.id);
		const active = await server.rest<Array<{ id: string; active: boolean }>>('GET', '/workflows');
		const activeIds = active.filter((w) => w.active).map((w) => w.id);

		const secret = ctx.sim.credentials.webhookSecret;
		const bobChat = state(ctx).ensureDirectChat(bob._id);
		const report: TriggerReport = { deliveries: {}, activeIds, pushes: [] };
		ctx.sim.log.clear();
		for (const e of triggered) {
			const url = triggerWebhookUrl(server.url, e);
			// an empty probe: 401 from the trigger means registered; it never starts a run
			await fetchWebhook(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"events":[]}' });
			const event =
				e.file === 'flow-reply-to-bot-messages.json'
					? messageEvent({ text: 'Where do I find the VPN guide?', userId: bob._id, username: bob.username, groupId: bobChat.gid, topicId: bobChat.tid })
					: messageEvent({ text: 'Hello from the e2e test ✓' });
			const res = await sendWebhook(url, { kind: 'bot', events: [event] }, { secret });
			const executions = await settledExecutions(server, e.id);
			const execution = executions[0] ? await server.rest<Record<string, unknown>>('GET', `/executions/${executions[0].id}`) : undefined;
			report.deliveries[e.file] = { status: res.status, executions, execution };
		}
		report.pushes = ctx.sim.log.find({ method: 'POST', path: '/bot/v2/message/push' });
		report.bobReply = state(ctx).sentMessages({ uid: bob._id }).at(-1)?.content;
		report.approval = await runApprovalExample(ctx, server);
		report.release = await runReleaseExample(ctx, server, inst);
		return report;
	} catch (e) {
		const out = server ? `\n--- n8n start output (tail) ---\n${server.output().split('\n').slice(-30).join('\n')}` : '';
		throw new Error(`${(e as Error).message}${out}`);
	} finally {
		await server?.stop();
		fs.rmSync(workDir, { recursive: true, force: true });
		if (process.env.E2E_KEEP === '1') process.stdout.write(`      examples user folder kept: ${userFolder}\n`);
		else fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

const APPROVAL_FILE = 'flow-approve-before-publishing.json';
const DRAFTS = {
	published: { fileName: 'vpn-setup.md', content: '# VPN setup\n\n1. Install the client\n2. Sign in with your work account ✓\n', authorId: bob._id },
	declined: { fileName: 'draft-holiday-rules.md', content: '# Holiday rules (draft)\n', authorId: bob._id },
};
const reviewQuestion = (fileName: string) => `"${fileName}" is waiting for review before it goes into the Product FAQ. Publish it?`;

/** Two drafts through the approval example: the reviewer publishes the first and declines the second. */
async function runApprovalExample(ctx: ScenarioContext, server: N8nServer): Promise<ApprovalReport> {
	const example = loadExample(APPROVAL_FILE);
	const url = webhookNodeUrl(server.url, example);
	ctx.sim.log.clear();
	const posted: number[] = [];
	const buttons = {} as ApprovalReport['buttons'];
	for (const [outcome, draft] of Object.entries(DRAFTS) as Array<[keyof typeof DRAFTS, (typeof DRAFTS)['published']]>) {
		const res = await fetchWebhook(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(draft) });
		posted.push(res.status);
		buttons[outcome] = (await pushedTemplate(ctx.sim.log, reviewQuestion(draft.fileName))).actions;
	}
	const executionIds = [executionIdOf(buttons.published[0].linkUri), executionIdOf(buttons.declined[1].linkUri)];
	const statusOf = async (id: string) => await executionStatus(server, id);
	const waiting = await Promise.all(executionIds.map(statusOf));
	const clicks = [];
	for (const button of [buttons.published[0], buttons.declined[1]]) {
		const page = await open(button.linkUri);
		clicks.push({ status: page.status, recorded: /recorded/i.test(page.text) });
	}
	await settledExecutions(server, example.id);
	const finished = await Promise.all(executionIds.map(statusOf));
	return { posted, buttons, waiting, finished, clicks, requests: calls(ctx) };
}

function checkApprovalExample(report: TriggerReport, ctx: ScenarioContext): void {
	const approval = report.approval;
	assert.ok(approval, 'the approval example ran');
	assert.deepEqual(approval.posted, [200, 200]);
	for (const actions of [approval.buttons.published, approval.buttons.declined]) {
		assert.deepEqual(
			actions.map((a) => a.label),
			['Publish', 'Decline'],
		);
	}
	assert.deepEqual(approval.waiting, ['waiting', 'waiting'], 'both executions wait for the reviewer');
	assert.deepEqual(approval.clicks, [
		{ status: 200, recorded: true },
		{ status: 200, recorded: true },
	]);
	assert.deepEqual(approval.finished, ['success', 'success']);

	// Two pushes to alice, then the published draft uploaded and announced, the declined one reported to bob.
	const p = knowledgePrefix(ctx);
	const aliceChat = state(ctx).directChat(alice._id);
	assert.ok(aliceChat, 'alice has a direct chat with the bot');
	const lines = requestLines(approval.requests);
	const expectedLines = [
		`GET /bot/v2/groups/users/${alice._id}`,
		'POST /bot/v2/message/push',
		`GET /bot/v2/groups/users/${alice._id}`,
		'POST /bot/v2/message/push',
		`POST ${p}/knowledge/${faq.id}/files`,
		'POST /bot/v1/group/message',
		'POST /bot/v1/direct/message',
	];
	assert.deepEqual([...lines].sort(), [...expectedLines].sort(), lines.join('\n'));
	assert.deepEqual(lines.slice(0, 4), expectedLines.slice(0, 4), 'both questions are sent before any answer');
	const [push] = approval.requests.filter((r) => r.path === '/bot/v2/message/push');
	assert.deepEqual((push.body as { gid: string; tid: string }).gid, aliceChat.gid);

	const upload = approval.requests.find((r) => r.path.endsWith('/files'));
	const file = upload?.multipart?.files[0];
	assert.equal(file?.filename, DRAFTS.published.fileName);
	assert.equal(file?.sha256, sha256(DRAFTS.published.content));
	const stored = state(ctx).knowledgeFiles(faq.id).filter((f) => [DRAFTS.published.fileName, DRAFTS.declined.fileName].includes(f.name));
	assert.deepEqual(
		stored.map((f) => f.name),
		[DRAFTS.published.fileName],
		'only the approved draft is in the Product FAQ',
	);

	const announced = approval.requests.find((r) => r.path === '/bot/v1/group/message');
	assert.ok(JSON.stringify(announced?.body).includes(`Reviewed and published in the Product FAQ: ${DRAFTS.published.fileName}`), JSON.stringify(announced?.body));
	const told = approval.requests.find((r) => r.path === '/bot/v1/direct/message');
	assert.deepEqual(told?.body, {
		uid: bob._id,
		message: { type: 'text', data: `The reviewer declined "${DRAFTS.declined.fileName}", so it was not published.` },
	});
}

const RELEASE_FILE = 'flow-release-two-of-three.json';
const release = project.topics.release;
const RELEASE_QUESTION = 'Ship 2.4? Two of alice, bob and carol must approve.';
/** What the release example's topic shows: the question, alice's counted vote, the reminder, bob's decision, the announcement. */
const RELEASE_TEXTS = {
	question: RELEASE_QUESTION,
	aliceCounted: 'alice approved: 1 of 2 approvals so far',
	reminder: `Reminder: "${RELEASE_QUESTION}" is still waiting for bob, carol.`,
	bobDecided: 'Approved by bob',
	announced: 'Release 2.4 approved by alice and bob',
};

/** Options > Remind Approvers of the release example, as the file has it (the docs show these values). */
const RELEASE_REMINDER_IN_FILE = {
	remindAfterAmount: 4,
	remindAfterUnit: 'hours',
	maxReminders: 2,
	reminderText: 'Reminder: "{question}" is still waiting for {pending}.',
};

/**
 * Real time cannot wait the file's 4 hours: the scenario imports the release example with its
 * reminder due 1 minute after the question (and each reminder), replacing only Remind After and its
 * Unit. Reminders at Most, the Reminder Text and everything else are the file's.
 */
const RELEASE_REMINDER_IN_TEST = { remindAfterAmount: 1, remindAfterUnit: 'minutes' };

/** The Remind Approvers values of the release example's Send and Wait node (throws without them). */
function releaseReminder(example: ExampleWorkflow): Record<string, unknown> {
	const asking = example.nodes.find((n) => n.name === 'Ask the Release Leads');
	const options = asking?.parameters.options as { reminders?: { values?: Record<string, unknown> } } | undefined;
	const values = options?.reminders?.values;
	if (!values) throw new Error(`${RELEASE_FILE}: "Ask the Release Leads" has no Options > Remind Approvers`);
	return values;
}

/** The example as the scenario imports it: the release example's reminder after 1 minute, every other example as it is. */
function withShortReminder(example: ExampleWorkflow): ExampleWorkflow {
	if (example.file !== RELEASE_FILE) return example;
	const copy = structuredClone(example);
	Object.assign(releaseReminder(copy), RELEASE_REMINDER_IN_TEST);
	return copy;
}

/**
 * flow-release-two-of-three.json: "release 2.4" in the release topic, alice taps Approve, the
 * reminder comes, then bob taps Approve.
 */
interface ReleaseReport {
	/** The trigger's answer to the message "release 2.4". */
	asked: number;
	buttons: Button[];
	/** The question's message as the platform recorded it. */
	question: { messageId: string; groupId: string; threadId: string };
	/** The execution asking: after the question, after alice's tap, after the reminder (and one more tick of the clock), after bob's. */
	statuses: string[];
	/** Seconds from the question (the time in its nonce, when the node asked) to the reminder's push; null: no reminder came. */
	reminderSeconds: number | null;
	/** alice's tap, then bob's. */
	taps: TapResult[];
	/** The example's executions once settled: the generic message's and this one. */
	executions: ExecutionSummary[];
	/** What the nodes of the asking execution output. */
	outputs: NodeOutputs;
	/** Requests at the simulator from the message on, token requests left out. */
	requests: LoggedRequest[];
}

type TextPush = { gid?: string; tid?: string; messages?: Array<{ type?: string; text?: string }> };

/** The texts the bot pushed to one thread, in order. */
function textsPushed(requests: LoggedRequest[], gid: string, tid: string): string[] {
	return requests
		.filter((r) => r.method === 'POST' && r.path === PUSH)
		.map((r) => r.body as TextPush)
		.filter((b) => b.gid === gid && b.tid === tid && b.messages?.[0]?.type === 'text')
		.map((b) => String(b.messages?.[0]?.text));
}

/** Waits until the bot pushed `text` to the release topic. */
async function pushedToRelease(ctx: ScenarioContext, text: string, timeoutMs = 20_000): Promise<void> {
	for (const deadline = Date.now() + timeoutMs; !textsPushed(calls(ctx), project._id, release._id).includes(text); await sleep(100)) {
		if (Date.now() > deadline) throw new Error(`the bot did not post "${text}" in the release topic`);
	}
}

/** The first push of `text` to the release topic, waiting for it until `deadline` (ms); undefined if none came. */
async function pushOfText(ctx: ScenarioContext, text: string, deadline: number): Promise<LoggedRequest | undefined> {
	for (;;) {
		const push = calls(ctx).find((r) => r.method === 'POST' && r.path === PUSH && textsPushed([r], project._id, release._id).includes(text));
		if (push || Date.now() > deadline) return push;
		await sleep(250);
	}
}

/** The Workplace Trigger's clock ticks every 30 s; a little more than that covers one tick. */
const ONE_CLOCK_TICK_MS = 32_000;

/**
 * The two-of-three release example: a signed message "release 2.4" in the release topic, alice taps
 * Approve on the question (a vote counted), the reminder names bob and carol, then bob taps (the
 * deciding vote), as the simulator plays taps.
 */
async function runReleaseExample(ctx: ScenarioContext, server: N8nServer, inst: N8nInstall): Promise<ReleaseReport> {
	const sim = ctx.sim as unknown as Simulator;
	const example = loadExample(RELEASE_FILE);
	const url = triggerWebhookUrl(server.url, example);
	const secret = ctx.sim.credentials.webhookSecret;
	sim.configure({ botWebhookUrl: url, botWebhookSecret: secret });
	try {
		ctx.sim.log.clear();
		const message = messageEvent({ text: 'release 2.4', groupId: project._id, topicId: release._id });
		const asked = (await sendWebhook(url, { kind: 'bot', events: [message] }, { secret })).status;
		const buttons = (await pushedTemplate(ctx.sim.log, RELEASE_TEXTS.question)).actions;
		const token = buttons[0]?.data ?? '';
		const question = sentOf(sim, token);
		const decoded = decodeAnswerToken(token);
		const executionId = decoded?.executionId ?? '';
		// When the node asked (the time in the question's nonce, the one its reminders count from).
		const askedAt = askedAtOf(decoded?.nonce ?? '') ?? Date.now();
		const statuses = [await waitForStatus(server, executionId, ['waiting'])];
		const taps = [await sim.tap({ messageId: question.messageId, label: 'Approve', user: 'alice' })];
		await pushedToRelease(ctx, RELEASE_TEXTS.aliceCounted);
		statuses.push(await executionStatus(server, executionId));
		// The reminder is due 1 minute after the question; the clock's next tick (every 30 s) posts it.
		const reminder = await pushOfText(ctx, RELEASE_TEXTS.reminder, askedAt + 130_000);
		const reminderSeconds = reminder ? Math.round((reminder.time - askedAt) / 100) / 10 : null;
		// One more tick of the clock before bob's tap: the same reminder posted twice would come with
		// it. The second reminder is due at 2 minutes, after that tick (the first came before 90 s);
		// the tick after that would post it, and comes after bob's tap.
		await sleep(ONE_CLOCK_TICK_MS);
		statuses.push(await executionStatus(server, executionId));
		taps.push(await sim.tap({ messageId: question.messageId, label: 'Approve', user: 'bob' }));
		statuses.push(await waitForStatus(server, executionId, ['success', 'error', 'crashed', 'canceled']));
		const executions = await settledExecutions(server, example.id);
		await pushedToRelease(ctx, RELEASE_TEXTS.bobDecided);
		await sleep(3000); // a second post of anything would come now
		const outputs = nodeOutputs(inst, await server.rest<{ data?: unknown }>('GET', `/executions/${executionId}`));
		return { asked, buttons, question, statuses, reminderSeconds, taps, executions, outputs, requests: calls(ctx) };
	} finally {
		sim.configure({ botWebhookUrl: null, botWebhookSecret: null });
	}
}

function checkReleaseExample(report: TriggerReport, ctx: ScenarioContext): void {
	const inst = findInstalled(targetFor(ctx.n8nVersion));
	assert.ok(inst, `n8n ${ctx.n8nVersion} is installed`);
	// The generic message reached this example too: its Filter keeps nothing, the run succeeds.
	const generic = report.deliveries[RELEASE_FILE];
	assert.equal(generic.status, 200);
	assert.deepEqual(
		generic.executions.map((x) => x.status),
		['success'],
	);
	const dropped = nodeOutputs(inst, generic.execution);
	assert.deepEqual(Object.keys(dropped), ['Message to the Bot', 'Release Requests Only']);
	assert.deepEqual(dropped['Release Requests Only'][0][0], [], 'the Filter keeps no item of the generic message');

	const run = report.release;
	assert.ok(run, 'the release example ran');
	process.stdout.write(
		`      [n8n ${ctx.n8nVersion}] release example: reminder ${run.reminderSeconds ?? 'never posted'}${run.reminderSeconds === null ? '' : ' s'} after the question (Remind After 1 minute instead of 4 hours); statuses ${run.statuses.join(', ')}\n`,
	);
	assert.deepEqual(releaseReminder(loadExample(RELEASE_FILE)), RELEASE_REMINDER_IN_FILE, 'the example reminds after 4 hours, at most twice, with the default text');
	assert.equal(run.asked, 200);
	assert.deepEqual(
		run.buttons.map((b) => b.label),
		['Approve', 'Decline'],
	);
	const tokens = run.buttons.map((b) => decodeAnswerToken(b.data ?? ''));
	const asking = loadExample(RELEASE_FILE).nodes.find((n) => n.name === 'Ask the Release Leads');
	const executionId = run.executions.find((x) => x.id !== generic.executions[0].id)?.id;
	assert.deepEqual(
		tokens.map((t) => [t?.executionId, t?.nodeId, t?.answer]),
		[
			[executionId, asking?.id, 'a'],
			[executionId, asking?.id, 'd'],
		],
		"the buttons answer the release's execution, at the example's Send and Wait node",
	);
	assert.deepEqual([run.question.groupId, run.question.threadId], [project._id, release._id]);
	assert.deepEqual(run.statuses, ['waiting', 'waiting', 'waiting', 'success'], "waiting after the question, after alice's vote and after the reminder; bob's vote resumes it");
	assert.ok(
		run.reminderSeconds !== null && run.reminderSeconds >= 60 && run.reminderSeconds <= 100,
		`the reminder came between 60 and 100 s after the question (${run.reminderSeconds ?? 'never'})`,
	);
	assert.deepEqual(
		run.taps.map((t) => [t.status, /\((\w+)\)/.exec(t.body)?.[1]]),
		[
			[200, 'counted'],
			[200, 'resumed'],
		],
	);
	assert.deepEqual(
		run.executions.map((x) => x.status),
		['success', 'success'],
		"the generic message's run and this one: the taps started no run",
	);

	// The execution went on once, with both votes.
	const voter = (user: { _id: string; username: string }, tap: TapResult) => ({ id: user._id, username: user.username, source: 'chat', approved: true, respondedAt: tap.event.timestamp });
	const data = {
		approved: true,
		responder: { id: bob._id, username: 'bob', source: 'chat' },
		respondedAt: run.taps[1].event.timestamp,
		...run.question,
		responders: [voter(alice, run.taps[0]), voter(bob, run.taps[1])],
	};
	const out = run.outputs;
	assert.deepEqual(Object.keys(out).sort(), ['Announce the Release', 'Approved?', 'Ask the Release Leads', 'Message to the Bot', 'Release Requests Only']);
	assert.deepEqual(out['Ask the Release Leads'], [[[{ data }]]]);
	assert.deepEqual(out['Approved?'], [[[{ data }], []]]);
	assert.deepEqual(
		out['Announce the Release'].map((outputs) => outputs[0].map((item) => (item.message as { threadId?: string }).threadId)),
		[[release._id]],
	);

	// At the platform: the question, alice's vote counted, the reminder, then bob's confirmation and the announcement (either first).
	const lines = requestLines(run.requests);
	assert.deepEqual(lines.slice(0, 3), [`POST ${PUSH}`, `POST ${PUSH}`, `POST ${PUSH}`], lines.join('\n'));
	assert.deepEqual(lines.slice(3).sort(), ['POST /bot/v1/group/message', `POST ${PUSH}`], lines.join('\n'));
	assert.ok(
		run.requests.every((r) => r.status >= 200 && r.status < 300),
		lines.join('\n'),
	);
	assert.deepEqual(run.requests[0].body, {
		gid: project._id,
		tid: release._id,
		messages: [{ type: 'template', altText: RELEASE_TEXTS.question, template: { type: 'buttons', text: RELEASE_TEXTS.question, actions: run.buttons } }],
	});
	assert.deepEqual(textsPushed(run.requests, project._id, release._id), [RELEASE_TEXTS.aliceCounted, RELEASE_TEXTS.reminder, RELEASE_TEXTS.bobDecided]);
	assert.deepEqual(run.requests[2].body, { gid: project._id, tid: release._id, messages: [{ type: 'text', text: RELEASE_TEXTS.reminder }] }, 'the reminder is one text in the topic');
	const announced = run.requests.filter((r) => r.path === '/bot/v1/group/message').map((r) => r.body);
	assert.deepEqual(announced, [{ gid: project._id, tid: release._id, message: { type: 'text', data: RELEASE_TEXTS.announced } }]);
	const inTopic = state(ctx)
		.sentMessages({ gid: project._id, tid: release._id })
		.filter((m) => JSON.stringify(m.content).includes(RELEASE_TEXTS.announced));
	assert.equal(inTopic.length, 1, 'announced once in the release topic');
}

const triggerExamples: Scenario = {
	name: `example: trigger-receive-messages.json, flow-reply-to-bot-messages.json, ${RELEASE_FILE} and ${APPROVAL_FILE} (activated in n8n start)`,
	timeoutMs: 60_000,
	workflow: () => chain([manualTrigger(), set('Placeholder', { note: 'the trigger examples run in before()' })]),
	async before(ctx) {
		reports.set(ctx.n8nVersion, await runTriggerExamples(ctx));
	},
	assert(_result, ctx) {
		const report = reports.get(ctx.n8nVersion);
		assert.ok(report, 'before() produced no report');
		// The team assistant has a scenario of its own (team-assistant.ts); it is activated here too.
		const triggered = loadExamples().filter(isTriggerStarted).filter((e) => e.file !== TEAM_ASSISTANT_FILE);
		assert.deepEqual(
			triggered.map((e) => e.file),
			[RELEASE_FILE, 'flow-reply-to-bot-messages.json', 'trigger-receive-messages.json'],
		);
		for (const e of triggered) assert.ok(report.activeIds.includes(e.id), `${e.file} is active`);

		const receive = report.deliveries['trigger-receive-messages.json'];
		assert.equal(receive.status, 200);
		assert.deepEqual(
			receive.executions.map((x) => x.status),
			['success'],
		);
		const receiveText = JSON.stringify(receive.execution);
		assert.match(receiveText, /Hello from the e2e test ✓/);
		assert.match(receiveText, /"Message"/, 'the Set node ran');

		const flow = report.deliveries['flow-reply-to-bot-messages.json'];
		assert.equal(flow.status, 200);
		assert.deepEqual(
			flow.executions.map((x) => x.status),
			['success'],
		);
		assert.match(JSON.stringify(flow.execution), /Reply with Buttons/);
		const bobChat = state(ctx).directChat(bob._id);
		assert.ok(bobChat, 'bob has a direct chat with the bot');
		assert.equal(report.pushes.length, 1, 'one push: the reply to bob');
		const expected = {
			type: 'template',
			altText: 'How can I help?',
			template: {
				type: 'buttons',
				text: 'Hi Bob, you wrote "Where do I find the VPN guide?". How can I help?',
				actions: [
					{ type: 'postback', label: 'Open a ticket', data: 'action=ticket' },
					{ type: 'postback', label: 'Talk to a human', data: 'action=human' },
					{ type: 'uri', label: 'Help center', linkUri: 'https://workplace.example.com/help' },
				],
			},
		};
		assert.deepEqual(report.pushes[0].body, { gid: bobChat.gid, tid: bobChat.tid, messages: [expected] });
		assert.deepEqual(report.bobReply, expected);
		checkApprovalExample(report, ctx);
		checkReleaseExample(report, ctx);
	},
};

/** The AI Agent example: the scripted model calls its four tools as a real model following the prompt would. */
const AGENT_SUMMARY = 'Employee Handbook: remote-work-policy.md and the holiday calendar.';
const agentExample: Scenario = {
	...executable('agent-team-assistant.json', (result, ctx) => {
		assert.equal(result.json('Team Assistant')[0].output, 'Posted the summary and filed the review task for Bob.');
		const llm = ctx.sim.llm as LlmSimulator;
		const requests = llm.requests();
		assert.equal(requests.length, 5);
		const body = requests[0].body as { messages: Array<{ role: string; content: string }>; tools: Array<{ function: { name: string } }> };
		assert.match(body.messages[0].content, /team's assistant in Workplace/, 'the system message');
		assert.deepEqual(body.tools.map((t) => t.function.name).sort(), ['Create_Task', 'List_Files', 'List_Knowledge_Bases', 'Post_to_Release_Planning']);
		const platform = calls(ctx).filter((r) => r.interface !== 'llm');
		assert.deepEqual(
			platform.map((r) => `${r.method} ${r.path} ${r.status}`),
			[
				`GET ${knowledgePrefix(ctx)}/knowledge 200`,
				`GET ${knowledgePrefix(ctx)}/knowledge/${handbook.id}/files 200`,
				'POST /bot/v1/group/message 201',
				'POST /api/v1/task-projects/tasks 201',
			],
		);
		assert.deepEqual(platform[2].body, { gid: project._id, tid: project.topics.release._id, message: { type: 'text', data: AGENT_SUMMARY } });
		assert.deepEqual(platform[3].body, { taskTitle: 'Review the Employee Handbook', assigneeId: bob._id, dueDate: '2026-11-27T16:00:00Z' });
	}),
	before(ctx) {
		const llm = ctx.sim.llm as LlmSimulator;
		llm.reset();
		llm.setScript([
			{ toolCalls: [{ name: 'List Knowledge Bases', arguments: {} }] },
			{ toolCalls: [{ name: 'List Files', arguments: { knowledgeBaseId: handbook.id } }] },
			{ toolCalls: [{ name: 'Post to Release Planning', arguments: { text: AGENT_SUMMARY } }] },
			{ toolCalls: [{ name: 'Create Task', arguments: { title: 'Review the Employee Handbook', assigneeId: bob._id, dueDate: '2026-11-27T17:00:00+01:00' } }] },
			{ content: 'Posted the summary and filed the review task for Bob.' },
		]);
	},
};

export const scenarios: Scenario[] = [knowledgeExample, botExample, formExample, taskExample, newFileFlow, agentExample, triggerExamples];

/** Guard: every example file has a scenario here. */
const covered = new Set([
	...scenarios.map((s) => s.name.replace(/^example: /, '')).filter((n) => n.endsWith('.json')),
	'trigger-receive-messages.json',
	'flow-reply-to-bot-messages.json',
	APPROVAL_FILE,
	RELEASE_FILE,
	TEAM_ASSISTANT_FILE,
]);
const missing = loadExamples().filter((e) => !covered.has(e.file));
if (missing.length) throw new Error(`examples without an e2e scenario: ${missing.map((e) => e.file).join(', ')}`);
