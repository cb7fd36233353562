/**
 * Human review of an AI agent's tool call through the Workplace bot, in real n8n (`n8n start`).
 * n8n 2.x turns every node with a Send and Wait operation into a "human review" tool
 * (`workplaceBotHitlTool`): placed between a tool and the AI Agent, it asks a person before the
 * tool runs. n8n 1.x has no such tools, so this runs on n8n 2 only.
 *
 * Webhook -> AI Agent (scripted OpenAI Chat Model) with "Post to Release Planning" (Workplace Bot
 * Tool) behind "Ask Alice" (Workplace Bot human review: Approve / Decline in alice's direct chat).
 * Two requests: alice approves one (the post is made, the model reads its result), declines the
 * other (nothing is posted, the model reads that it was declined). The test opens the buttons'
 * links as alice's browser would, and reads what Ask Alice gave on: `approved`, `responder` (a link
 * tells only `source: 'link'`), `respondedAt` and the review message's `messageId`, `groupId`,
 * `threadId` (kept across the wait by the waiting node's stack item, also as a human review tool).
 *
 * Then the same with Answer In: Chat (the review in the release topic, alice the one allowed
 * approver) and a second active workflow holding the Workplace Trigger that hands taps on: carol's
 * tap changes nothing (the bot tells her so), alice's Approve lets the tool run once; in another
 * request alice's Decline leaves the tool uncalled and the model reads that it was declined.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { parseExecutionData } from '../../../bench/lib';
import { findInstalled, targetFor } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import { decodeAnswerToken } from '../../../nodes/shared/approvals/tapProtocol';
import type { LlmSimulator, Simulator, SimulatorState } from '../../../simulator';
import { SEED } from '../../../simulator/seed';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { ScenarioContext, WorkflowJson } from '../types';
import { byId, chain, node, PACKAGE } from '../workflow';
import { BROWSER, executionIdOf, PUSH, type Template } from './send-and-wait';
import { sentOf } from './send-and-wait-chat';

const { project } = SEED.groups;
/** The start of the review message alice gets. */
const REVIEW_INTRO = 'The agent wants to run this tool';

interface CaseReport {
	name: string;
	/** The text the model asked to post. */
	text: string;
	reviewPush?: { to: unknown; text?: string; labels: string[] };
	pageStatus?: number;
	status: string;
	agentOutput?: unknown;
	/** Tool results the model read in its second request. */
	toolResults: string[];
	/** Group messages the platform got with this text. */
	posts: number;
	/** The tool schemas of the model's first request (JSON). */
	tools?: string;
	/** What Ask Alice gave on (its last run's first item's `data`, whatever the connection). */
	reviewData?: Record<string, unknown>;
	/** The review message as the platform recorded it. */
	reviewMessage?: { messageId: string; groupId: string; threadId: string };
	answerIn: 'link' | 'chat';
	/** Chat cases: what the deciding tap was answered, and its event's time. */
	tap?: { status: number; body: string; timestamp: string };
	/** Chat cases: carol's tap before alice's, and the execution's status after it. */
	strangerTap?: { status: number; body: string; statusAfter: string };
	/** Chat cases: the bot's texts in the release topic after the review message. */
	topicTexts?: string[];
}

/** Answer In: Chat: the review in the release topic, alice the one allowed approver. */
const IN_CHAT = { sendTo: 'group', groupId: project._id, topicId: project.topics.release._id, answerIn: 'chat', allowedApprovers: 'alice' };

/** The workflow that receives the bot's events and hands taps on to waiting executions. */
function tapsWorkflow(hookId: string, secret: { id: string; name: string }, bot: { id: string; name: string }): WorkflowJson {
	const wf = chain([
		{ ...node('Trigger', `${PACKAGE}.workplaceTrigger`, 1.1, { verification: 'secret', events: ['postback'], useBotCredential: true, options: {} }), after: [] },
		node('Other Postbacks', 'n8n-nodes-base.noOp', 1, {}),
	]);
	for (const n of wf.nodes) {
		if (n.name === 'Trigger') {
			n.webhookId = hookId;
			n.credentials = { workplaceWebhookApi: secret, workplaceBotOAuth2Api: bot };
		}
	}
	return wf;
}

