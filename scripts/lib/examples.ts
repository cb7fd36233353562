/**
 * The example workflows (examples/*.json) and the six simulator credentials they reference (five Workplace ones and an OpenAI one for the scripted chat model),
 * shared by the dev script (scripts/dev.ts) and the e2e scenario that runs every example
 * (test/e2e/scenarios/examples.ts).
 *
 * The credential ids and names below are the ones the example files reference; `npm run dev`
 * imports the credentials with them, so the examples open with their credentials selected.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { SimulatorCredentials } from '../../simulator/types';
import type { WorkflowJson, WorkflowNode } from '../../test/e2e/types';
import { importCredentials, importWorkflows, n8nEnv, repoRoot, type N8nInstall, type N8nServer } from './n8n';

/** What the credentials need from a running simulator (build/simulator startSimulator()). */
export interface SimulatorInfo {
	url: string;
	knowledgeUrl: string;
	credentials: SimulatorCredentials & { [name: string]: string };
}

export interface ExampleCredential {
	id: string;
	name: string;
	type: string;
	data(sim: SimulatorInfo): Record<string, unknown>;
}

/**
 * Ids are those of test/e2e (credentialId('<type>/simulator')), so an e2e run that imports both the
 * scenarios' and the examples' credentials holds each credential once.
 */
export const EXAMPLE_CREDENTIALS: ExampleCredential[] = [
	{
		id: 'cred32f1e0907608',
		name: 'Workplace Knowledge (simulator)',
		type: 'workplaceKnowledgeApi',
		data: (sim) => ({ knowledgeUrl: sim.knowledgeUrl, apiKey: sim.credentials.knowledgeApiKey }),
	},
	{
		id: 'cred2de6d4e6994b',
		name: 'Workplace Bot (simulator)',
		type: 'workplaceBotOAuth2Api',
		data: (sim) => ({ baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret: sim.credentials.botClientSecret }),
	},
	{
		id: 'cred86f50d84c2f5',
		name: 'Workplace Form (simulator)',
		type: 'workplaceFormApi',
		data: (sim) => ({ baseUrl: sim.url, apiKey: sim.credentials.formApiKey, token: sim.credentials.formApiToken }),
	},
	{
		id: 'credad94025fb624',
		name: 'Workplace Task (simulator)',
		type: 'workplaceTaskApi',
		data: (sim) => ({ baseUrl: sim.url, token: sim.credentials.taskJwt }),
	},
	{
		id: 'cred086ab4c5744f',
		name: 'Workplace Webhook (simulator)',
		type: 'workplaceWebhookApi',
		data: (sim) => ({ secret: sim.credentials.webhookSecret }),
	},
	{
		// n8n's OpenAI credential pointed at the simulator's scripted chat model (POST /__sim/llm/script).
		id: 'cred1df7adb8f60d',
		name: 'OpenAI (scripted simulator)',
		type: 'openAiApi',
		data: (sim) => ({ apiKey: 'sk-simulator', url: `${sim.url}/v1` }),
	},
];

export interface ExampleWorkflow {
	/** File name in examples/, e.g. `bot-buttons-to-direct-chat.json`. */
	file: string;
	id: string;
	name: string;
	nodes: Array<WorkflowNode & { webhookId?: string }>;
	connections: WorkflowJson['connections'];
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

export function examplesDir(): string {
	return path.join(repoRoot(), 'examples');
}

/** Every examples/*.json, sorted by file name. */
export function loadExamples(): ExampleWorkflow[] {
	const dir = examplesDir();
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => ({ ...(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as ExampleWorkflow), file }));
}

export function loadExample(file: string): ExampleWorkflow {
	const found = loadExamples().find((e) => e.file === file);
	if (!found) throw new Error(`examples/${file} does not exist`);
	return found;
}

/** Workflows started by a Workplace Trigger: they run once activated, when a delivery arrives. */
export function isTriggerStarted(example: ExampleWorkflow): boolean {
	return example.nodes.some((n) => n.type.endsWith('.workplaceTrigger'));
}

/** The n8n Webhook node that starts an example, if one does. */
function webhookNode(example: ExampleWorkflow) {
	return example.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
}

/** Workflows started by n8n's Webhook node: they run once activated, when their URL is called. */
export function isWebhookStarted(example: ExampleWorkflow): boolean {
	return webhookNode(example) !== undefined;
}

