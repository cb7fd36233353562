/**
 * n8n's AI Agent drives the package's nodes as tools, in real n8n. The chat model is n8n's OpenAI
 * Chat Model whose credential points at the simulator's scripted chat completions endpoint
 * (simulator/llm.ts): the script says which tools the "model" calls with which arguments, the
 * simulator records what the agent sent (tool schemas, tool results).
 *
 * One conversation: list the knowledge bases, list the files of the Handbook (two chained calls),
 * list the files of an unknown knowledge base (the 404 must come back to the model as a tool
 * result it can read, not fail the run), post a summary to the Release planning topic, answer.
 */
import * as assert from 'node:assert/strict';

import type { LlmRequestRecord, LlmSimulator, LlmTurn } from '../../../simulator';
import { SEED } from '../../../simulator/seed';
import type { Scenario, ScenarioContext, ScenarioCredential, WorkflowJson } from '../types';
import { chain, credentialId, manualTrigger, node, PACKAGE } from '../workflow';
import { botCredential, knowledgeCredential } from '../workplace';

const openAiCredential: ScenarioCredential = {
	id: credentialId('openAiApi/simulator'),
	name: 'OpenAI (scripted simulator)',
	type: 'openAiApi',
	data: ({ sim }) => ({ apiKey: 'sk-e2e-scripted-model', url: `${sim.url}/v1` }),
};

const HANDBOOK = SEED.knowledge.handbook.id;
const UNKNOWN_KB = 'a0000000-0000-4000-8000-00000000dead';
const { project } = SEED.groups;
const SUMMARY = 'The Employee Handbook has 2 files: remote-work-policy.md and the holiday calendar.';
const FINAL = 'Posted the summary to Release planning. The other knowledge base id does not exist.';

const fromAi = (key: string, description: string) => `={{ $fromAI('${key}', '${description}', 'string') }}`;

/** Tool nodes: named as an agent builder would, in n8n's "<node> Tool" variant of each node. */
const TOOLS = {
	listBases: 'List Knowledge Bases',
	listFiles: 'List Files of a Knowledge Base',
	post: 'Post to Release Planning',
};

const script: LlmTurn[] = [
	{ toolCalls: [{ name: TOOLS.listBases, arguments: {} }] },
	{ toolCalls: [{ name: TOOLS.listFiles, arguments: { knowledgeBaseId: HANDBOOK } }] },
	{ toolCalls: [{ name: TOOLS.listFiles, arguments: { knowledgeBaseId: UNKNOWN_KB } }] },
	{ toolCalls: [{ name: TOOLS.post, arguments: { text: SUMMARY } }] },
	{ content: FINAL },
];

const llm = (ctx: ScenarioContext) => ctx.sim.llm as LlmSimulator;

function agentWorkflow(): WorkflowJson {
	const wf = chain([
		manualTrigger(),
		node('AI Agent', '@n8n/n8n-nodes-langchain.agent', 3, {
			promptType: 'define',
			text: 'Find the knowledge base named Handbook, list its files, also try the knowledge base ' + UNKNOWN_KB + ', then post a one-line summary to the Release planning topic.',
			options: {},
		}),
		node(
			'OpenAI Chat Model',
			'@n8n/n8n-nodes-langchain.lmChatOpenAi',
			1.2,
			{ model: { __rl: true, mode: 'list', value: 'gpt-4o-mini' }, options: {} },
			{ after: [], credentials: openAiCredential },
		),
		node(
			TOOLS.listBases,
			`${PACKAGE}.workplaceKnowledgeTool`,
			1,
			{ resource: 'knowledgeBase', operation: 'getAll', returnAll: true },
			{ after: [], credentials: knowledgeCredential },
		),
		node(
			TOOLS.listFiles,
			`${PACKAGE}.workplaceKnowledgeTool`,
			1,
			{
				resource: 'file',
				operation: 'getAll',
				knowledgeBaseId: { __rl: true, mode: 'id', value: fromAi('knowledgeBaseId', 'The id of the knowledge base (from List Knowledge Bases)') },
				returnAll: true,
			},
			{ after: [], credentials: knowledgeCredential },
		),
		node(
			TOOLS.post,
			`${PACKAGE}.workplaceBotTool`,
			1,
			{ resource: 'groupMessage', operation: 'sendText', groupId: project._id, topicId: project.topics.release._id, text: fromAi('text', 'The message to post') },
			{ after: [], credentials: botCredential },
		),
	]);
	const connections = wf.connections as unknown as Record<string, Record<string, Array<Array<{ node: string; type: string; index: number }>>>>;
	connections['OpenAI Chat Model'] = { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] };
	for (const tool of Object.values(TOOLS)) connections[tool] = { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] };
	return wf;
}

