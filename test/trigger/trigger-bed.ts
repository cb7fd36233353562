/**
 * Calls the Workplace Trigger's webhook() the way n8n does for a delivery: with n8n-core's
 * real WebhookContext (credentials through a real credentials helper, request helpers,
 * binary data helpers, node static data) and an express-like request/response pair.
 *
 * Production deliveries are modelled like n8n's LiveWebhooks: every request builds a new
 * Workflow from the stored workflow (its static data parsed afresh), runs the node's
 * webhook(), and saves the static data when n8n's "changed" flag is set. Two deliveries
 * started with Promise.all therefore read the same stored static data, as two simultaneous
 * requests do in n8n.
 *
 * What n8n does with the result is modelled per major (`n8nFlow`, webhook-helpers.ts and
 * live-webhooks.ts of n8n 1.123 and 2.41):
 * - `noWebhookResponse`: the answer is the node's; n8n saves the static data, then starts the run.
 *   The run is started here as n8n does it (WorkflowExecute with the trigger and its items on the
 *   stack), so the node's execute() runs and the answer it holds until then is sent; a delivery
 *   resolves once it was answered (`runs: false` in the options starts no run, as in queue mode,
 *   where runs start on workers).
 * - otherwise (responseMode onReceived): n8n 1 saves and answers 200, then starts the run; n8n 2
 *   starts the run first and then saves and answers. Starting a run builds another Workflow on
 *   the same static data object, which resets the flag (ObservableObject.create), so on n8n 2 a
 *   change made in webhook() is not saved on this path.
 * - a thrown error: 500, nothing saved (n8n records a failed execution).
 */
import 'reflect-metadata';
import '../helpers/engine-env';

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { ExecutionLifecycleHooks, HookContext, WebhookContext, WorkflowExecute } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IRun,
	IWebhookData,
	IWebhookResponseData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Expression, Workflow, createRunExecutionData, deepCopy } from 'n8n-workflow';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';

import { remindersFieldOf, votesFieldOf } from '../../nodes/WorkplaceTrigger/approvals/questionStore';
import { workflowBaseOf } from '../helpers/engine';
import { createAdditionalData } from '../helpers/engine-additional-data';
import { initEngineContainer, useBinaryDataMode } from '../helpers/engine-container';
import { CredentialStore, EngineCredentialsHelper, credentialIdFor } from '../helpers/engine-credentials';
import { engineTypes, findPackageRoot, loadPackageNodeTypes } from '../helpers/engine-types';

export const TRIGGER_TYPE = 'n8n-nodes-workplace.workplaceTrigger';

export interface DeliveryRequest {
	/** Exact bytes of the body (a string is taken as utf8). */
	rawBody: Buffer | string;
	/** Request headers (names are lower-cased like node's http parser does). */
	headers?: Record<string, string>;
	/** 'webhook' (production URL, default) or 'manual' (test URL). */
	mode?: WorkflowExecuteMode;
	/**
	 * Who reads the body's bytes: n8n, before webhook() (`byN8n`, default: its body parser sets
	 * `req.rawBody`); nobody yet, the request offers n8n's `readRawBody()` (`onRequest`, which sets
	 * `req.rawBody`); or neither (`never`: no rawBody, no readRawBody).
	 */
	rawBodyRead?: 'byN8n' | 'onRequest' | 'never';
	/** Called with the run n8n started (a PCancelable: `cancel()` is n8n's Stop). */
	onRun?: (run: ReturnType<WorkflowExecute['processRunExecutionData']>) => void;
}