/** Workflows that run in a started n8n only (activated), not with `n8n execute`. */
export function isServerStarted(example: ExampleWorkflow): boolean {
	return isTriggerStarted(example) || isWebhookStarted(example);
}

/** n8n 2.x's human review tools (`<node>HitlTool`, generated for every node with a Send and Wait operation). */
function isHumanReview(node: { type: string }): boolean {
	return node.type.endsWith('HitlTool');
}

/**
 * Examples with a human review tool: n8n 1.x has none, and refuses to activate them ("Unrecognized
 * node type: n8n-nodes-workplace.workplaceBotHitl").
 */
export function needsN8n2(example: ExampleWorkflow): boolean {
	return example.nodes.some(isHumanReview);
}

/**
 * The example as its docs tell n8n 1.x users to change it (docs/team-assistant.md): each human
 * review node deleted, with the tools it reviews (connected to it as `ai_tool`).
 */
export function withoutHumanReview(example: ExampleWorkflow): ExampleWorkflow {
	const reviews = new Set(example.nodes.filter(isHumanReview).map((n) => n.name));
	const connections = example.connections as unknown as Record<string, Record<string, Array<Array<{ node: string }>>>>;
	const reviewed = Object.entries(connections)
		.filter(([, outputs]) => (outputs.ai_tool ?? []).some((targets) => targets.some((t) => reviews.has(t.node))))
		.map(([name]) => name);
	const dropped = new Set([...reviews, ...reviewed]);
	const copy = structuredClone(example);
	copy.nodes = copy.nodes.filter((n) => !dropped.has(n.name));
	for (const name of dropped) delete (copy.connections as Record<string, unknown>)[name];
	return copy;
}

/** The example as `n8n import:workflow` takes it (without our `file` key, inactive). */
export function importable(example: ExampleWorkflow): Record<string, unknown> {
	const { file: _file, ...workflow } = example;
	void _file;
	return { ...workflow, active: false };
}

/**
 * Imports the six simulator credentials and every example into a user folder with n8n's CLI
 * (`import:credentials`, `import:workflow`; both replace entries with the same id). Run it while
 * no n8n server uses the folder. `adjust` may change an example before it is imported (the e2e
 * scenario shortens a delay that real time cannot wait); without it the files are imported as they are.
 */
export async function importExamples(
	inst: N8nInstall,
	userFolder: string,
	sim: SimulatorInfo,
	workDir: string,
	adjust: (example: ExampleWorkflow) => ExampleWorkflow = (example) => example,
): Promise<{ credentials: string[]; workflows: string[] }> {
	const env = n8nEnv(inst, { userFolder });
	const creds = EXAMPLE_CREDENTIALS.map((c) => ({ id: c.id, name: c.name, type: c.type, data: c.data(sim) }));
	await importCredentials(inst, env, creds, workDir);
	const examples = loadExamples().map(adjust);
	await importWorkflows(inst, env, examples.map(importable), workDir);
	return { credentials: creds.map((c) => c.name), workflows: examples.map((e) => e.name) };
}

/** Activates a saved workflow through n8n's REST API (1.x and 2.x): its production webhooks go live. */
export async function activateWorkflow(server: N8nServer, id: string): Promise<void> {
	const wf = await server.rest<{ versionId?: string; active?: boolean }>('GET', `/workflows/${id}`);
	if (wf.active) return;
	await server.rest('POST', `/workflows/${id}/activate`, { versionId: wf.versionId });
}

/** Production URL of an example's Webhook node: `<n8n>/webhook/<path>`. */
export function webhookNodeUrl(serverUrl: string, example: ExampleWorkflow): string {
	const hook = webhookNode(example);
	if (!hook) throw new Error(`${example.file} has no Webhook node`);
	return `${serverUrl.replace(/\/$/, '')}/webhook/${String(hook.parameters.path)}`;
}

/** Production URL of a Workplace Trigger: `<n8n>/webhook/<webhookId>/webhook`. */
export function triggerWebhookUrl(serverUrl: string, example: ExampleWorkflow): string {
	const trigger = example.nodes.find((n) => n.type.endsWith('.workplaceTrigger'));
	if (!trigger?.webhookId) throw new Error(`${example.file} has no Workplace Trigger with a webhookId`);
	return `${serverUrl.replace(/\/$/, '')}/webhook/${trigger.webhookId}/webhook`;
}
