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
import { byId, chain, credentialId, manualTrigger, node, PACKAGE, type NodeSpec } from '../workflow';
import { knowledgeCredential } from '../workplace';

const openAiCredential: ScenarioCredential = {
	id: credentialId('openAiApi/simulator'),
	name: 'OpenAI (scripted simulator)',
	type: 'openAiApi',
	data: ({ sim }) => ({ apiKey: 'sk-simulator', url: `${sim.url}/v1` }),
};

/**
 * A bot credential of its own: n8n saves the token it fetches into the credential, and the bot
 * scenario (run after this one) checks that its run fetches one.
 */
const botCredential: ScenarioCredential = {
	id: credentialId('workplaceBotOAuth2Api/simulator-agent'),
	name: 'Workplace Bot (simulator, agent)',
	type: 'workplaceBotOAuth2Api',
	data: ({ sim }) => ({ baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret: sim.credentials.botClientSecret }),
};

const taskCredential: ScenarioCredential = {
	id: credentialId('workplaceTaskApi/simulator'),
	name: 'Workplace Task (simulator)',
	type: 'workplaceTaskApi',
	data: ({ sim }) => ({ baseUrl: sim.url, token: sim.credentials.taskJwt }),
};

const formCredential: ScenarioCredential = {
	id: credentialId('workplaceFormApi/simulator'),
	name: 'Workplace Form (simulator)',
	type: 'workplaceFormApi',
	data: ({ sim }) => ({ baseUrl: sim.url, apiKey: sim.credentials.formApiKey, token: sim.credentials.formApiToken }),
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

/** Manual Trigger → AI Agent (prompt) with the scripted OpenAI Chat Model and these tool nodes. */
function agentWorkflow(prompt: string, tools: NodeSpec[]): WorkflowJson {
	const wf = chain([
		manualTrigger(),
		node('AI Agent', '@n8n/n8n-nodes-langchain.agent', 3, { promptType: 'define', text: prompt, options: {} }),
		node(
			'OpenAI Chat Model',
			'@n8n/n8n-nodes-langchain.lmChatOpenAi',
			1.2,
			{ model: { __rl: true, mode: 'list', value: 'gpt-4o-mini' }, options: {} },
			{ after: [], credentials: openAiCredential },
		),
		...tools.map((tool) => ({ ...tool, after: [] })),
	]);
	const connections = wf.connections as unknown as Record<string, Record<string, Array<Array<{ node: string; type: string; index: number }>>>>;
	connections['OpenAI Chat Model'] = { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] };
	for (const tool of tools) connections[tool.name] = { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] };
	return wf;
}

const knowledgeTools = (): NodeSpec[] => [
	node(TOOLS.listBases, `${PACKAGE}.workplaceKnowledgeTool`, 1, { resource: 'knowledgeBase', operation: 'getAll', returnAll: true }, { credentials: knowledgeCredential }),
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
		{ credentials: knowledgeCredential },
	),
	node(
		TOOLS.post,
		`${PACKAGE}.workplaceBotTool`,
		1,
		{ resource: 'groupMessage', operation: 'sendText', groupId: project._id, topicId: project.topics.release._id, text: fromAi('text', 'The message to post') },
		{ credentials: botCredential },
	),
];

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
	workflow: () =>
		agentWorkflow(
			`Find the knowledge base named Handbook, list its files, also try the knowledge base ${UNKNOWN_KB}, then post a one-line summary to the Release planning topic.`,
			knowledgeTools(),
		),
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
		// Simplify Output (default: when called by an agent): the files without their digests and metadata.
		assert.doesNotMatch(results[1], /sha256|metadata/);
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

/** Second conversation: buttons to the team (first with a label too long), a task for bob, a form for alice. */
const TOOLS2 = {
	ask: 'Ask the Team With Buttons',
	task: 'Create a Task',
	form: 'Request Approval With a Form',
};
const QUESTION = 'Ship version 2.3 on Friday?';
const TOO_LONG = 'Ship it on Friday now'; // 21 characters: the platform allows 20
const TASK_TITLE = 'Write the 2.3 release notes';
const DUE = '2026-11-27T17:00:00+01:00'; // Friday 17:00 in Berlin
const FINAL2 = 'Asked the team, filed the task for Bob and sent Alice the approval form.';

const script2: LlmTurn[] = [
	{ toolCalls: [{ name: TOOLS2.ask, arguments: { question: QUESTION, firstOption: TOO_LONG, secondOption: 'Wait a week' } }] },
	{ toolCalls: [{ name: TOOLS2.ask, arguments: { question: QUESTION, firstOption: 'Ship on Friday', secondOption: 'Wait a week' } }] },
	{
		toolCalls: [
			{
				name: TOOLS2.task,
				arguments: { title: TASK_TITLE, assigneeId: SEED.users.bob._id, dueDate: DUE, firstStep: 'Collect the changes', secondStep: 'Publish the notes' },
			},
		],
	},
	{ toolCalls: [{ name: TOOLS2.form, arguments: { subject: 'Budget for the 2.3 launch party', receiverUserIds: 'alice' } }] },
	{ content: FINAL2 },
];

