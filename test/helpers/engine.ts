/**
 * Engine test bed: runs REAL workflows through n8n-core's execution engine.
 *
 *   [Manual Trigger (test start node)] --main--> [node under test]
 *
 * `runNode` builds that two-node workflow with n8n-workflow's `Workflow`, executes it with
 * n8n-core's `WorkflowExecute` in `manual` mode and returns what n8n recorded (run data,
 * outputs, errors). Nodes get n8n-core's real execute functions and helpers (http with
 * authentication, OAuth2, binary data, ...). Credentials are applied by a real
 * ICredentialsHelper implementation over an in-memory credential store
 * (see engine-credentials.ts). The package under test is loaded from the repository's
 * package.json `n8n` section (dist/, built by `npm run build`) by n8n-core's package loader.
 *
 * Usage:
 *
 *   const { items, error, credentialStore } = await runNode({
 *     nodeType: 'workplaceKnowledge',
 *     parameters: { resource: 'knowledgeBase', operation: 'getAll' },
 *     credentials: { workplaceKnowledgeApi: { knowledgeUrl, apiKey } },
 *     inputItems: [{ json: {}, binary: { data: { data: 'text', fileName: 'a.txt' } } }],
 *   });
 *
 * - `error` is set when the node threw (the error as recorded in the run data, with its
 *   n8n-workflow class restored); `items` then is empty unless `continueOnFail` is set.
 * - Share a `CredentialStore` via `credentialStore` to reuse tokens across executions;
 *   `credentialStore.counters` / `preAuthenticationCalls()` count
 *   credential round trips.
 * - `nodeId` and `executionId` fix what identifies a run (a saved node, an execution);
 *   `loopRuns: n` puts a loop before the node, so it runs n times in one execution (run index 0..n-1).
 * - `readBinary(item, 'data')` returns binary content in both binary modes.
 * - `testCredential(type, data)` runs the `testedBy` function a node names for the credential,
 *   like n8n's "Test credential" button.
 * - `registerTestTypes({ nodes, credentials })` adds test-only types
 *   (`n8n-nodes-engine-test.<name>`).
 * - `registerToolVariant('workplaceKnowledge')` registers the node's "<node> Tool" variant (the
 *   type an AI agent's tool runs as) and returns its type name for `nodeType`.
 */
import 'reflect-metadata';
import './engine-env';

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import { CredentialTestContext, LoadOptionsContext } from 'n8n-core';
import type {
	INodeListSearchResult,
	ExecutionBaseError,
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	ICredentialsDecrypted,
	IConnections,
	IDataObject,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
	IRunData,
	IWorkflowBase,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	ApplicationError,
	BINARY_ENCODING,
	ExpressionError,
	NodeApiError,
	NodeConnectionTypes,
	NodeOperationError,
	NodeSslError,
	OperationalError,
	UnexpectedError,
	UserError,
	Workflow,
	WorkflowOperationError,
	deepCopy,
} from 'n8n-workflow';
import { randomUUID } from 'node:crypto';

import type { SerializedStartItem } from './builtin/EngineManualTrigger.node';
import { createAdditionalData } from './engine-additional-data';
import type { BinaryMode } from './engine-container';
import { getBinaryDataService, initEngineContainer, useBinaryDataMode } from './engine-container';
import {
	CredentialStore,
	EngineCredentialsHelper,
	credentialIdFor,
} from './engine-credentials';
import type { PackageLoadResult } from './engine-types';
import { LOOP_NODE_TYPE, START_NODE_TYPE, engineTypes, loadPackageNodeTypes } from './engine-types';

export type { BinaryMode } from './engine-container';
export { getBinaryDataService, useBinaryDataMode } from './engine-container';
export type { CredentialStoreCounters } from './engine-credentials';
export { CredentialStore, EngineCredentialsHelper } from './engine-credentials';
export type { PackageLoadResult } from './engine-types';
export {
	EngineTypeRegistry,
	START_NODE_TYPE,
	TEST_PACKAGE_NAME,
	engineTypes,
	findPackageRoot,
	loadPackageDirectory,
	loadPackageNodeTypes,
	registerTestTypes,
	registerToolVariant,
} from './engine-types';

export interface TestBinary {
	/** File content; a string is taken as utf8 text. */
	data: Buffer | string;
	fileName?: string;
	mimeType?: string;
}

export interface TestInputItem {
	json: IDataObject;
	binary?: Record<string, TestBinary>;
}

