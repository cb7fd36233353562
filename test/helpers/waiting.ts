/**
 * Waiting executions in the engine test bed: what n8n does after a node called
 * putExecutionToWait, modelled on n8n 1.123's waiting-webhooks.ts and webhook-helpers.ts (2.41
 * does the same for these steps) and on its WaitTracker.
 *
 * - `callWaitingWebhook(run, request)`: a request to the resume URL. The execution is read as
 *   n8n stores it (a JSON copy of the run's execution data), the node's webhook() runs with
 *   n8n-core's real WebhookContext (its execution id, signed URLs with the container's real
 *   HMAC secret) on the execution as n8n hands it over: the waiting node disabled and its waiting
 *   run (the node's output while it waits) already dropped, so the webhook sees the stack's input
 *   item only. When it returns workflowData the execution resumes as n8n does it: the stack's
 *   input replaced by the workflowData, then WorkflowExecute.processRunExecutionData.
 * - `resumeAfterTimeout(run)`: the wait time ran out; n8n runs the stored execution again and
 *   WorkflowExecute's handleWaitingState passes the waiting node's stack input through.
 *
 * Not modelled: n8n's own signature check and its pages for executions that are running or
 * finished (the node's webhook is not called then).
 */
import 'reflect-metadata';
import './engine-env';

import { ExecutionLifecycleHooks, WebhookContext, WorkflowExecute } from 'n8n-core';
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	IRun,
	IRunExecutionData,
	IWebhookData,
	IWebhookResponseData,
} from 'n8n-workflow';

import type { RunNodeResult } from './engine';
import { workflowBaseOf } from './engine';
import { createAdditionalData } from './engine-additional-data';
import { EngineCredentialsHelper } from './engine-credentials';
import { engineTypes } from './engine-types';
import { FakeResponse } from './fake-response';

export interface WaitingRequest {
	method: 'GET' | 'POST';
	/** A resume URL (its query is used) or the query itself. */
	url: string;
	headers?: Record<string, string>;
	/** Parsed body, as n8n's body parser gives a form-urlencoded or JSON body. */
	body?: IDataObject;
	/** Execution id of the request path (default: the run's). */
	executionId?: string;
	/** The stored execution to use (default: the waiting run's), e.g. to send two requests to one state. */
	stored?: IRunExecutionData;
}

export interface WaitingOutcome {
	status: number;
	headers: Record<string, string>;
	/** The page (or body) the browser got. */
	body: string;
	/** What webhook() returned. */
	result: IWebhookResponseData;
	/** Whether the execution resumed. */
	resumed: boolean;
	/** Output 0 of the node after the resume. */
	items: INodeExecutionData[];
	run?: IRun;
}

/** The execution as n8n stores it while it waits (a JSON round trip, like the database). */
export function storedExecution(run: RunNodeResult): IRunExecutionData {
	if (!run.run) throw new Error('the run did not finish');
	if (!run.run.data.waitTill) throw new Error('the execution is not waiting');
	return JSON.parse(JSON.stringify(run.run.data)) as IRunExecutionData;
}

function additionalDataFor(run: RunNodeResult, executionId: string, withHooks = false) {
	const credentialsHelper = new EngineCredentialsHelper(engineTypes.credentialTypes, run.credentialStore);
	if (!withHooks) return createAdditionalData({ credentialsHelper, executionId });
	const hooks = new ExecutionLifecycleHooks('manual', executionId, workflowBaseOf(run.workflow));
	return createAdditionalData({ credentialsHelper, executionId, hooks });
}

function nodeOutput(run: IRun, nodeName: string): INodeExecutionData[] {
	const tasks = run.data.resultData.runData[nodeName] ?? [];
	return tasks[tasks.length - 1]?.data?.main?.[0] ?? [];
}

async function continueExecution(run: RunNodeResult, data: IRunExecutionData): Promise<IRun> {
	const workflowExecute = new WorkflowExecute(additionalDataFor(run, run.executionId, true), 'manual', data);
	return await workflowExecute.processRunExecutionData(run.workflow);
}

/** A request to the waiting node's resume URL, and what n8n does with the answer. */
export async function callWaitingWebhook(run: RunNodeResult, request: WaitingRequest): Promise<WaitingOutcome> {
	const data = request.stored ?? storedExecution(run);
	const node = run.workflow.getNode(run.nodeName)!;
	const nodeType = engineTypes.nodeTypes.getByNameAndVersion(node.type, node.typeVersion) as INodeType;
	const executionId = request.executionId ?? run.executionId;
	const url = new URL(request.url, 'http://localhost:5678/');
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
	const req = {
		method: request.method,
		url: `/webhook-waiting/${executionId}/${node.id}${url.search}`,
		headers,
		query: Object.fromEntries(url.searchParams.entries()),
		body: request.body ?? {},
		params: {},
	};
	const res = new FakeResponse();
	const additionalData = additionalDataFor(run, executionId);
	additionalData.httpRequest = req as never;
	additionalData.httpResponse = res as never;
	const description = nodeType.description.webhooks?.find((w) => w.httpMethod === request.method);
	if (!description) throw new Error(`the node declares no ${request.method} webhook`);
	const webhookData: IWebhookData = {
		httpMethod: request.method,
		node: node.name,
		path: node.id,
		webhookDescription: description,
		workflowId: String(run.workflow.id),
		workflowExecuteAdditionalData: additionalData,
	};
	// n8n (1.123 and 2.41) disables the waiting node, forgets waitTill and drops the node's waiting
	// run before the webhook runs: the webhook sees the stack's input, not the node's waiting output.
	const seen = JSON.parse(JSON.stringify(data)) as IRunExecutionData;
	seen.executionData!.nodeExecutionStack[0].node.disabled = true;
	seen.waitTill = undefined;
	seen.resultData.runData[run.nodeName].pop();
	const context = new WebhookContext(run.workflow, node, additionalData, 'manual', webhookData, [], seen);
	const result = await nodeType.webhook!.call(context);
	const outcome: WaitingOutcome = {
		status: res.statusCode,
		headers: res.headers,
		body: res.body,
		result,
		resumed: false,
		items: [],
	};
	if (result.workflowData === undefined) return outcome;

	// n8n: hand the disabled node the answer and go on.
	const resumed = seen;
	resumed.executionData!.nodeExecutionStack[0].data.main = result.workflowData;
	const finished = await continueExecution(run, resumed);
	return { ...outcome, resumed: true, run: finished, items: nodeOutput(finished, run.nodeName) };
}

/** The wait time ran out: n8n runs the stored execution again (WaitTracker). */
export async function resumeAfterTimeout(run: RunNodeResult): Promise<{ run: IRun; items: INodeExecutionData[] }> {
	const finished = await continueExecution(run, storedExecution(run));
	return { run: finished, items: nodeOutput(finished, run.nodeName) };
}
