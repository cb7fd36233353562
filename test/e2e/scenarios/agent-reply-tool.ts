/**
 * Reply to Event as an AI Agent's tool, in real n8n (`n8n start`): Workplace Trigger (message
 * events) -> AI Agent (the simulator's scripted chat model) with the Workplace Bot Tool "Say You
 * Are Looking" (Message > Reply to Event, Reply To: Event From Workplace Trigger, Text by
 * `$fromAI`) -> Reply to Event with the agent's answer.
 *
 * The model calls the tool ("Looking it up…") before its final answer. Checked, per case: the
 * platform got `POST /bot/v1/group/message` with the event's gid and tid and the model's text once,
 * then the final reply in the same conversation; the model read the sent message as the tool's
 * result. The two ways n8n runs a tool (docs/ARCHITECTURE.md, "What we rely on in n8n", item 15):
 * - AI Agent 3 (both majors): the agent hands the tool call to the engine (an engine request), which
 *   runs the tool node as a node of its own whose input comes from the agent
 *   (`getInputSourceData()`); a topic of a group and bob's direct chat;
 * - AI Agent 2.2: the agent runs the tool inside its own step, through n8n-core's tool context,
 *   which keeps the agent as `parentNode`; a topic.
 * No fallback line may appear in n8n's log (withTriggerServer).
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { parseExecutionData } from '../../../bench/lib';
import type { LlmRequestRecord, LlmSimulator, LlmTurn } from '../../../simulator';
import { messageEvent, SEED, sendWebhook } from '../../../simulator';
import type { SimulatorState } from '../../../simulator';
import { findInstalled, targetFor } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import type { LoggedRequest, ScenarioContext, WorkflowJson } from '../types';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import { chain, node, PACKAGE } from '../workflow';

const { alice, bob } = SEED.users;
const { project } = SEED.groups;
const release = project.topics.release;

const TOOL = 'Say You Are Looking';
const LOOKING = 'Looking it up…';
const GROUP_MESSAGE = '/bot/v1/group/message';

type Ref = { id: string; name: string };

interface Case {
	name: string;
	agentVersion: 3 | 2.2;
	who: 'alice' | 'bob';
	/** The question; it keys the case's script. */
	question: string;
	answer: string;
	/** Delivered in one delivery with the case before it (two items in one run). */
	withPrevious?: boolean;
	/**
	 * The tool refuses: its run holds events of two conversations and n8n does not tell a tool of
	 * AI Agent 2.x which of the agent's items it runs for (nothing is sent; the model reads why).
	 */
	refused?: boolean;
}

const CASES: Case[] = [
	{ name: 'agent 3, a topic', agentVersion: 3, who: 'alice', question: 'When is the 2.3 release planned?', answer: 'Version 2.3 is planned for Friday 27 November.' },
	{ name: 'agent 3, a direct chat', agentVersion: 3, who: 'bob', question: 'Who reviews the release notes?', answer: 'Alice reviews the release notes.' },
	{ name: 'agent 2.2, a topic', agentVersion: 2.2, who: 'alice', question: 'Which version ships after 2.3?', answer: 'Version 2.4 ships after 2.3.' },
	{ name: 'agent 3, two events in one delivery: a topic', agentVersion: 3, who: 'alice', question: 'Is the 2.3 changelog ready?', answer: 'The 2.3 changelog is ready.' },
	{ name: 'agent 3, two events in one delivery: a direct chat', agentVersion: 3, who: 'bob', question: 'Where is the 2.3 changelog?', answer: 'In the Release planning topic.', withPrevious: true },
	{ name: 'agent 2.2, two events in one delivery: a topic', agentVersion: 2.2, who: 'alice', question: 'Is the 2.4 changelog ready?', answer: 'Not yet.', refused: true },
	{ name: 'agent 2.2, two events in one delivery: a direct chat', agentVersion: 2.2, who: 'bob', question: 'Where is the 2.4 changelog?', answer: 'Nowhere yet.', withPrevious: true, refused: true },
];

const script = (c: Case): LlmTurn[] => [{ toolCalls: [{ name: TOOL, arguments: { text: LOOKING } }] }, { content: c.answer }];