interface ToolSchema {
	type: 'function';
	function: { name: string; description?: string; parameters?: { properties?: Record<string, { description?: string }> } };
}

/** The tool results (role: tool messages) a request carried, in order. */
function toolResults(request: LlmRequestRecord): string[] {
	const messages = ((request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? []);
	return messages
		.filter((m) => m.role === 'tool')
		.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

const conversation: Scenario = {
	name: 'agent: AI Agent chains Knowledge tools, reads a 404, posts with the Bot tool',
	credentials: [openAiCredential, knowledgeCredential, botCredential],
	before(ctx) {
		llm(ctx).reset();
		llm(ctx).setScript(script);
	},
	workflow: () => agentWorkflow(),
	assert(result, ctx) {
		assert.equal(result.status, 'success', `run status (error: ${JSON.stringify(result.error)})`);
		const [answer] = result.json('AI Agent');
		assert.equal(answer.output, FINAL);

		const requests = llm(ctx).requests();
		assert.equal(requests.length, 5, 'chat completions requests: one per scripted turn');
		assert.ok(requests.every((r) => r.status === 200 && !r.exhausted));

		// Tool schemas: the three tools, every parameter the agent fills described.
		const tools = (requests[0].body as { tools?: ToolSchema[] }).tools ?? [];
		assert.equal(tools.length, 3, `tools offered: ${tools.map((t) => t.function.name).join(', ')}`);
		for (const tool of tools) {
			assert.ok(tool.function.description && tool.function.description.length > 20, `${tool.function.name} has a description`);
			for (const [key, property] of Object.entries(tool.function.parameters?.properties ?? {})) {
				assert.ok(property.description, `${tool.function.name}.${key} has a description`);
			}
		}
		const byName = (fragment: string) => tools.find((t) => t.function.name.toLowerCase().replace(/[^a-z0-9]/g, '').includes(fragment));
		assert.deepEqual(Object.keys(byName('listfiles')?.function.parameters?.properties ?? {}), ['knowledgeBaseId']);
		assert.deepEqual(Object.keys(byName('post')?.function.parameters?.properties ?? {}), ['text']);

		// For the closing note: how large each schema is, and what the model read for the 404.
		for (const tool of tools) console.log(`      tool ${tool.function.name}: schema ${JSON.stringify(tool).length} characters`);

		// What the model read back: the bases, the Handbook's files, the 404 as text, the post.
		const results = toolResults(requests[4]);
		assert.equal(results.length, 4, `tool results: ${JSON.stringify(results)}`);
		assert.match(results[0], /Employee Handbook/);
		assert.match(results[1], /remote-work-policy\.md/);
		assert.match(results[2], /not found|404/i, `the 404 reached the model: ${results[2]}`);
		assert.doesNotMatch(results[2], /remote-work-policy/);
		console.log(`      the model read for the 404: ${results[2]}`);
		console.log(`      tool results: ${results.map((r) => r.length).join(', ')} characters`);

		// The platform: exactly these calls, the post carrying the model's text.
		const platform = ctx.sim.log.all().filter((r) => r.interface !== 'llm' && !r.path.startsWith('/oauth/'));
		assert.deepEqual(
			platform.map((r) => `${r.method} ${r.path} ${r.status}`),
			[
				'GET /api/v1/knowledge 200',
				`GET /api/v1/knowledge/${HANDBOOK}/files 200`,
				`GET /api/v1/knowledge/${UNKNOWN_KB}/files 404`,
				'POST /bot/v1/group/message 201',
			],
		);
		assert.deepEqual(platform[3].body, { gid: project._id, tid: project.topics.release._id, message: { type: 'text', data: SUMMARY } });
	},
};

export const scenarios: Scenario[] = [conversation];