function workflow(
	hookPath: string,
	bot: { id: string; name: string },
	openAi: { id: string; name: string },
	secret?: { id: string; name: string },
): WorkflowJson {
	const wf = chain([
		{ ...node('Request', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: hookPath, responseMode: 'onReceived', options: {} }), after: [] },
		node('AI Agent', '@n8n/n8n-nodes-langchain.agent', 3, { promptType: 'define', text: '={{ $json.body.request }}', options: {} }),
		{ ...node('OpenAI Chat Model', '@n8n/n8n-nodes-langchain.lmChatOpenAi', 1.2, { model: { __rl: true, mode: 'list', value: 'gpt-4o-mini' }, options: {} }), after: [] },
		{
			...node('Post to Release Planning', `${PACKAGE}.workplaceBotTool`, 1, {
				resource: 'groupMessage',
				operation: 'sendText',
				groupId: project._id,
				topicId: project.topics.release._id,
				text: "={{ $fromAI('text', 'The message to post', 'string') }}",
			}),
			after: [],
		},
		{
			...node('Ask Alice', `${PACKAGE}.workplaceBotHitlTool`, 1, {
				// n8n's default message writes {{ $tool.parameters }}, which n8n 2.41 renders as "[object Object]".
				message: `=${REVIEW_INTRO}: {{ $tool.name }}\n{{ JSON.stringify($tool.parameters) }}`,
				...(secret ? IN_CHAT : { sendTo: 'user', userId: byId(SEED.users.alice._id) }),
				approvalOptions: { values: { approvalType: 'double' } },
			}),
			after: [],
		},
	]);
	for (const n of wf.nodes) {
		if (n.name === 'Request') n.webhookId = randomUUID();
		if (n.name === 'OpenAI Chat Model') n.credentials = { openAiApi: openAi };
		if (n.name === 'Post to Release Planning') n.credentials = { workplaceBotOAuth2Api: bot };
		if (n.name === 'Ask Alice') n.credentials = secret ? { workplaceBotOAuth2Api: bot, workplaceWebhookApi: secret } : { workplaceBotOAuth2Api: bot };
	}
	const connections = wf.connections as unknown as Record<string, Record<string, Array<Array<{ node: string; type: string; index: number }>>>>;
	connections['OpenAI Chat Model'] = { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] };
	connections['Post to Release Planning'] = { ai_tool: [[{ node: 'Ask Alice', type: 'ai_tool', index: 0 }]] };
	connections['Ask Alice'] = { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] };
	return wf;
}

/** The first review push (a buttons template) after log entry `since`, once the platform got it. */
async function reviewPush(ctx: ScenarioContext, since: number, timeoutMs = 60_000): Promise<{ to: unknown; template: Template }> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		for (const r of ctx.sim.log.find({ method: 'POST', path: PUSH }).filter((x) => x.seq > since)) {
			const body = r.body as { to?: unknown; gid?: unknown; messages?: Array<{ template?: Template }> };
			const template = body.messages?.[0]?.template;
			if (template?.text?.includes(REVIEW_INTRO)) return { to: body.to ?? body.gid, template };
		}
		if (Date.now() > deadline) throw new Error('no review push reached the simulator');
		await sleep(200);
	}
}

async function waitForStatus(srv: TriggerServer, executionId: string, statuses: string[], timeoutMs = 60_000): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const status = String((await srv.execution(executionId)).status);
		if (statuses.includes(status) || Date.now() > deadline) return status;
		await sleep(250);
	}
}

async function agentOutput(ctx: ScenarioContext, srv: TriggerServer, executionId: string): Promise<unknown> {
	const inst = findInstalled(targetFor(ctx.n8nVersion));
	if (!inst) throw new Error(`n8n ${ctx.n8nVersion} is not installed`);
	const data = parseExecutionData(inst, (await srv.execution(executionId)).data) as {
		resultData?: { runData?: Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>> };
	};
	const runs = data?.resultData?.runData?.['AI Agent'] ?? [];
	return runs.at(-1)?.data?.main?.[0]?.[0]?.json.output;
}

/** Ask Alice's output after the answer: the `data` of its last run's first item (n8n 2 logs a review tool's output under ai_tool). */
async function reviewDataOf(ctx: ScenarioContext, srv: TriggerServer, executionId: string): Promise<Record<string, unknown> | undefined> {
	const inst = findInstalled(targetFor(ctx.n8nVersion));
	if (!inst) throw new Error(`n8n ${ctx.n8nVersion} is not installed`);
	const data = parseExecutionData(inst, (await srv.execution(executionId)).data) as {
		resultData?: { runData?: Record<string, Array<{ data?: Record<string, Array<Array<{ json: Record<string, unknown> }> | null>> }>> };
	};
	const last = data?.resultData?.runData?.['Ask Alice']?.at(-1)?.data ?? {};
	const item = Object.values(last)
		.flatMap((outputs) => outputs ?? [])
		.flatMap((items) => items ?? [])[0];
	return item?.json.data as Record<string, unknown> | undefined;
}

