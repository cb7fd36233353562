/**
 * Send and Wait for Response answered in the chat, in real n8n (`n8n start`): one active workflow
 * receives the bot's events (Workplace Trigger -> filters -> Send and Wait, Answer In: Chat ->
 * next node); people's taps are the simulator's `tap` (the signed postback a tap produces, sent to
 * the trigger's production URL). Per case: what the trigger answered, the executions n8n recorded,
 * the waiting execution's status, what the next node got (`approved`, `responder`, `respondedAt` and
 * the question's `messageId`, `groupId`, `threadId`), and what the bot posted in the chat. The
 * release topic's question sets a custom Declined Confirmation without adding Post Confirmation
 * to Options: it is posted. Short form (`npm run test:compat`): alice's tap in her direct chat.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

import { parseExecutionData } from '../../../bench/lib';
import { findInstalled, SIGNED_RESUME_URLS, targetFor, versionAtLeast } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import { decodeAnswerToken, encodeAnswerToken } from '../../../nodes/shared/approvals/tapProtocol';
import { messageEvent, postbackEvent, SEED, sendWebhook } from '../../../simulator';
import type { Simulator, TapRequest, TapResult } from '../../../simulator';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import { checkRefusal, finishedRuns, NEEDS_SIGNED_RESUME_URLS, type Refusal } from './send-and-wait';
import type { ScenarioContext, WorkflowJson } from '../types';
import { byId, chain, node, PACKAGE, type NodeSpec } from '../workflow';

const PUSH = '/bot/v2/message/push';
const alice = SEED.users.alice;
const bob = SEED.users.bob;
const project = SEED.groups.project;
const release = project.topics.release;
const NOT_WAITING = 'This request is no longer waiting for an answer.';
/** The release topic's custom Declined Confirmation (Post Confirmation is not added to its Options). */
const RELEASE_DECLINED = '{user} declined the release';
const NOT_RECORDED = (user: string) => `${user}, your answer could not be recorded just now. If no confirmation follows, please tap again.`;

export interface Check {
	what: string;
	ok: boolean;
}

export interface Report {
	checks: Check[];
	lines: string[];
	/** n8n older than 1.107: the question's run, refused by Send and Wait. */
	refused?: Refusal;
}

/** The credentials an in-chat workflow's Trigger and Send and Wait nodes use. */
export interface ChatCredentials {
	secret: { id: string; name: string };
	bot: { id: string; name: string };
}

/** A Filter (v2) keeping items whose `left` equals `right` (strings). */
function filter(name: string, left: string, right: string, after: string) {
	return node(
		name,
		'n8n-nodes-base.filter',
		2,
		{
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
				conditions: [{ id: randomUUID(), leftValue: left, rightValue: right, operator: { type: 'string', operation: 'equals' } }],
				combinator: 'and',
			},
			options: {},
		},
		{ after },
	);
}

/** A Filter after the Trigger keeping message events whose text starts with `word` (then a space). */
export function messagesStartingWith(name: string, word: string): NodeSpec {
	return filter(name, '={{ $json.type + ":" + String($json.message?.text ?? "").split(" ")[0] }}', `message:${word}`, 'Trigger');
}

/** Workplace Bot's Send and Wait, Response Type approval, Answer In: Chat, asking the event's message text. */
export function askInChat(name: string, parameters: Record<string, unknown>, after: string): NodeSpec {
	return node(
		name,
		`${PACKAGE}.workplaceBot`,
		1,
		{
			resource: 'message',
			operation: 'sendAndWait',
			...parameters,
			message: '={{ $json.message.text }}',
			responseType: 'approval',
			answerIn: 'chat',
			approvalOptions: { values: { approvalType: 'double' } },
		},
		{ after },
	);
}

/**
 * A workflow receiving the bot's events: the Workplace Trigger (message and postback events,
 * replies posted with the bot credential; `triggerParameters` added, e.g. Download Images), then
 * `nodes`; the Trigger and every "Ask …" node get the credentials.
 */