export interface DeliveryOutcome {
	/** HTTP status the sender received. */
	status: number;
	/** Body the sender received (parsed JSON when it is JSON). */
	body: unknown;
	/** Content-Type of the answer (when the node answered itself). */
	contentType?: string;
	/** Whether n8n would start a run (webhook() returned workflowData). */
	runStarted: boolean;
	/** Items of the run that starts (output 0). */
	items: INodeExecutionData[];
	/** The run n8n started with them (when runs start in this process). */
	run?: IRun;
	/** Response headers the node set (e.g. Retry-After). */
	headers?: Record<string, string>;
	/** When the sender got the answer (Date.now()). */
	answeredAt?: number;
	/** Whether the answer had been sent when webhook() returned, before n8n started the run. */
	answeredAtReturn?: boolean;
	/** 'webhook' (production) or 'manual'. */
	mode?: WorkflowExecuteMode;
	/** Whether runs cost an isolate in the n8n modelled (see TriggerBedOptions.isolates). */
	isolates?: boolean;
	/** What webhook() returned (undefined when it threw). */
	result?: IWebhookResponseData;
	/** The error webhook() threw. */
	error?: Error;
}

class FakeResponse {
	statusCode = 200;

	headersSent = false;

	body: unknown;

	headers: Record<string, string> = {};

	private answeredNow: () => void = () => {};

	/** When the answer was sent (Date.now()). */
	answeredAt?: number;

	/** Resolves when the answer was sent (json, send or end). */
	readonly answered = new Promise<void>((resolve) => {
		this.answeredNow = () => {
			this.answeredAt ??= Date.now();
			resolve();
		};
	});

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	// The content types express sets (res.json always; res.send for a string when none is set).
	json(body: unknown): this {
		this.headers['content-type'] = 'application/json; charset=utf-8';
		this.body = body;
		this.headersSent = true;
		this.answeredNow();
		return this;
	}

	send(body: unknown): this {
		if (typeof body === 'string') this.headers['content-type'] ??= 'text/html; charset=utf-8';
		this.body = body;
		this.headersSent = true;
		this.answeredNow();
		return this;
	}

	end(): this {
		this.headersSent = true;
		this.answeredNow();
		return this;
	}

	setHeader(name: string, value: string): this {
		this.headers[name.toLowerCase()] = value;
		return this;
	}
}

export interface TriggerBedOptions {
	parameters: IDataObject;
	/** Credential type -> data (e.g. { workplaceWebhookApi: { secret } }). */
	credentials?: Record<string, IDataObject>;
	/** Stable workflow id (default: a fresh one per bed, so process-wide state is separate). */
	workflowId?: string;
	/** Stored static data to start from. */
	staticData?: IDataObject;
	/** The same trigger after an n8n restart: its webhook ID and stored static data (the saved workflow), none of its process memory. */
	restartOf?: TriggerBed;
	nodeId?: string;
	/** The trigger node's name (default "Workplace Trigger"). */
	name?: string;
	/** Which n8n major's webhook flow to model (default 2). */
	n8nFlow?: 1 | 2;
	/** Whether runs start in this process (default true; false models queue mode, where workers run them). */
	runs?: boolean;
	/**
	 * Whether n8n gives each run an expression isolate (n8n 2's default engine, modelled by setting
	 * n8n-workflow's `Expression.vmEvaluator`); default: with the n8n 2 flow.
	 */
	isolates?: boolean;
	/** A node type the trigger's output goes to in the workflow's runs (e.g. a test node standing for an AI agent); none by default. */
	next?: string;
}

/** Models n8n 2's default expression engine (a pool of isolates) in n8n-workflow, or its absence (n8n 1, legacy engine). */
export function modelIsolateEngine(on: boolean): void {
	const expression = Expression as unknown as { vmEvaluator?: unknown };
	if (on) expression.vmEvaluator = { modelledByTheTriggerBed: true };
	else delete expression.vmEvaluator;
}

/** One saved workflow holding a Workplace Trigger, receiving deliveries. */
/** A line the node wrote to n8n's log through its context's `logger`. */
export interface LogLine {
	level: 'error' | 'warn' | 'info' | 'debug';
	message: string;
	metadata?: unknown;
}

