/**
 * Workflows of a Workplace Trigger and a Workplace Bot replying to its events, run by n8n-core's
 * engine as n8n runs a delivery's run: the trigger on the execution stack with the items its
 * webhook() returned (from a real delivery through the TriggerBed), then the Bot.
 */
import 'reflect-metadata';

import type { IDataObject, INode, INodeExecutionData, INodeParameters, IRun } from 'n8n-workflow';
import { Workflow, createRunExecutionData, deepCopy } from 'n8n-workflow';
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import { randomUUID } from 'node:crypto';

import type { LoggedRequest, Simulator } from '../../simulator';
import { workflowBaseOf } from '../helpers/engine';
import { createAdditionalData } from '../helpers/engine-additional-data';
import { CredentialStore, EngineCredentialsHelper, credentialIdFor } from '../helpers/engine-credentials';
import { START_NODE_TYPE, engineTypes, registerToolVariant } from '../helpers/engine-types';
import { TriggerBed, TRIGGER_TYPE } from '../trigger/trigger-bed';
import { botCredentials } from './bot.fixtures';

const BOT_TYPE = 'n8n-nodes-workplace.workplaceBot';
export const TRIGGER_NAME = 'Workplace Trigger';
export const BOT_NAME = 'Reply';

/** The items the Workplace Trigger outputs for one delivery of these events (its run started). */
export async function triggerItems(events: object[]): Promise<IDataObject[]> {
	await TriggerBed.init();
	const bed = new TriggerBed({ parameters: { verification: 'none', events: ['*'] } });
	const outcome = await bed.deliver({ rawBody: JSON.stringify({ events }), headers: { 'content-type': 'application/json' } });
	if (!outcome.runStarted) throw new Error(`no run started: ${JSON.stringify(outcome.body)}`);
	return outcome.items.map((item) => item.json);
}

export interface ReplyRunOptions {
	continueOnFail?: boolean;
	/** Run the Bot as its "<node> Tool" variant (the type an AI agent's tool runs as). */
	asTool?: boolean;
	/** No Workplace Trigger in the workflow: the items come from a plain start node. */
	withoutTrigger?: boolean;
}

export interface ReplyRun {
	items: INodeExecutionData[];
	error?: { message: string; description?: string | null; context?: IDataObject };
	requests: LoggedRequest[];
	run: IRun;
}

/** Runs Workplace Trigger (its items: `events`) → Workplace Bot (`parameters`). */
export async function runReply(sim: Simulator, events: IDataObject[], parameters: INodeParameters, options: ReplyRunOptions = {}): Promise<ReplyRun> {
	await TriggerBed.init();
	const store = new CredentialStore(botCredentials(sim));
	const credentialsHelper = new EngineCredentialsHelper(engineTypes.credentialTypes, store);
	const start: INode = options.withoutTrigger
		? { id: randomUUID(), name: 'Manual Trigger', type: START_NODE_TYPE, typeVersion: 1, position: [0, 0], parameters: { items: JSON.stringify(events.map((json) => ({ json }))) } }
		: { id: randomUUID(), name: TRIGGER_NAME, type: TRIGGER_TYPE, typeVersion: 1.1, position: [0, 0], parameters: { verification: 'none', events: ['*'] }, webhookId: randomUUID() };
	const botType = options.asTool ? await registerToolVariant('workplaceBot') : BOT_TYPE;
	const bot: INode = {
		id: randomUUID(),
		name: BOT_NAME,
		type: botType,
		typeVersion: 1,
		position: [200, 0],
		parameters: deepCopy(parameters),
		credentials: { workplaceBotOAuth2Api: { id: credentialIdFor('workplaceBotOAuth2Api'), name: 'bot' } },
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};
	const workflow = new Workflow({
		id: `wf-${randomUUID()}`,
		name: 'reply test',
		nodes: [start, bot],
		connections: { [start.name]: { main: [[{ node: BOT_NAME, type: 'main', index: 0 }]] } },
		active: false,
		nodeTypes: engineTypes.nodeTypes,
		settings: { executionOrder: 'v1' },
	});
	sim.log.clear();
	const executionId = randomUUID();
	const hooks = new ExecutionLifecycleHooks('webhook', executionId, workflowBaseOf(workflow));
	const additionalData = createAdditionalData({ credentialsHelper, executionId, hooks });
	let run: IRun;
	if (options.withoutTrigger) {
		run = await new WorkflowExecute(additionalData, 'manual').run(workflow, workflow.getNode(start.name)!);
	} else {
		const data = createRunExecutionData({
			executionData: { nodeExecutionStack: [{ node: workflow.getNode(start.name)!, data: { main: [events.map((json) => ({ json }))] }, source: null }] },
		});
		run = await new WorkflowExecute(additionalData, 'webhook', data).processRunExecutionData(workflow);
	}
	const task = run.data.resultData.runData[BOT_NAME]?.[0];
	const error = (task?.error ?? run.data.resultData.error) as ReplyRun['error'];
	return {
		items: task?.data?.main?.[0] ?? [],
		error,
		requests: sim.log.all().filter((r) => r.interface === 'bot'),
		run,
	};
}

/** A request's method, path and body. */
export function sent(request: LoggedRequest): [string, string, unknown] {
	return [request.method, request.path, request.body];
}