export function chatWorkflow(
	hookId: string,
	credentials: ChatCredentials,
	nodes: NodeSpec[],
	triggerOptions: Record<string, unknown> = {},
	triggerParameters: Record<string, unknown> = {},
): WorkflowJson {
	const wf = chain([
		node('Trigger', `${PACKAGE}.workplaceTrigger`, 1.1, { verification: 'secret', events: ['message', 'postback'], useBotCredential: true, ...triggerParameters, options: triggerOptions }, { after: [] }),
		...nodes,
	]);
	for (const n of wf.nodes) {
		if (n.name === 'Trigger') {
			n.webhookId = hookId;
			n.credentials = { workplaceWebhookApi: credentials.secret, workplaceBotOAuth2Api: credentials.bot };
		}
		if (n.name.startsWith('Ask ')) n.credentials = { workplaceBotOAuth2Api: credentials.bot, workplaceWebhookApi: credentials.secret };
	}
	return wf;
}

/**
 * The bot's event workflow: Trigger -> "direct …" messages ask alice in her direct chat, "group …"
 * messages ask the release topic (alice and bob may answer; `releaseParameters` are added to that
 * Send and Wait, e.g. approvalsRequired), ordinary postbacks run "Got Postback".
 */
export function approvalsWorkflow(
	hookId: string,
	credentials: ChatCredentials,
	triggerOptions: Record<string, unknown> = {},
	releaseParameters: Record<string, unknown> = {},
): WorkflowJson {
	return chatWorkflow(
		hookId,
		credentials,
		[
			messagesStartingWith('Direct', 'direct'),
			askInChat('Ask Alice', { sendTo: 'user', userId: byId(alice._id) }, 'Direct'),
			node('After Alice', 'n8n-nodes-base.noOp', 1, {}, { after: 'Ask Alice' }),
			messagesStartingWith('Group', 'group'),
			askInChat('Ask Release', { sendTo: 'group', groupId: project._id, topicId: release._id, allowedApprovers: 'alice, bob', options: { declinedConfirmation: RELEASE_DECLINED }, ...releaseParameters }, 'Group'),
			node('After Release', 'n8n-nodes-base.noOp', 1, {}, { after: 'Ask Release' }),
			filter('Postbacks', '={{ $json.type }}', 'postback', 'Trigger'),
			node('Got Postback', 'n8n-nodes-base.noOp', 1, {}, { after: 'Postbacks' }),
		],
		triggerOptions,
	);
}

export type PushedMessage = { type?: string; text?: string; template?: { text?: string; actions?: Array<{ type: string; label: string; data?: string }> } };
export type PushBody = { gid?: string; tid?: string; messages?: PushedMessage[] };

/** A question Send and Wait pushed: its buttons' tokens and the execution waiting for them. */
export interface Asked {
	approve: string;
	decline: string;
	executionId: string;
	actions: Array<{ type: string; label: string; data?: string }>;
	push: PushBody;
}

/**
 * One active in-chat workflow on a trigger server, the simulator sending the bot's events to it,
 * and what the cases look at: n8n's executions, the next node's items, the bot's pushes.
 */
export interface ChatRun {
	sim: Simulator;
	/** The trigger's production URL, and the webhook secret deliveries are signed with. */
	url: string;
	secret: string;
	workflowId: string;
	credentials: ChatCredentials;
	checks: Check[];
	lines: string[];
	check(what: string, ok: boolean): void;
	/** Every push the bot sent, in order. */
	pushes(): PushBody[];
	/** The texts the bot posted in one thread, in order. */
	textsIn(gid: string, tid: string): Array<string | undefined>;
	/** How many executions a workflow has, whatever their status. */
	executionsOf(workflowId: string): Promise<number>;
	executions(): Promise<number>;
	status(executionId: string): Promise<string>;
	/** Polls an execution until its status is one of `wanted` (or time runs out): the last status. */
	waitFor(executionId: string, wanted: string[], timeoutMs?: number): Promise<string>;
	/** The json of the items a node of an execution output. */
	after(executionId: string, nodeName: string): Promise<Array<Record<string, unknown>>>;
	/** Sends a message event (the question) and waits for the Send and Wait push. */
	ask(text: string, where?: { groupId?: string; topicId?: string }): Promise<Asked>;
	tap(req: TapRequest): Promise<TapResult>;
}