const actionTools = (): NodeSpec[] => [
	node(
		TOOLS2.ask,
		`${PACKAGE}.workplaceBotTool`,
		1,
		{
			resource: 'message',
			operation: 'push',
			groupId: project._id,
			threadId: byId(project.topics.release._id),
			defineMessages: 'fields',
			messages: {
				message: [
					{
						type: 'template',
						templateType: 'buttons',
						altText: 'A question from the release agent',
						templateText: fromAi('question', 'The question to ask, at most 160 characters'),
						actions: {
							action: [
								{ type: 'postback', label: fromAi('firstOption', 'Label of the first button, at most 20 characters'), data: 'choice=first' },
								{ type: 'postback', label: fromAi('secondOption', 'Label of the second button, at most 20 characters'), data: 'choice=second' },
							],
						},
					},
				],
			},
		},
		{ credentials: botCredential },
	),
	node(
		TOOLS2.task,
		`${PACKAGE}.workplaceTaskTool`,
		1,
		{
			resource: 'task',
			operation: 'create',
			taskTitle: fromAi('title', 'Title of the task'),
			additionalFields: {
				assigneeId: fromAi('assigneeId', 'User id of the person who does the task'),
				dueDate: fromAi('dueDate', 'When the task is due: ISO 8601 date and time with its UTC offset'),
				checklist: {
					item: [
						{ description: fromAi('firstStep', 'First checklist step'), isDone: false },
						{ description: fromAi('secondStep', 'Second checklist step'), isDone: false },
					],
				},
			},
		},
		{ credentials: taskCredential },
	),
	node(
		TOOLS2.form,
		`${PACKAGE}.workplaceFormTool`,
		1,
		{
			resource: 'form',
			operation: 'create',
			name: 'Launch budget approval',
			subject: fromAi('subject', 'What is to be approved'),
			senderUserId: 'bob',
			receiverUserIds: fromAi('receiverUserIds', 'Comma-separated user ids of the approvers'),
			status: 'published',
			formFields: {
				field: [
					{ type: 'textinput', name: 'Amount', value: '300 EUR', editable: false },
					{
						type: 'action',
						name: 'Decision',
						actionOptions: {
							option: [
								{ label: 'Approve', type: 'approved', value: 'yes', color: '#16A34A' },
								{ label: 'Reject', type: 'rejected', value: 'no', color: '#DC2626' },
							],
						},
					},
				],
			},
		},
		{ credentials: formCredential },
	),
];

const actions: Scenario = {
	name: 'agent: AI Agent reads a too-long button label, then asks with buttons, files a task and sends a form',
	credentials: [openAiCredential, botCredential, taskCredential, formCredential],
	before(ctx) {
		llm(ctx).reset();
		llm(ctx).setScript(script2);
	},
	workflow: () =>
		agentWorkflow(
			`Ask the Release planning topic with two buttons whether to ship 2.3 on Friday, create a task for bob (${SEED.users.bob._id}) due Friday 17:00 Berlin time with a checklist, and ask alice to approve the launch budget with a form.`,
			actionTools(),
		),
	assert(result, ctx) {
		assert.equal(result.status, 'success', `run status (error: ${JSON.stringify(result.error)})`);
		assert.equal(result.json('AI Agent')[0].output, FINAL2);
		const requests = llm(ctx).requests();
		assert.equal(requests.length, 5);

		const tools = (requests[0].body as { tools?: ToolSchema[] }).tools ?? [];
		assert.equal(tools.length, 3);
		for (const tool of tools) {
			console.log(`      tool ${tool.function.name}: schema ${JSON.stringify(tool).length} characters`);
			for (const [key, property] of Object.entries(tool.function.parameters?.properties ?? {})) {
				assert.ok(property.description, `${tool.function.name}.${key} has a description`);
			}
		}

		// The too-long label came back to the model naming the field, the rule and the value; nothing was sent.
		const results = toolResults(requests[4]);
		assert.equal(results.length, 4, `tool results: ${JSON.stringify(results)}`);
		console.log(`      the model read for the 21-character label: ${results[0]}`);
		// The field as the UI names it, its place in words (the tool result is JSON text: quotes escaped).
		assert.ok(results[0].includes('Messages > Template > Actions > Label\\" (message 1 of 1, action 1 of 2) must be at most 20'), results[0]);
		assert.match(results[0], /20/);
		assert.ok(results[0].includes(TOO_LONG), 'the actual value is named');

		const platform = ctx.sim.log.all().filter((r) => r.interface !== 'llm' && !r.path.startsWith('/oauth/'));
		console.log(`      platform: ${platform.map((r) => `${r.method} ${r.path} ${r.status}`).join(', ')}`);
		const pushes = platform.filter((r) => r.method === 'POST' && r.path.startsWith('/bot/'));
		assert.equal(pushes.length, 1, 'one push: the refused call never reached the platform');
		const template = (pushes[0].body as { messages: Array<{ template: { text: string; actions: Array<{ label: string; data: string }> } }> }).messages[0].template;
		assert.equal(template.text, QUESTION);
		assert.deepEqual(template.actions.map((a) => [a.label, a.data]), [['Ship on Friday', 'choice=first'], ['Wait a week', 'choice=second']]);

		const tasks = platform.filter((r) => r.method === 'POST' && r.path === '/api/v1/task-projects/tasks');
		assert.equal(tasks.length, 1);
		const task = tasks[0].body as Record<string, unknown>;
		assert.deepEqual(task, {
			taskTitle: TASK_TITLE,
			dueDate: '2026-11-27T16:00:00Z', // the model's Berlin time, in UTC
			assigneeId: SEED.users.bob._id,
			checklist: [
				{ description: 'Collect the changes', isDone: false },
				{ description: 'Publish the notes', isDone: false },
			],
		});

		const forms = platform.filter((r) => r.method === 'POST' && r.path.includes('form'));
		assert.equal(forms.length, 1);
		const form = forms[0].body as Record<string, unknown>;
		assert.equal(form.subject, 'Budget for the 2.3 launch party');
		assert.deepEqual(form.receiverUserIds, ['alice']);
	},
};

export const scenarios: Scenario[] = [conversation, actions];