export interface RunNodeOptions {
	/** Short name (`workplaceKnowledge`) or full type (`n8n-nodes-workplace.workplaceKnowledge`). */
	nodeType: string;
	/** Default: the node's defaultVersion, else its latest version. */
	typeVersion?: number;
	parameters: INodeParameters;
	/**
	 * Credential type name -> decrypted credential data, e.g.
	 * `{ workplaceKnowledgeApi: { knowledgeUrl, apiKey } }`. With `credentialStore`, only
	 * types not yet in the store are added (so tokens saved by earlier runs survive).
	 */
	credentials?: Record<string, IDataObject>;
	/**
	 * Credential store to use (and update): share one between runNode calls to model one
	 * saved credential used by consecutive executions (token reuse, refresh counters).
	 */
	credentialStore?: CredentialStore;
	/** Items emitted by the start node (default: one empty item). */
	inputItems?: readonly TestInputItem[];
	/** Node setting "On Error: Continue" (onError = 'continueRegularOutput'). */
	continueOnFail?: boolean;
	/** n8n binary data mode for this execution; default 'filesystem' (ids, streams, on disk). */
	binaryMode?: BinaryMode;
	/** Name of the node under test in the workflow; default: its `defaults.name`. */
	nodeName?: string;
	/** Extra node settings (alwaysOutputData, executeOnce, retryOnFail, ...). */
	nodeSettings?: Partial<
		Pick<INode, 'alwaysOutputData' | 'executeOnce' | 'retryOnFail' | 'maxTries' | 'waitBetweenTries' | 'onError'>
	>;
	/** ID of the node under test (default: a new UUID), as a saved workflow keeps it across executions. */
	nodeId?: string;
	/** The execution's ID (default: the next number of a counter). */
	executionId?: string;
	/**
	 * Runs of the node under test in the execution, through a loop (Manual Trigger → Loop → node →
	 * Loop, see builtin/EngineLoop.node.ts); each run gets the previous run's output. Default: one
	 * run, no loop. The result's items are the last run's.
	 */
	loopRuns?: number;
	/** The workflow's static data as n8n loaded it from its database (e.g. what an active trigger wrote). */
	staticData?: IDataObject;
	/** How the execution started: 'manual' (default, the editor) or e.g. 'webhook', 'trigger' (production). */
	mode?: WorkflowExecuteMode;
}

export interface RunNodeResult {
	/** Main output 0 of the node under test (empty array if none). */
	items: INodeExecutionData[];
	/** All main outputs of the node under test. */
	outputs: INodeExecutionData[][];
	/**
	 * The execution error if the node (or the workflow) failed: the error object n8n recorded
	 * in the run data (message, description, httpCode, context, node, ...), with the
	 * n8n-workflow error class restored from its `name` (so `instanceof NodeApiError` works).
	 */
	error?: ExecutionBaseError | Error;
	runData: IRunData;
	/** Current (possibly updated) credential data plus counters. */
	credentialStore: CredentialStore;
	/** The full IRun returned by WorkflowExecute (undefined if the engine threw before running). */
	run?: IRun;
	/** Name of the node under test in the executed workflow. */
	nodeName: string;
	executionId: string;
	/** The executed workflow (e.g. to resume a waiting execution, see waiting.ts). */
	workflow: Workflow;
}

const START_NODE_NAME = 'Manual Trigger';
const LOOP_NODE_NAME = 'Loop';
const WORKFLOW_ID = 'engine-test-workflow';
let executionCounter = 0;

function serializeInputItems(items: readonly TestInputItem[] | undefined): SerializedStartItem[] {
	return (items ?? [{ json: {} }]).map((item) => {
		const serialized: SerializedStartItem = { json: item.json ?? {} };
		if (item.binary) {
			serialized.binary = {};
			for (const [key, value] of Object.entries(item.binary)) {
				const buffer = typeof value.data === 'string' ? Buffer.from(value.data, 'utf8') : value.data;
				serialized.binary[key] = {
					base64: buffer.toString('base64'),
					fileName: value.fileName,
					mimeType: value.mimeType,
				};
			}
		}
		return serialized;
	});
}

const ERROR_CLASSES: Record<string, { prototype: object }> = {
	NodeApiError,
	NodeOperationError,
	NodeSslError,
	ExpressionError,
	WorkflowOperationError,
	UnexpectedError,
	UserError,
	OperationalError,
	ApplicationError,
};

/** Copy of a recorded (spread) error with its class prototype restored from `name`. */
function reviveError(recorded: object): ExecutionBaseError | Error {
	const name = (recorded as { name?: unknown }).name;
	const prototype =
		typeof name === 'string' && name in ERROR_CLASSES ? ERROR_CLASSES[name].prototype : Error.prototype;
	const copy = Object.create(prototype) as Error;
	Object.assign(copy, recorded);
	return copy;
}