function toolResultsOf(body: unknown): string[] {
	const messages = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
	return messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

interface Case {
	name: string;
	key: string;
	text: string;
	approve: boolean;
	answerIn: 'link' | 'chat';
}

/** Sends the agent its request, once the workflow's webhook is registered. */
async function request(srv: TriggerServer, hookPath: string, c: Case): Promise<void> {
	const url = `${srv.server.url}/webhook/${hookPath}`;
	const deadline = Date.now() + 30_000;
	for (;;) {
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ request: `${c.key}: post "${c.text}" to the Release planning topic` }),
		});
		await res.text();
		if (res.status === 200) return;
		if (res.status !== 404 || Date.now() > deadline) throw new Error(`POST ${url} answered ${res.status}`);
		await sleep(250);
	}
}

/** The review push of a case, or an error saying why there is none. */
async function reviewPushOf(ctx: ScenarioContext, srv: TriggerServer, workflowId: string, since: number): Promise<{ to: unknown; template: Template }> {
	try {
		return await reviewPush(ctx, since);
	} catch (e) {
		// Say why: the execution's status and error, and what the model was asked.
		const executions = await srv.settledExecutions(workflowId, 500);
		const last = executions.at(-1);
		const detail = last ? await srv.execution(String(last.id)) : undefined;
		const inst = findInstalled(targetFor(ctx.n8nVersion));
		const data = detail && inst ? (parseExecutionData(inst, detail.data) as { resultData?: { error?: unknown; lastNodeExecuted?: string } }) : undefined;
		throw new Error(
			`${(e as Error).message}; executions ${JSON.stringify(executions.map((x) => x.status))}, last node ${data?.resultData?.lastNodeExecuted}, error ${JSON.stringify(data?.resultData?.error)?.slice(0, 800)}, model requests ${(ctx.sim.llm as LlmSimulator).requests().length}`,
		);
	}
}

/** Alice opens the button's link, as her browser would. */
async function answerByLink(srv: TriggerServer, template: Template, c: Case, report: CaseReport): Promise<string> {
	const button = template.actions[c.approve ? 0 : 1];
	const executionId = executionIdOf(button.linkUri);
	assert.equal(await waitForStatus(srv, executionId, ['waiting']), 'waiting', `${c.name}: the execution waits for alice`);
	const page = await fetch(button.linkUri, { headers: { 'user-agent': BROWSER, accept: 'text/html' }, redirect: 'manual' });
	await page.text();
	report.pageStatus = page.status;
	return executionId;
}

/** Carol taps first where the case approves (she may not answer), then alice taps her answer. */
async function answerInChat(ctx: ScenarioContext, srv: TriggerServer, template: Template, c: Case, report: CaseReport): Promise<string> {
	const sim = ctx.sim as unknown as Simulator;
	const token = String(template.actions[0].data ?? '');
	const executionId = decodeAnswerToken(token)?.executionId ?? '';
	assert.equal(await waitForStatus(srv, executionId, ['waiting']), 'waiting', `${c.name}: the execution waits for alice`);
	const { messageId } = sentOf(sim, token);
	if (c.approve) {
		const carol = await sim.tap({ messageId, label: 'Approve', user: 'carol' });
		await sleep(1500);
		report.strangerTap = { status: carol.status, body: carol.body, statusAfter: String((await srv.execution(executionId)).status) };
	}
	const alice = await sim.tap({ messageId, label: c.approve ? 'Approve' : 'Decline', user: 'alice' });
	report.tap = { status: alice.status, body: alice.body, timestamp: String(alice.event.timestamp) };
	return executionId;
}

/** Texts the bot sent to the chat of `sent` after it (sent or pushed), once one matches `last` (or after 10 s). */
async function textsAfter(state: SimulatorState, sent: { seq: number; groupId: string; threadId: string }, last: RegExp): Promise<string[]> {
	const texts = () =>
		state
			.sentMessages({ gid: sent.groupId, tid: sent.threadId })
			.filter((m) => m.seq > sent.seq)
			.map((m) => m.content as { type?: string; text?: unknown })
			.filter((content) => typeof content.text === 'string' && (content.type === undefined || content.type === 'text'))
			.map((content) => String(content.text));
	const deadline = Date.now() + 10_000;
	while (!texts().some((t) => last.test(t)) && Date.now() < deadline) await sleep(200);
	return texts();
}