/** Creates the credentials and the active workflow, waits until n8n serves the trigger and points the simulator's bot webhook at it. */
export async function startChatRun(
	ctx: ScenarioContext,
	srv: TriggerServer,
	name: string,
	workflow: (hookId: string, credentials: ChatCredentials) => WorkflowJson,
): Promise<ChatRun> {
	const sim = ctx.sim as unknown as Simulator;
	const inst = findInstalled(targetFor(ctx.n8nVersion));
	if (!inst) throw new Error(`n8n ${ctx.n8nVersion} is not installed`);
	const secret = ctx.sim.credentials.webhookSecret;
	const secretCred = { id: await srv.createCredential('Workplace webhook secret (chat e2e)', 'workplaceWebhookApi', { secret }), name: 'Workplace webhook secret (chat e2e)' };
	const botCred = {
		id: await srv.createCredential('Workplace bot (chat e2e)', 'workplaceBotOAuth2Api', {
			baseUrl: ctx.sim.url,
			clientId: ctx.sim.credentials.botClientId,
			clientSecret: ctx.sim.credentials.botClientSecret,
		}),
		name: 'Workplace bot (chat e2e)',
	};
	const credentials = { secret: secretCred, bot: botCred };
	const hookId = randomUUID();
	const workflowId = await srv.createActiveWorkflow(name, workflow(hookId, credentials));
	const url = srv.webhookUrl(hookId, 'webhook');
	await srv.waitForWebhook(url);
	sim.configure({ botWebhookUrl: url, botWebhookSecret: secret });

	const checks: Check[] = [];
	const pushes = () => ctx.sim.log.find({ method: 'POST', path: PUSH }).map((r) => r.body as PushBody);
	// Every execution of the workflow, whatever its status (without a status filter n8n 2 lists finished ones only).
	const STATUSES = ['new', 'running', 'waiting', 'success', 'error', 'crashed', 'canceled'];
	const executionsOf = async (id: string) => {
		await sleep(1000);
		return (await srv.server.executions({ workflowId: id, status: STATUSES }, 100)).results.length;
	};
	const status = async (id: string) => String((await srv.execution(id)).status);
	return {
		sim,
		url,
		secret,
		workflowId,
		credentials,
		checks,
		lines: [],
		check: (what, ok) => checks.push({ what, ok }),
		pushes,
		textsIn: (gid, tid) =>
			pushes()
				.filter((b) => b.gid === gid && b.tid === tid && b.messages?.[0]?.type === 'text')
				.map((b) => b.messages?.[0]?.text),
		executionsOf,
		executions: async () => await executionsOf(workflowId),
		status,
		async waitFor(id, wanted, timeoutMs = 20_000) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const s = await status(id);
				if (wanted.includes(s) || Date.now() > deadline) return s;
				await sleep(200);
			}
		},
		async after(id, nodeName) {
			const e = await srv.execution(id);
			const data = parseExecutionData(inst, e.data) as { resultData?: { runData?: Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>> } };
			return (data?.resultData?.runData?.[nodeName] ?? []).flatMap((r) => r.data?.main?.[0] ?? []).map((i) => i.json);
		},
		async ask(text, where = {}) {
			const sent = await sendWebhook(url, { kind: 'bot', events: [messageEvent({ text, ...where })] }, { secret });
			assert.equal(sent.status, 200, `the question "${text}" was answered ${sent.status} ${sent.body}`);
			const deadline = Date.now() + 30_000;
			for (;;) {
				const push = pushes().find((b) => b.messages?.[0]?.template?.text === text);
				if (push) {
					const actions = push.messages![0].template!.actions!;
					const [approve, decline] = actions.map((a) => a.data ?? '');
					return { approve, decline, executionId: decodeAnswerToken(approve)!.executionId, actions, push };
				}
				if (Date.now() > deadline) throw new Error(`no push for "${text}"`);
				await sleep(100);
			}
		},
		tap: async (req) => await sim.tap(req),
	};
}