async function resolveNodeType(nodeType: string, pkg: PackageLoadResult): Promise<string> {
	try {
		return engineTypes.resolveNodeTypeName(nodeType, pkg.packageName);
	} catch (error) {
		if (!pkg.loaded && error instanceof Error) {
			error.message += ` (package types not loaded: ${pkg.skippedReason})`;
		}
		throw error;
	}
}

/** The saved workflow (IWorkflowBase) of a Workflow, as execution lifecycle hooks take it. */
export function workflowBaseOf(workflow: Workflow): IWorkflowBase {
	return {
		id: String(workflow.id),
		name: workflow.name ?? 'engine test',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		settings: workflow.settings,
	};
}

/** Executes `start -> node under test` with n8n-core's WorkflowExecute. */
export async function runNode(opts: RunNodeOptions): Promise<RunNodeResult> {
	await initEngineContainer();
	const pkg = await loadPackageNodeTypes();
	await useBinaryDataMode(opts.binaryMode ?? 'filesystem');

	const fullType = await resolveNodeType(opts.nodeType, pkg);
	const typeVersion = opts.typeVersion ?? engineTypes.defaultVersion(fullType);
	const { description } = engineTypes.nodeTypes.getByNameAndVersion(fullType, typeVersion);

	const store = opts.credentialStore ?? new CredentialStore();
	store.seed(opts.credentials);
	const credentialsHelper = new EngineCredentialsHelper(engineTypes.credentialTypes, store);

	let nodeName = opts.nodeName ?? description.defaults?.name ?? description.displayName;
	if (nodeName === START_NODE_NAME || nodeName === LOOP_NODE_NAME) nodeName = `${nodeName} 1`;

	const startNode: INode = {
		id: randomUUID(),
		name: START_NODE_NAME,
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { items: JSON.stringify(serializeInputItems(opts.inputItems)) },
	};
	const nodeUnderTest: INode = {
		id: opts.nodeId ?? randomUUID(),
		name: nodeName,
		type: fullType,
		typeVersion,
		position: [220, 0],
		parameters: deepCopy(opts.parameters),
		...opts.nodeSettings,
	};
	if (opts.continueOnFail) nodeUnderTest.onError = 'continueRegularOutput';
	if (store.types().length > 0) {
		nodeUnderTest.credentials = Object.fromEntries(
			store.types().map((type) => [type, { id: credentialIdFor(type), name: `${type} (engine test)` }]),
		);
	}

	const to = (node: string) => ({ main: [[{ node, type: NodeConnectionTypes.Main, index: 0 }]] });
	const loopNode: INode | undefined = opts.loopRuns
		? { id: randomUUID(), name: LOOP_NODE_NAME, type: LOOP_NODE_TYPE, typeVersion: 1, position: [110, 0], parameters: { runs: opts.loopRuns } }
		: undefined;
	const connections: IConnections = loopNode
		? { [START_NODE_NAME]: to(LOOP_NODE_NAME), [LOOP_NODE_NAME]: to(nodeName), [nodeName]: to(LOOP_NODE_NAME) }
		: { [START_NODE_NAME]: to(nodeName) };
	const executionId = opts.executionId ?? String(++executionCounter);
	const workflowName = `engine test: ${fullType}`;
	const settings = { executionOrder: 'v1' as const };
	const workflow = new Workflow({
		id: WORKFLOW_ID,
		name: workflowName,
		nodes: loopNode ? [startNode, loopNode, nodeUnderTest] : [startNode, nodeUnderTest],
		connections,
		active: false,
		nodeTypes: engineTypes.nodeTypes,
		settings,
		...(opts.staticData ? { staticData: deepCopy(opts.staticData) } : {}),
	});
	const workflowData = workflowBaseOf(workflow);

	const mode = opts.mode ?? 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	const additionalData = createAdditionalData({ credentialsHelper, executionId, hooks });
	const workflowExecute = new WorkflowExecute(additionalData, mode);

	let run: IRun | undefined;
	let thrown: Error | undefined;
	try {
		run = await workflowExecute.run(workflow, workflow.getNode(START_NODE_NAME)!);
	} catch (error) {
		thrown = error instanceof Error ? error : new Error(String(error));
	}

	const runData: IRunData = run?.data.resultData.runData ?? {};
	const tasks = runData[nodeName] ?? [];
	const task = tasks[tasks.length - 1];
	const outputs = (task?.data?.main ?? []).map((output) => output ?? []);
	const recorded = task?.error ?? run?.data.resultData.error;

	return {
		items: outputs[0] ?? [],
		outputs,
		error: thrown ?? (recorded ? reviveError(recorded) : undefined),
		runData,
		credentialStore: store,
		run,
		nodeName,
		executionId,
		workflow,
	};
}