function workflow(agentVersion: Case['agentVersion'], hookId: string, creds: { bot: Ref; secret: Ref; openAi: Ref }): WorkflowJson {
	const wf = chain([
		node('Workplace Trigger', `${PACKAGE}.workplaceTrigger`, 1.1, { verification: 'secret', events: ['message'], useBotCredential: true, options: {} }, { after: [] }),
		node('AI Agent', '@n8n/n8n-nodes-langchain.agent', agentVersion, { promptType: 'define', text: '={{ $json.message.text }}', options: {} }),
		node('Reply in the Conversation', `${PACKAGE}.workplaceBot`, 1, { resource: 'message', operation: 'reply', replyTo: 'trigger', messageType: 'text', text: '={{ $json.output }}', options: {} }),
		node('OpenAI Chat Model', '@n8n/n8n-nodes-langchain.lmChatOpenAi', 1.2, { model: { __rl: true, mode: 'list', value: 'gpt-4o-mini' }, options: {} }, { after: [] }),
		node(
			TOOL,
			`${PACKAGE}.workplaceBotTool`,
			1,
			{
				resource: 'message',
				operation: 'reply',
				replyTo: 'trigger',
				messageType: 'text',
				text: "={{ $fromAI('text', 'A short message telling the person you are looking it up', 'string') }}",
				options: {},
			},
			{ after: [] },
		),
	]);
	for (const n of wf.nodes) {
		if (n.name === 'Workplace Trigger') {
			n.webhookId = hookId;
			n.credentials = { workplaceWebhookApi: creds.secret, workplaceBotOAuth2Api: creds.bot };
		}
		if (n.name === 'OpenAI Chat Model') n.credentials = { openAiApi: creds.openAi };
		if (n.type.startsWith(`${PACKAGE}.workplaceBot`)) n.credentials = { workplaceBotOAuth2Api: creds.bot };
	}
	const connections = wf.connections as unknown as Record<string, Record<string, Array<Array<{ node: string; type: string; index: number }>>>>;
	connections['OpenAI Chat Model'] = { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] };
	connections[TOOL] = { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] };
	return wf;
}

interface CaseReport {
	name: string;
	gid: string;
	tid: string;
	deliveryStatus: number;
	status: string;
	/** What the platform got in the conversation, in order: [path, gid, tid, text]. */
	posts: Array<[string, unknown, unknown, unknown]>;
	/** Group messages sent anywhere during the case. */
	allPosts: number;
	requests: LlmRequestRecord[];
	/** The tool results the model read in its second request. */
	toolResults: string[];
	/** On failure: each node's runs. */
	detail?: string;
}

/** Waits for the workflow's `n`-th execution to end (newest first in n8n's list). */
async function nthFinished(srv: TriggerServer, workflowId: string, n: number): Promise<{ id: string; status: string }> {
	for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
		const sorted = [...(await srv.server.executions({ workflowId })).results].sort((a, b) => Number(a.id) - Number(b.id));
		const nth = sorted[n - 1];
		if (nth && ['success', 'error', 'crashed', 'canceled'].includes(nth.status)) return nth;
		if (Date.now() > deadline) throw new Error(`execution ${n} of ${workflowId}: ${JSON.stringify(sorted)}`);
	}
}

/** Each node's runs of an execution, short (errors in full). */
async function runsOf(ctx: ScenarioContext, srv: TriggerServer, id: string): Promise<string> {
	const inst = findInstalled(targetFor(ctx.n8nVersion));
	const detail = await srv.execution(id);
	const data = inst ? (parseExecutionData(inst, detail.data) as { resultData?: { runData?: Record<string, Array<{ error?: { message?: string; description?: string }; data?: unknown }>> } }) : undefined;
	return Object.entries(data?.resultData?.runData ?? {})
		.map(([name, rs]) => `${name}: ${rs.map((r) => (r.error ? `error ${r.error.message} ${r.error.description ?? ''}` : JSON.stringify(r.data).slice(0, 400))).join(' | ')}`)
		.join('\n        ');
}

const toolResultsOf = (r: LlmRequestRecord | undefined): string[] =>
	((r?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)?.messages ?? [])
		.filter((m) => m.role === 'tool')
		.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