/** n8n older than 1.107: a question reaches Send and Wait, which refuses it; the runs and what was pushed. */
export async function refusedQuestion(ctx: ScenarioContext, srv: TriggerServer, run: ChatRun, text: string, where: { groupId?: string; topicId?: string } = {}): Promise<Refusal> {
	const sent = await sendWebhook(run.url, { kind: 'bot', events: [messageEvent({ text, ...where })] }, { secret: run.secret });
	assert.equal(sent.status, 200, `the question was answered ${sent.status} ${sent.body}`);
	const runs = await finishedRuns(srv, run.workflowId);
	const pushes = ctx.sim.log.find({ method: 'POST', path: PUSH }).filter((r) => JSON.stringify(r.body).includes('template')).length;
	return { statuses: runs.map((r) => r.status), namesVersion: runs.some((r) => NEEDS_SIGNED_RESUME_URLS.test(r.text)), pushes };
}

async function runCases(ctx: ScenarioContext, srv: TriggerServer): Promise<Report> {
	const run = await startChatRun(ctx, srv, 'e2e in-chat approvals', approvalsWorkflow);
	if (!versionAtLeast(ctx.n8nVersion, SIGNED_RESUME_URLS)) return { checks: [], lines: [], refused: await refusedQuestion(ctx, srv, run, 'direct Approve 120 EUR?') };
	const { sim, url, secret, checks, lines, check, textsIn, executions, status, waitFor, after, ask, tap } = run;

	// 1. Direct chat: alice taps Approve.
	const direct = await ask('direct Approve 120 EUR for the team lunch?');
	check('direct: the buttons are postbacks', direct.actions.every((a) => a.type === 'postback' && decodeAnswerToken(a.data ?? '') !== undefined));
	check(`direct: the token is compact (${direct.approve.length} characters)`, direct.approve.length <= 100);
	check('direct: waiting after sending', (await waitFor(direct.executionId, ['waiting'])) === 'waiting');
	let before = await executions();
	const aliceTap = await tap({ ...messageOf(sim, direct.approve), label: 'Approve', user: 'alice' });
	const directStatus = await waitFor(direct.executionId, ['success', 'error', 'crashed']);
	const directAfter = await after(direct.executionId, 'After Alice');
	lines.push(`direct: tap ${aliceTap.status} ${aliceTap.body}; execution ${directStatus}; next node got ${JSON.stringify(directAfter)}`);
	check('direct: the tap is answered 200 and says resumed', aliceTap.status === 200 && /\(resumed\)/.test(aliceTap.body));
	check('direct: the execution resumed and finished', directStatus === 'success');
	const data = directAfter[0]?.data as Record<string, unknown> | undefined;
	const directMessage = sentOf(sim, direct.approve);
	check(
		`direct: the next node got approved, responder alice (chat), respondedAt the tap time, the question's message ${JSON.stringify(directMessage)}`,
		directAfter.length === 1 &&
			JSON.stringify(data) ===
				JSON.stringify({ approved: true, responder: { id: alice._id, username: 'alice', source: 'chat' }, respondedAt: aliceTap.event.timestamp, ...directMessage }),
	);
	check('direct: the message is in alice\'s direct chat', directMessage.groupId === SEED.directChats.alice.gid && directMessage.threadId === SEED.directChats.alice.tid);
	check('direct: the tap started no run', (await executions()) === before);
	const aliceChat = SEED.directChats.alice;
	check(`direct: "Approved by alice" posted in alice's chat (got ${JSON.stringify(textsIn(aliceChat.gid, aliceChat.tid))})`, textsIn(aliceChat.gid, aliceChat.tid).includes('Approved by alice'));
	// The short form (npm run test:compat): the recipient's tap alone.
	if (ctx.short) return { checks, lines };

	// 2. Group topic, alice and bob allowed: carol taps first, then bob declines.
	const group = await ask('group Ship release 1.6 on Friday?', { groupId: project._id, topicId: release._id });
	before = await executions();
	const carolTap = await tap({ ...messageOf(sim, group.approve), label: 'Approve', user: 'carol' });
	await sleep(1500);
	const afterCarol = await status(group.executionId);
	check(`group: carol's tap changes nothing, still waiting (${afterCarol})`, carolTap.status === 200 && afterCarol === 'waiting');
	check(`group: the bot told carol in the topic (got ${JSON.stringify(textsIn(project._id, release._id))})`, textsIn(project._id, release._id).includes('carol may not answer this request.'));
	const bobTap = await tap({ ...messageOf(sim, group.approve), label: 'Decline', user: 'bob' });
	const groupStatus = await waitFor(group.executionId, ['success', 'error', 'crashed']);
	const groupAfter = await after(group.executionId, 'After Release');
	lines.push(`group: carol ${carolTap.body}; bob ${bobTap.body}; execution ${groupStatus}; next node got ${JSON.stringify(groupAfter)}`);
	const groupMessage = sentOf(sim, group.approve);
	check(
		`group: bob declined, the execution resumed once, with the question's message in the release topic ${JSON.stringify(groupMessage)}`,
		groupStatus === 'success' &&
			groupAfter.length === 1 &&
			JSON.stringify(groupAfter[0].data) ===
				JSON.stringify({ approved: false, responder: { id: bob._id, username: 'bob', source: 'chat' }, respondedAt: bobTap.event.timestamp, ...groupMessage }) &&
			groupMessage.groupId === project._id &&
			groupMessage.threadId === release._id,
	);
	check(
		`group: the custom Declined Confirmation (Post Confirmation not added) posted in the topic (got ${JSON.stringify(textsIn(project._id, release._id))})`,
		textsIn(project._id, release._id).includes(RELEASE_DECLINED.replace('{user}', 'bob')),
	);
	check('group: the taps started no run', (await executions()) === before);

	// 3. A double tap: Approve twice at the same moment.
	const double = await ask('direct Approve 45 EUR for books?');
	before = await executions();
	const repliesBefore = textsIn(aliceChat.gid, aliceChat.tid).length;
	const [first, second] = await Promise.all([0, 1].map(() => tap({ ...messageOf(sim, double.approve), label: 'Approve', user: 'alice' })));
	const doubleStatus = await waitFor(double.executionId, ['success', 'error', 'crashed']);
	await sleep(1000);
	const doubleAfter = await after(double.executionId, 'After Alice');
	const doubleReplies = textsIn(aliceChat.gid, aliceChat.tid).slice(repliesBefore);
	lines.push(`double tap: ${first.body} / ${second.body}; execution ${doubleStatus}; replies ${JSON.stringify(doubleReplies)}`);
	check('double tap: resumed once', doubleStatus === 'success' && doubleAfter.length === 1 && (doubleAfter[0].data as { approved?: boolean }).approved === true);
	check(
		`double tap: one confirmation, and the other tap told it no longer waits or was answered (got ${JSON.stringify(doubleReplies)})`,
		doubleReplies.filter((t) => t === 'Approved by alice').length === 1 &&
			doubleReplies.length === 2 &&
			doubleReplies.some((t) => t === NOT_WAITING || t === 'This request was already answered.'),
	);
	check('double tap: no run started', (await executions()) === before);

	// 4. Refused taps on a fresh waiting execution: a bad signature, a token moved to it from another
	// execution; then a tap on the first message, which no longer waits.
	const target = await ask('direct Approve 300 EUR for a monitor?');
	const other = await ask('direct Approve 20 EUR for coffee?');
	before = await executions();
	const badSignature = await tap({ ...messageOf(sim, target.approve), label: 'Approve', user: 'alice', secret: 'not the secret' });
	const moved = encodeAnswerToken({ ...decodeAnswerToken(other.approve)!, executionId: target.executionId });
	const movedTap = await sendWebhook(url, { kind: 'bot', events: [postbackEvent({ data: moved, userId: alice._id, username: 'alice' })] }, { secret });
	const lateRepliesBefore = textsIn(aliceChat.gid, aliceChat.tid).length;
	const late = await tap({ ...messageOf(sim, direct.approve), label: 'Decline', user: 'alice' });
	await sleep(1500);
	const lateReplies = textsIn(aliceChat.gid, aliceChat.tid).slice(lateRepliesBefore);
	lines.push(`refused: bad signature ${badSignature.status}; moved token ${movedTap.status} ${movedTap.body}; late tap ${late.status} ${late.body}, replies ${JSON.stringify(lateReplies)}`);
	check('bad signature: 401', badSignature.status === 401);
	check('moved token: answered 200 without a resume', movedTap.status === 200 && /\(refused\)/.test(movedTap.body));
	check('late tap: answered 200, not resumed', late.status === 200 && /\(notWaiting\)/.test(late.body));
	check(`late tap: told it no longer waits (got ${JSON.stringify(lateReplies)})`, JSON.stringify(lateReplies) === JSON.stringify([NOT_WAITING]));
	check('refused taps: still waiting', (await status(target.executionId)) === 'waiting' && (await status(other.executionId)) === 'waiting');
	check('refused taps: the first execution is unchanged', JSON.stringify(await after(direct.executionId, 'After Alice')) === JSON.stringify(directAfter));
	check('refused taps: no run started', (await executions()) === before);

	// 5. An ordinary postback starts its run.
	before = await executions();
	const ordinary = await sendWebhook(url, { kind: 'bot', events: [postbackEvent({ data: 'action=lunch&id=7' })] }, { secret });
	const afterOrdinary = await executions();
	lines.push(`ordinary postback: ${ordinary.status} ${ordinary.body}; executions +${afterOrdinary - before}`);
	check('ordinary postback: one run', ordinary.status === 200 && afterOrdinary - before === 1);
	// 6. n8n's waiting route refuses the first hand-off (a stand-in answering 503 once, then n8n).
	await handOffRefusedOnce(ctx, srv, run.credentials, run);
	sim.configure({ botWebhookUrl: url, botWebhookSecret: secret });
	return { checks, lines };
}