/** Content of a binary property of an item, for both binary modes (inline base64 or stored id). */
export async function readBinary(item: INodeExecutionData, property = 'data'): Promise<Buffer> {
	await initEngineContainer();
	const binary = item.binary?.[property];
	if (!binary) {
		throw new UnexpectedError(
			`Item has no binary property "${property}" (has: ${Object.keys(item.binary ?? {}).join(', ') || 'none'})`,
		);
	}
	if (binary.id) return await getBinaryDataService().getAsBuffer(binary);
	return Buffer.from(binary.data, BINARY_ENCODING);
}

function credentialTestFunctionFor(typeName: string): ICredentialTestFunction | undefined {
	for (const nodeName of engineTypes.credentialTypes.getSupportedNodes(typeName)) {
		const node = engineTypes.nodeTypes.getByName(nodeName);
		const versions: INodeType[] =
			'nodeVersions' in node ? Object.values(node.nodeVersions).reverse() : [node];
		for (const version of versions) {
			for (const { name, testedBy } of version.description.credentials ?? []) {
				if (name !== typeName || typeof testedBy !== 'string') continue;
				const fn = version.methods?.credentialTest?.[testedBy];
				if (fn) return fn;
			}
		}
	}
	return undefined;
}

/**
 * Tests credential data the way n8n's "Test" button does (CredentialsTester) for the one kind the
 * package uses: the function a node names in `testedBy`, given the data with defaults applied.
 */
export async function testCredential(
	typeName: string,
	data: IDataObject,
	options: { credentialStore?: CredentialStore } = {},
): Promise<INodeCredentialTestResult> {
	await initEngineContainer();
	await loadPackageNodeTypes();
	const testFunction = credentialTestFunctionFor(typeName);
	if (testFunction === undefined) {
		return { status: 'Error', message: 'No testing function found for this credential.' };
	}

	const store = options.credentialStore ?? new CredentialStore();
	store.set(typeName, data);
	const credentialsHelper = new EngineCredentialsHelper(engineTypes.credentialTypes, store);
	const additionalData = createAdditionalData({ credentialsHelper });

	const credentialsDecrypted: ICredentialsDecrypted = {
		id: credentialIdFor(typeName),
		name: `${typeName} (engine test)`,
		type: typeName,
		data: undefined,
	};
	try {
		credentialsDecrypted.data = credentialsHelper.applyDefaultsAndResolveExpressions(
			additionalData,
			data as ICredentialDataDecryptedObject,
			typeName,
			'internal',
		);
	} catch (error) {
		return { status: 'Error', message: String(error.message) };
	}

	return await testFunction.call(new CredentialTestContext(), credentialsDecrypted);
}

export interface ListSearchOptions {
	nodeType: string;
	typeVersion?: number;
	/** The node's current parameters, as the editor sends them with a list search. */
	parameters: INodeParameters;
	credentials: Record<string, IDataObject>;
	credentialStore?: CredentialStore;
	/** The `searchListMethod` of a resource locator's "From List" mode. */
	method: string;
	filter?: string;
	paginationToken?: string;
}

/**
 * Runs a resource locator's "From List" search the way the editor does: n8n-core's
 * LoadOptionsContext with the node's current parameters and real credentials.
 */
export async function runListSearch(opts: ListSearchOptions): Promise<INodeListSearchResult> {
	await initEngineContainer();
	const pkg = await loadPackageNodeTypes();
	const fullType = await resolveNodeType(opts.nodeType, pkg);
	const typeVersion = opts.typeVersion ?? engineTypes.defaultVersion(fullType);
	const nodeType = engineTypes.nodeTypes.getByNameAndVersion(fullType, typeVersion);
	const search = nodeType.methods?.listSearch?.[opts.method];
	if (search === undefined) throw new Error(`${fullType} has no listSearch method "${opts.method}"`);

	const store = opts.credentialStore ?? new CredentialStore();
	store.seed(opts.credentials);
	const credentialsHelper = new EngineCredentialsHelper(engineTypes.credentialTypes, store);
	const node: INode = {
		id: randomUUID(),
		name: nodeType.description.defaults?.name ?? nodeType.description.displayName,
		type: fullType,
		typeVersion,
		position: [0, 0],
		parameters: deepCopy(opts.parameters),
		credentials: Object.fromEntries(
			store.types().map((type) => [type, { id: credentialIdFor(type), name: `${type} (engine test)` }]),
		),
	};
	const workflow = new Workflow({
		id: WORKFLOW_ID,
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: engineTypes.nodeTypes,
	});
	const additionalData = createAdditionalData({ credentialsHelper });
	additionalData.currentNodeParameters = node.parameters;
	const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters');
	return await search.call(context, opts.filter, opts.paginationToken);
}