async function runCases(ctx: ScenarioContext, srv: TriggerServer): Promise<CaseReport[]> {
	const llm = ctx.sim.llm as LlmSimulator;
	llm.reset();
	for (const c of CASES) llm.setScript(script(c), c.question);
	const botName = 'Workplace Bot (reply tool e2e)';
	const bot = { id: await srv.createCredential(botName, 'workplaceBotOAuth2Api', { baseUrl: ctx.sim.url, clientId: ctx.sim.credentials.botClientId, clientSecret: ctx.sim.credentials.botClientSecret }), name: botName };
	const secretName = 'Workplace webhook secret (reply tool e2e)';
	const secret = { id: await srv.createCredential(secretName, 'workplaceWebhookApi', { secret: ctx.sim.credentials.webhookSecret }), name: secretName };
	const openAiName = 'OpenAI (scripted simulator, reply tool e2e)';
	const openAi = { id: await srv.createCredential(openAiName, 'openAiApi', { apiKey: 'sk-e2e-scripted-model', url: `${ctx.sim.url}/v1` }), name: openAiName };

	const workflows = new Map<Case['agentVersion'], { id: string; url: string; runs: number }>();
	for (const version of [3, 2.2] as const) {
		const hookId = randomUUID();
		const id = await srv.createActiveWorkflow(`e2e reply tool: agent ${version}`, workflow(version, hookId, { bot, secret, openAi }));
		const url = srv.webhookUrl(hookId, 'webhook');
		await srv.waitForWebhook(url);
		workflows.set(version, { id, url, runs: 0 });
	}

	const state = ctx.sim.state as SimulatorState;
	const bobChat = state.ensureDirectChat(bob._id);
	const conversationOf = (c: Case): [string, string] => (c.who === 'alice' ? [project._id, release._id] : [bobChat.gid, bobChat.tid]);
	/** The cases, grouped by delivery. */
	const deliveries: Case[][] = [];
	for (const c of CASES) {
		if (c.withPrevious) deliveries[deliveries.length - 1].push(c);
		else deliveries.push([c]);
	}
	const reports: CaseReport[] = [];
	for (const delivery of deliveries) {
		const wf = workflows.get(delivery[0].agentVersion) as { id: string; url: string; runs: number };
		const since = ctx.sim.log.all().at(-1)?.seq ?? 0;
		const events = delivery.map((c) => {
			const [gid, tid] = conversationOf(c);
			const user = c.who === 'alice' ? alice : bob;
			return messageEvent({ text: c.question, userId: user._id, username: user.username, groupId: gid, topicId: tid });
		});
		const res = await sendWebhook(wf.url, { kind: 'bot', events }, { secret: ctx.sim.credentials.webhookSecret });
		const execution = await nthFinished(srv, wf.id, ++wf.runs);
		const sent: LoggedRequest[] = ctx.sim.log.find({ method: 'POST', path: GROUP_MESSAGE }).filter((r) => r.seq > since);
		const body = (r: LoggedRequest) => r.body as { gid?: unknown; tid?: unknown; message?: { data?: unknown } };
		const detail = execution.status === 'success' ? undefined : await runsOf(ctx, srv, execution.id);
		for (const c of delivery) {
			const [gid, tid] = conversationOf(c);
			const requests = llm.requests().filter((r) => r.script === c.question);
			reports.push({
				name: c.name,
				gid,
				tid,
				deliveryStatus: res.status,
				status: execution.status,
				posts: sent.filter((r) => body(r).gid === gid).map((r) => [r.path, body(r).gid, body(r).tid, body(r).message?.data]),
				allPosts: sent.length / delivery.length,
				requests,
				toolResults: toolResultsOf(requests[1]),
				detail,
			});
		}
	}
	return reports;
}

export const scenario = triggerServerScenario<CaseReport[]>({
	name: 'agent reply tool: Reply to Event as an AI Agent tool answers in the trigger event\'s conversation (agent 3 and 2.2, n8n start)',
	placeholderNote: 'the reply tool cases run in before()',
	run: runCases,
	check(reports, ctx) {
		for (const r of reports) {
			process.stdout.write(
				`      [n8n ${ctx.n8nVersion}] ${r.name}: delivery ${r.deliveryStatus}, execution ${r.status}, posts ${JSON.stringify(r.posts.map((p) => p[3]))}, model requests ${r.requests.length}, model read ${JSON.stringify(r.toolResults).slice(0, 300)}${r.detail ? `\n        ${r.detail}` : ''}\n`,
			);
		}
		for (const [i, r] of reports.entries()) {
			const c = CASES[i];
			assert.equal(r.deliveryStatus, 200, `${r.name}: the trigger's answer`);
			assert.equal(r.status, 'success', `${r.name}: execution (${r.detail})`);
			assert.equal(r.requests.length, 2, `${r.name}: two model requests (the tool call, the answer)`);
			assert.ok(r.requests.every((q) => !q.exhausted), `${r.name}: every request answered by the script`);
			// The tool's message once, in the event's conversation, before the final reply; nothing else sent.
			const conversation = (text: string) => [GROUP_MESSAGE, r.gid, r.tid, text];
			assert.deepEqual(r.posts, c.refused ? [conversation(c.answer)] : [conversation(LOOKING), conversation(c.answer)], `${r.name}: what the conversation got`);
			assert.equal(r.allPosts, c.refused ? 1 : 2, `${r.name}: no message elsewhere`);
			// The model read the sent message (or why nothing was sent) as the tool's result.
			assert.equal(r.toolResults.length, 1, `${r.name}: one tool result`);
			if (c.refused) assert.match(r.toolResults[0], /events of 2 conversations from .{0,2}Workplace Trigger/, `${r.name}: the tool result`);
			else {
				assert.ok(r.toolResults[0].includes(r.gid), `${r.name}: the tool result names the conversation: ${r.toolResults[0]}`);
				assert.doesNotMatch(r.toolResults[0], /error|needs the event/i, `${r.name}: the tool result`);
			}
		}
	},
});