/**
 * In front of n8n's waiting route: answers the first hand-off 503, passes every later request to
 * n8n as it came, and counts the hand-offs (the trigger's clock posts to its own URL on this origin
 * too). The trigger's check at activation (an OPTIONS, resumeRoute.ts) is passed on and counted
 * apart.
 */
async function unavailableOnce(n8nOrigin: string): Promise<{ url: string; requests: number; checks: number; close(): Promise<void> }> {
	const target = new URL(n8nOrigin);
	const standIn = { url: '', requests: 0, checks: 0, close: async () => {} };
	const server = createServer((req, res) => {
		// Only hand-offs to n8n's waiting route count: the trigger's clock also posts to its own URL on this origin.
		const handOff = req.method !== 'OPTIONS' && (req.url ?? '').startsWith('/webhook-waiting/');
		if (req.method === 'OPTIONS') standIn.checks++;
		else if (handOff) standIn.requests++;
		if (handOff && standIn.requests === 1) {
			req.resume();
			res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
			return;
		}
		const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
			res.writeHead(answer.statusCode ?? 502, answer.headers);
			answer.pipe(res);
		});
		upstream.on('error', () => res.writeHead(502).end());
		req.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook-waiting`;
	standIn.close = async () => await new Promise<void>((resolve) => server.close(() => resolve()));
	return standIn;
}

type CaseTools = Pick<ChatRun, 'check' | 'lines' | 'executionsOf' | 'status' | 'waitFor' | 'after' | 'textsIn'>;

/**
 * A second active workflow whose trigger hands taps on through the stand-in: the first hand-off
 * fails, the platform is asked to send the tap again (503, Retry-After) and alice is told; the
 * redelivery resumes the execution once.
 */
async function handOffRefusedOnce(ctx: ScenarioContext, srv: TriggerServer, credentials: Parameters<typeof approvalsWorkflow>[1], t: CaseTools): Promise<void> {
	const sim = ctx.sim as unknown as Simulator;
	const secret = ctx.sim.credentials.webhookSecret;
	const hookId = randomUUID();
	const url = srv.webhookUrl(hookId, 'webhook');
	const standIn = await unavailableOnce(new URL(url).origin);
	try {
		const workflowId = await srv.createActiveWorkflow('e2e in-chat approvals (hand-off refused once)', approvalsWorkflow(hookId, credentials, { resumeBaseUrl: standIn.url }));
		await srv.waitForWebhook(url);
		sim.configure({ botWebhookUrl: url, botWebhookSecret: secret });
		const text = 'direct Approve 75 EUR for a course?';
		const asked = await sendWebhook(url, { kind: 'bot', events: [messageEvent({ text })] }, { secret });
		assert.equal(asked.status, 200, `the question was answered ${asked.status} ${asked.body}`);
		let approve = '';
		for (const deadline = Date.now() + 30_000; !approve && Date.now() < deadline; await sleep(100)) {
			const push = ctx.sim.log.find({ method: 'POST', path: PUSH }).map((r) => r.body as PushBody).find((b) => b.messages?.[0]?.template?.text === text);
			approve = push?.messages?.[0]?.template?.actions?.[0]?.data ?? '';
		}
		if (!approve) throw new Error('no push for the refused-once question');
		const executionId = decodeAnswerToken(approve)!.executionId;
		t.check('refused once: waiting after sending', (await t.waitFor(executionId, ['waiting'])) === 'waiting');
		const aliceChat = SEED.directChats.alice;
		const repliesBefore = t.textsIn(aliceChat.gid, aliceChat.tid).length;
		const before = await t.executionsOf(workflowId);

		const first = await sim.tap({ ...messageOf(sim, approve), label: 'Approve', user: 'alice' });
		await sleep(1000);
		const afterFirst = await t.status(executionId);
		const again = await sendWebhook(url, { kind: 'bot', events: [first.event] }, { secret });
		const finalStatus = await t.waitFor(executionId, ['success', 'error', 'crashed']);
		await sleep(1000);
		const next = await t.after(executionId, 'After Alice');
		const replies = t.textsIn(aliceChat.gid, aliceChat.tid).slice(repliesBefore);
		t.lines.push(`refused once: first tap ${first.status} ${first.body}; execution then ${afterFirst}; redelivery ${again.status} ${again.body}; execution ${finalStatus}; stand-in saw ${standIn.requests}; replies ${JSON.stringify(replies)}`);
		t.check('refused once: the first delivery of the tap is answered 503 (send again)', first.status === 503 && /send the delivery again/.test(first.body));
		t.check('refused once: still waiting after the refused hand-off', afterFirst === 'waiting');
		t.check('refused once: the redelivery is answered 200 and says resumed', again.status === 200 && /\(resumed\)/.test(again.body));
		t.check('refused once: resumed once, approved by alice', finalStatus === 'success' && next.length === 1 && (next[0].data as { approved?: boolean }).approved === true);
		t.check('refused once: both hand-offs went through the stand-in', standIn.requests === 2);
		t.check(`refused once: the trigger checked n8n's waiting route through the stand-in once, at activation (got ${standIn.checks})`, standIn.checks === 1);
		t.check(`refused once: alice told once it was not recorded, then the confirmation (got ${JSON.stringify(replies)})`, JSON.stringify(replies) === JSON.stringify([NOT_RECORDED('alice'), 'Approved by alice']));
		t.check('refused once: the taps started no run', (await t.executionsOf(workflowId)) === before);
	} finally {
		await standIn.close();
	}
}