async function runCase(ctx: ScenarioContext, srv: TriggerServer, workflowId: string, hookPath: string, c: Case): Promise<CaseReport> {
	const llm = ctx.sim.llm as LlmSimulator;
	llm.setScript(
		// A tool behind human review takes its own parameters in toolParameters (n8n's schema for it).
		[{ toolCalls: [{ name: 'Post to Release Planning', arguments: { toolParameters: { text: c.text }, hitlParameters: {} } }] }, { content: `Done (${c.name}).` }],
		c.key,
	);
	const since = Math.max(0, ...ctx.sim.log.all().map((r) => r.seq));
	await request(srv, hookPath, c);
	const report: CaseReport = { name: c.name, text: c.text, status: 'unknown', toolResults: [], posts: 0, answerIn: c.answerIn };
	const { to, template } = await reviewPushOf(ctx, srv, workflowId, since);
	report.reviewPush = { to, text: template.text, labels: template.actions.map((a) => a.label) };
	const executionId = c.answerIn === 'link' ? await answerByLink(srv, template, c, report) : await answerInChat(ctx, srv, template, c, report);
	report.status = await waitForStatus(srv, executionId, ['success', 'error', 'crashed', 'canceled']);
	report.agentOutput = await agentOutput(ctx, srv, executionId);
	report.reviewData = await reviewDataOf(ctx, srv, executionId);
	const state = ctx.sim.state as SimulatorState;
	const sent = state.sentMessages().find((m) => (m.content as { template?: { text?: string } }).template?.text === template.text);
	if (sent) {
		report.reviewMessage = { messageId: sent.id, groupId: sent.groupId, threadId: sent.threadId };
		if (c.answerIn === 'chat') report.topicTexts = await textsAfter(state, sent, /^(Approved|Declined) by /);
	}
	const first = llm.requests().filter((r) => r.script === c.key)[0];
	report.tools = JSON.stringify((first?.body as { tools?: unknown }).tools);
	const second = llm.requests().filter((r) => r.script === c.key)[1];
	report.toolResults = second ? toolResultsOf(second.body) : [];
	report.posts = ctx.sim.log
		.find({ method: 'POST', path: '/bot/v1/group/message' })
		.filter((r) => (r.body as { message?: { data?: string } }).message?.data === c.text).length;
	return report;
}

async function runCases(ctx: ScenarioContext, srv: TriggerServer): Promise<CaseReport[]> {
	(ctx.sim.llm as LlmSimulator).reset();
	const botName = 'Workplace Bot (human review e2e)';
	const bot = {
		id: await srv.createCredential(botName, 'workplaceBotOAuth2Api', {
			baseUrl: ctx.sim.url,
			clientId: ctx.sim.credentials.botClientId,
			clientSecret: ctx.sim.credentials.botClientSecret,
		}),
		name: botName,
	};
	const openAiName = 'OpenAI (scripted simulator)';
	const openAi = { id: await srv.createCredential(openAiName, 'openAiApi', { apiKey: 'sk-e2e-scripted-model', url: `${ctx.sim.url}/v1` }), name: openAiName };
	const reports: CaseReport[] = [];

	// Answered by the buttons' links.
	const hookPath = randomUUID();
	const workflowId = await srv.createActiveWorkflow('e2e agent: human review through the Workplace bot', workflow(hookPath, bot, openAi));
	for (const c of [
		{ name: 'approved', key: 'review-case-approve', text: 'Version 2.3 ships on Friday.', approve: true, answerIn: 'link' as const },
		{ name: 'declined', key: 'review-case-decline', text: 'Version 2.3 is cancelled.', approve: false, answerIn: 'link' as const },
	]) {
		reports.push(await runCase(ctx, srv, workflowId, hookPath, c));
	}

	// Answered in the chat: the trigger's workflow hands the taps on.
	const secretName = 'Workplace webhook secret (human review e2e)';
	const secret = { id: await srv.createCredential(secretName, 'workplaceWebhookApi', { secret: ctx.sim.credentials.webhookSecret }), name: secretName };
	const hookId = randomUUID();
	await srv.createActiveWorkflow('e2e agent: taps on human review buttons', tapsWorkflow(hookId, secret, bot));
	const tapsUrl = srv.webhookUrl(hookId, 'webhook');
	await srv.waitForWebhook(tapsUrl);
	(ctx.sim as unknown as Simulator).configure({ botWebhookUrl: tapsUrl, botWebhookSecret: ctx.sim.credentials.webhookSecret });
	const chatHookPath = randomUUID();
	const chatWorkflowId = await srv.createActiveWorkflow('e2e agent: human review answered in the chat', workflow(chatHookPath, bot, openAi, secret));
	for (const c of [
		{ name: 'approved in the chat', key: 'review-chat-approve', text: 'Version 2.4 ships on Monday.', approve: true, answerIn: 'chat' as const },
		{ name: 'declined in the chat', key: 'review-chat-decline', text: 'Version 2.4 is postponed.', approve: false, answerIn: 'chat' as const },
	]) {
		reports.push(await runCase(ctx, srv, chatWorkflowId, chatHookPath, c));
	}
	return reports;
}