export class TriggerBed {
	/** The lines the node logged during this bed's deliveries, in order. */
	readonly logs: LogLine[] = [];

	readonly workflowId: string;

	readonly nodeId: string;

	/** The workflow's static data as n8n keeps it in its database (undefined: none saved yet, NULL). */
	storedStaticData: IDataObject | undefined;

	/** How many deliveries changed the static data (each is a database write in n8n). */
	staticDataSaves = 0;

	readonly credentialStore: CredentialStore;

	private readonly node: INode;

	private readonly n8nFlow: 1 | 2;

	private readonly runs: boolean;

	private readonly isolates: boolean;

	private readonly next?: INode;

	constructor(options: TriggerBedOptions) {
		this.n8nFlow = options.n8nFlow ?? 2;
		this.runs = options.runs ?? true;
		this.isolates = options.isolates ?? this.n8nFlow === 2;
		this.workflowId = options.workflowId ?? `wf-${randomUUID()}`;
		this.nodeId = options.nodeId ?? randomUUID();
		const staticData = options.restartOf?.storedStaticData ?? options.staticData;
		this.storedStaticData = staticData === undefined ? undefined : deepCopy(staticData);
		this.credentialStore = new CredentialStore(options.credentials ?? {});
		this.node = {
			id: this.nodeId,
			name: options.name ?? 'Workplace Trigger',
			type: TRIGGER_TYPE,
			typeVersion: 1.1,
			position: [0, 0],
			parameters: deepCopy(options.parameters) as INode['parameters'],
			webhookId: options.restartOf?.node.webhookId ?? randomUUID(),
		};
		if (options.next) {
			this.next = { id: randomUUID(), name: 'Next', type: options.next, typeVersion: 1, position: [200, 0], parameters: {} };
		}
		const types = this.credentialStore.types();
		if (types.length) {
			this.node.credentials = Object.fromEntries(
				// An id of its own: the trigger holds a secret per credential id, and one held for an
				// earlier bed must not be reused.
				types.map((type) => [type, { id: `${credentialIdFor(type)}-${this.nodeId}`, name: `${type} (trigger test)` }]),
			);
		}
	}

	/** n8n's Logger (silent unless a test turns it up), as a node context hands it out, recording the node's lines in `logs`. */
	private recordingLogger(): Logger {
		const logger = Container.get(Logger);
		const recording = Object.create(logger) as Logger;
		for (const level of ['error', 'warn', 'info', 'debug'] as const) {
			recording[level] = (message: string, metadata?: Parameters<Logger['info']>[1]) => {
				this.logs.push({ level, message, metadata });
				logger[level](message, metadata);
			};
		}
		return recording;
	}

	static async init(): Promise<void> {
		await initEngineContainer();
		const pkg = await loadPackageNodeTypes();
		if (!pkg.loaded) throw new Error(`package not loaded: ${pkg.skippedReason}`);
		await useBinaryDataMode('filesystem');
	}

	nodeType(): INodeType {
		return engineTypes.nodeTypes.getByNameAndVersion(TRIGGER_TYPE, this.node.typeVersion) as INodeType;
	}

	/** Static data of the trigger node as stored (what getWorkflowStaticData('node') starts from). */
	nodeStaticData(): IDataObject {
		return ((this.storedStaticData ?? {})[`node:${this.node.name}`] ?? {}) as IDataObject;
	}

	/** The trigger's in-chat questions as stored (global static data, under its webhook ID): votes or reminders, request -> record. */
	questionsStored(records: 'votes' | 'reminders'): Record<string, IDataObject> {
		const global = ((this.storedStaticData ?? {}).global ?? {}) as IDataObject;
		const key = this.node.webhookId ?? this.node.name;
		return (global[records === 'votes' ? votesFieldOf(key) : remindersFieldOf(key)] ?? {}) as Record<string, IDataObject>;
	}