/** The message (thread and id) whose buttons carry this token, as a tap names it. */
export function messageOf(sim: Simulator, token: string): { messageId: string } {
	return { messageId: sentOf(sim, token).messageId };
}

/**
 * The message an escalation posted for the question of this token (Options > Escalate): its
 * buttons carry the same execution, node and nonce with the escalation's answer codes (A, D).
 */
export function escalationMessageOf(sim: Simulator, token: string): { messageId: string } {
	const [prefix, execution, node, nonce] = token.split('.');
	const escalated = `${[prefix, execution, node, nonce, 'A'].join('.')}.`;
	const found = [...sim.state.sentMessages()].reverse().find((m) => JSON.stringify(m.content).includes(escalated));
	if (!found) throw new Error('no sent message carries the escalation\'s buttons of the question');
	return { messageId: found.id };
}

/**
 * The question as an escalation posts it again: each button's token with the escalation's answer
 * code (A for a, D for d) for the same execution, node and nonce, taken from `posted` when it has
 * one (its signature is n8n's, made again); the question unchanged where it has none.
 */
export function asEscalated(question: PushedMessage, posted: PushedMessage | undefined): PushedMessage {
	const postedData = (posted?.template?.actions ?? []).map((action) => action.data ?? '');
	const copy = JSON.parse(JSON.stringify(question)) as PushedMessage;
	for (const action of copy.template?.actions ?? []) {
		const [prefix, execution, node, nonce, answer] = (action.data ?? '').split('.');
		const escalated = `${[prefix, execution, node, nonce, (answer ?? '').toUpperCase()].join('.')}.`;
		action.data = postedData.find((data) => data.startsWith(escalated)) ?? action.data;
	}
	return copy;
}