export const scenario = {
	...triggerServerScenario({
		name: 'agent human review: the Workplace bot asks alice before the agent posts (n8n 2 human review tools, n8n start)',
		placeholderNote: 'the human review cases run in before()',
		run: runCases,
		check(reports: CaseReport[], ctx: ScenarioContext) {
			for (const r of reports) {
				process.stdout.write(
					`      [n8n ${ctx.n8nVersion}] ${r.name}: review push ${JSON.stringify(r.reviewPush)}, page ${r.pageStatus}, execution ${r.status}, posts ${r.posts}, model read ${JSON.stringify(r.toolResults)}, agent said ${JSON.stringify(r.agentOutput)}, Ask Alice gave ${JSON.stringify(r.reviewData)}, tools ${r.tools}\n`,
				);
			}
			const [approved, declined, approvedInChat, declinedInChat] = reports;
			const tools = JSON.parse(approved.tools ?? '[]') as Array<{ function: { name: string; parameters: { properties: { toolParameters?: { properties?: Record<string, { description?: string }> } } } } }>;
			assert.equal(tools.length, 1);
			assert.deepEqual(tools[0].function.parameters.properties.toolParameters?.properties, { text: { type: 'string', description: 'The message to post' } });
			for (const r of reports) {
				const isApproval = r === approved || r === approvedInChat;
				assert.deepEqual(r.reviewPush?.labels, ['Approve', 'Decline'], `${r.name}: alice got Approve and Decline`);
				assert.equal(r.status, 'success', `${r.name}: execution`);
				assert.equal(r.agentOutput, `Done (${r.name}).`);
				assert.equal(r.toolResults.length, 1, `${r.name}: one tool result reached the model`);
				assert.ok(r.reviewPush?.text?.includes(r.text), `${r.name}: alice saw what the agent wants to post`);
				assert.ok(r.reviewMessage, `${r.name}: the platform recorded the review message`);
				const { respondedAt, ...rest } = r.reviewData ?? {};
				assert.ok(typeof respondedAt === 'string' && new Date(respondedAt).toISOString() === respondedAt, `${r.name}: respondedAt is an ISO time (got ${String(respondedAt)})`);
				const responder = r.answerIn === 'link' ? { source: 'link' } : { id: SEED.users.alice._id, username: 'alice', source: 'chat' };
				assert.deepEqual(rest, { approved: isApproval, responder, ...r.reviewMessage }, `${r.name}: what Ask Alice gave on`);
				assert.equal(r.posts, isApproval ? 1 : 0, `${r.name}: the post was made ${isApproval ? 'once' : 'never'}`);
				if (isApproval) assert.doesNotMatch(r.toolResults[0], /declin|denied|reject/i);
				else assert.match(r.toolResults[0], /declin|denied|reject|not approved/i, `${r.name}: the model read that alice declined`);
			}
			for (const r of [approved, declined]) assert.equal(r.pageStatus, 200, `${r.name}: the button's page`);
			// In the chat: the review in the release topic; carol's tap resumes nothing, alice's does.
			for (const r of [approvedInChat, declinedInChat]) {
				assert.deepEqual([r.reviewMessage?.groupId, r.reviewMessage?.threadId], [project._id, project.topics.release._id], `${r.name}: asked in the release topic`);
				assert.equal(r.tap?.status, 200, `${r.name}: alice's tap answered ${r.tap?.status} ${r.tap?.body}`);
				assert.match(r.tap?.body ?? '', /\(resumed\)/, `${r.name}: alice's tap resumed the execution`);
				assert.equal(r.reviewData?.respondedAt, r.tap?.timestamp, `${r.name}: respondedAt is the tap's time`);
			}
			assert.equal(approvedInChat.strangerTap?.status, 200, `carol's tap answered ${approvedInChat.strangerTap?.status} ${approvedInChat.strangerTap?.body}`);
			assert.equal(approvedInChat.strangerTap?.statusAfter, 'waiting', 'carol\'s tap resumed nothing');
			// (the approved tool's own post goes to the same topic)
			assert.deepEqual(approvedInChat.topicTexts?.filter((t) => t !== approvedInChat.text), ['carol may not answer this request.', 'Approved by alice'], 'what the bot said in the topic');
			assert.deepEqual(declinedInChat.topicTexts, ['Declined by alice'], 'what the bot said in the topic');
		},
	}),
	targets: ['2' as const],
};