	/**
	 * What n8n does when it registers the trigger's URL (activating or publishing the workflow:
	 * 'activate'; listening for a test event: 'manual'): WebhookService.createWebhookIfNotExists,
	 * checkExists and, when that answers false, create, under n8n-core's HookContext. Resolves
	 * with the error that refuses the registration, if any. What the node logs goes to `logs`.
	 * Its waiting route, checked on activation, is n8n's default under ENGINE_INSTANCE_BASE_URL
	 * (http://localhost:5678/webhook-waiting) unless the node's Resume Base URL says otherwise.
	 */
	async registerWebhook(activation: 'activate' | 'manual' = 'activate'): Promise<Error | undefined> {
		const workflow = new Workflow({
			id: this.workflowId,
			name: 'trigger test',
			nodes: [deepCopy(this.node)],
			connections: {},
			active: activation !== 'manual',
			nodeTypes: engineTypes.nodeTypes,
			staticData: this.storedStaticData === undefined ? undefined : deepCopy(this.storedStaticData),
			settings: { executionOrder: 'v1' },
		});
		const node = workflow.getNode(this.node.name)!;
		const credentialsHelper = new EngineCredentialsHelper(engineTypes.credentialTypes, this.credentialStore);
		const additionalData = createAdditionalData({ credentialsHelper, executionId: randomUUID() });
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: `${this.node.webhookId}/webhook`,
			webhookDescription: this.nodeType().description.webhooks![0],
			workflowId: this.workflowId,
			workflowExecuteAdditionalData: additionalData,
			webhookId: this.node.webhookId,
		};
		const mode = activation === 'manual' ? 'manual' : 'trigger';
		const methods = this.nodeType().webhookMethods!.default!;
		const context = new HookContext(workflow, node, additionalData, mode, activation, webhookData);
		Object.defineProperty(context, 'logger', { value: this.recordingLogger() });
		try {
			if (!(await methods.checkExists.call(context))) await methods.create.call(context);
		} catch (error) {
			return error as Error;
		}
		// n8n's ActiveWorkflowManager saves the static data the registration changed (addWebhooks).
		const staticData = workflow.staticData as IDataObject;
		if (activation !== 'manual' && staticData.__dataChanged === true) {
			const copy = deepCopy(staticData);
			delete copy.__dataChanged;
			this.storedStaticData = copy;
		}
		return undefined;
	}

	async deliver(request: DeliveryRequest): Promise<DeliveryOutcome> {
		const mode = request.mode ?? 'webhook';
		// The object n8n parsed from its database: both Workflows below wrap this same object
		// (while none was saved, each Workflow makes its own empty one).
		const parsedStaticData = this.storedStaticData === undefined ? undefined : deepCopy(this.storedStaticData);
		const newWorkflow = () =>
			new Workflow({
				id: this.workflowId,
				name: 'trigger test',
				nodes: this.next ? [deepCopy(this.node), deepCopy(this.next)] : [deepCopy(this.node)],
				connections: this.next ? { [this.node.name]: { main: [[{ node: this.next.name, type: 'main', index: 0 }]] } } : {},
				active: mode !== 'manual',
				nodeTypes: engineTypes.nodeTypes,
				staticData: parsedStaticData,
				settings: { executionOrder: 'v1' },
			});
		const workflow = newWorkflow();
		const node = workflow.getNode(this.node.name)!;
		const rawBody = typeof request.rawBody === 'string' ? Buffer.from(request.rawBody, 'utf8') : request.rawBody;
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
		let parsed: unknown = {};
		if ((headers['content-type'] ?? '').startsWith('application/json')) {
			try {
				parsed = JSON.parse(rawBody.toString('utf8'));
			} catch {
				parsed = {};
			}
		}
		const req: Record<string, unknown> = {
			method: 'POST',
			url: `/webhook/${this.node.webhookId}/webhook`,
			headers,
			body: parsed,
			query: {},
			params: {},
			contentType: headers['content-type']?.split(';')[0],
		};
		const read = request.rawBodyRead ?? 'byN8n';
		if (read === 'byN8n') req.rawBody = rawBody;
		// n8n's rawBodyReader (packages/cli/src/middlewares/body-parser.ts): reads the stream once into req.rawBody.
		if (read === 'onRequest') req.readRawBody = async () => void (req.rawBody ??= rawBody);
		const res = new FakeResponse();
		const credentialsHelper = new EngineCredentialsHelper(engineTypes.credentialTypes, this.credentialStore);
		const additionalData = createAdditionalData({ credentialsHelper, executionId: randomUUID() });
		additionalData.httpRequest = req as never;
		additionalData.httpResponse = res as never;

		const description = this.nodeType().description.webhooks![0];
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: `${this.node.webhookId}/webhook`,
			webhookDescription: description,
			workflowId: this.workflowId,
			workflowExecuteAdditionalData: additionalData,
			webhookId: this.node.webhookId,
		};
		const context = new WebhookContext(workflow, node, additionalData, mode, webhookData, [], null);
		Object.defineProperty(context, 'logger', { value: this.recordingLogger() });

		let result: IWebhookResponseData | undefined;
		let error: Error | undefined;
		modelIsolateEngine(this.isolates);
		try {
			result = await this.nodeType().webhook!.call(context);
		} catch (e) {
			error = e as Error;
		}
		const answeredAtReturn = res.headersSent;
		const staticData = workflow.staticData as IDataObject;
		const save = () => {
			if (mode === 'manual' || staticData.__dataChanged !== true) return;
			const copy = deepCopy(staticData);
			delete copy.__dataChanged;
			this.storedStaticData = copy;
			this.staticDataSaves++;
			staticData.__dataChanged = false;
		};
		// n8n's run: a Workflow on the same static data object, the trigger and its items on the stack.
		let running: Promise<IRun> | undefined;
		const startRun = () => {
			if (result?.workflowData === undefined) return;
			const runWorkflow = newWorkflow();
			if (!this.runs) return;
			const runData = createRunExecutionData({
				executionData: {
					nodeExecutionStack: [{ node: runWorkflow.getNode(this.node.name)!, data: { main: result.workflowData }, source: null }],
				},
			});
			// Its own additional data, as n8n's WorkflowRunner makes it: no HTTP request or response.
			const executionId = randomUUID();
			const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowBaseOf(runWorkflow));
			const runAdditionalData = createAdditionalData({ credentialsHelper, executionId, hooks });
			const started = new WorkflowExecute(runAdditionalData, mode, runData).processRunExecutionData(runWorkflow);
			request.onRun?.(started);
			running = started;
		};
		if (!error) {
			if (result?.noWebhookResponse || this.n8nFlow === 1) {
				save();
				startRun();
			} else {
				startRun();
				save();
			}
		}

		if (error) return { status: 500, body: { message: error.message }, runStarted: false, items: [], error };
		const items = result?.workflowData?.[0] ?? [];
		const runStarted = result?.workflowData !== undefined;
		const run = await running;
		if (result?.noWebhookResponse) {
			await res.answered;
			return {
				status: res.statusCode,
				body: res.body,
				contentType: res.headers['content-type'],
				headers: res.headers,
				runStarted,
				items,
				result,
				run,
				answeredAtReturn,
				answeredAt: res.answeredAt,
				mode,
				isolates: this.isolates,
			};
		}
		return { status: 200, body: { message: 'Workflow was started' }, runStarted, items, result };
	}
}

/** How long the trigger reuses a signing secret it read (dist/, the module the node uses). */
export function secretReuseMs(): number {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return (require(path.join(findPackageRoot(), 'dist', 'nodes', 'WorkplaceTrigger', 'secret.js')) as { SECRET_REUSE_MS: number })
		.SECRET_REUSE_MS;
}