/** The message whose buttons carry this token as the push answered it: the `messageId`, `groupId` and `threadId` of the output. */
export function sentOf(sim: Simulator, token: string): { messageId: string; groupId: string; threadId: string } {
	const found = sim.state.sentMessages().find((m) => JSON.stringify(m.content).includes(token));
	if (!found) throw new Error('no sent message carries the token');
	return { messageId: found.id, groupId: found.groupId, threadId: found.threadId };
}

export const scenario = triggerServerScenario({
	name: 'send-and-wait in chat: Workplace Trigger -> Send and Wait (Answer In: Chat), answered by taps on postback buttons (n8n start)',
	compat: true,
	placeholderNote: 'the in-chat approval cases run in before()',
	run: runCases,
	check: checkReport('in-chat approvals'),
});

/** A scenario's check of its Report: the refusal on n8n older than 1.107, else the lines printed under `title`; then every check. */
export function checkReport(title: string): (report: Report, ctx: ScenarioContext) => void {
	return (report, ctx) => {
		if (report.refused) checkRefusal(report.refused, ctx.n8nVersion);
		else process.stdout.write(`${[`      [n8n ${ctx.n8nVersion}] ${title}:`, ...report.lines.map((l) => `        ${l}`)].join('\n')}\n`);
		// Every failed check, not only the first.
		const failed = report.checks.filter((c) => !c.ok);
		assert.ok(!failed.length, `${failed.length} of ${report.checks.length} checks failed:\n${failed.map((c) => `- ${c.what}`).join('\n')}`);
	};
}
