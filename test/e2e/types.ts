/**
 * Types of the real-n8n end-to-end scenarios (run by scripts/e2e.ts).
 *
 * A scenario is a module in test/e2e/scenarios/ that exports `scenario` (or `scenarios`, or a
 * default export): a workflow built against the running platform simulator, plus assertions on
 * what n8n returned and on what the simulator received. See test/e2e/README.md.
 */
import type { LoggedRequest, RequestLogApi } from '../../simulator/types';

export type { LoggedRequest };

/** The in-process platform simulator (build/simulator/index.js startSimulator()). */
export interface E2eSimulator {
	url: string;
	knowledgeUrl: string;
	controlUrl: string;
	credentials: { knowledgeApiKey: string; [name: string]: string };
	log: Pick<RequestLogApi, 'all' | 'clear' | 'find'>;
	state: unknown;
	faults?: { add(rule: Record<string, unknown>): string; clear(): void };
	close(): Promise<void>;
	[extension: string]: unknown;
}

/** An n8n major. */
export type TargetId = '1' | '2';

/** What a scenario's functions get besides the simulator. */
export interface ScenarioContext {
	sim: E2eSimulator;
	/** The n8n major: '1' (n8n 1.x on Node 20) or '2' (n8n 2.x on Node 24), whichever release of it runs. */
	target: TargetId;
	/** The exact release (1.123.50, or another one named in E2E_TARGETS, e.g. by `npm run test:compat`). */
	n8nVersion: string;
	/**
	 * `npm run test:compat`: the scenario runs its short form, the few cases that show the n8n
	 * feature it relies on works in this release (see Scenario.compat).
	 */
	short: boolean;
	nodeVersion: string;
	/** The throwaway N8N_USER_FOLDER of this target's run. */
	userFolder: string;
}

export interface ScenarioCredential {
	/** Credential id to import with (16 alphanumerics; use credentialId('some-name')). */
	id: string;
	name: string;
	/** n8n credential type, e.g. 'workplaceKnowledgeApi' */
	type: string;
	/** Unencrypted credential data; n8n import:credentials encrypts it. */
	data(ctx: ScenarioContext): Record<string, unknown>;
}

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	[setting: string]: unknown;
}

export interface WorkflowJson {
	nodes: WorkflowNode[];
	connections: Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }>;
	settings?: Record<string, unknown>;
	pinData?: Record<string, unknown>;
	[key: string]: unknown;
}

/** Binary data as it appears in n8n's output items (with filesystem mode: `id` set, no data). */
export interface BinaryRef {
	mimeType?: string;
	fileName?: string;
	fileExtension?: string;
	fileType?: string;
	fileSize?: string;
	id?: string;
	data?: string;
	[key: string]: unknown;
}

export interface OutputItem {
	json: Record<string, unknown>;
	binary?: Record<string, BinaryRef>;
	pairedItem?: unknown;
	error?: unknown;
}

export interface NodeRunInfo {
	executionStatus?: string;
	executionTime?: number;
	error?: { message?: string; description?: string; [key: string]: unknown };
	/** main outputs: outputs[outputIndex] = items */
	outputs: OutputItem[][];
}

export interface ScenarioResult {
	/** Overall status: 'success' when the workflow ran without an error. */
	status: 'success' | 'error';
	/** The workflow error (resultData.error), if any. */
	error?: { message?: string; description?: string; node?: { name?: string }; [key: string]: unknown };
	lastNodeExecuted?: string;
	/** Node names in execution order (first run of each). */
	executedNodes: string[];
	/** Every run of every node. */
	runs: Record<string, NodeRunInfo[]>;
	/** Items of a node's output (default: its last run, output 0). Throws if the node did not run. */
	items(nodeName: string, options?: { run?: number; output?: number }): OutputItem[];
	/** json of each item of items(nodeName). */
	json(nodeName: string, options?: { run?: number; output?: number }): Array<Record<string, unknown>>;
	/** The bytes behind a binary reference (reads n8n's filesystem binary data store). */
	readBinary(ref: BinaryRef): Promise<Buffer>;
	/** The raw IRun printed by `n8n execute`. */
	raw: unknown;
	/** Wall time of `n8n execute` in ms. */
	durationMs: number;
}

export interface Scenario {
	/** Unique, human-readable; also used for the workflow's id and name. */
	name: string;
	/** Only run on these majors (default: all). */
	targets?: TargetId[];
	/**
	 * One of the scenarios of `npm run test:compat` (in its short form, ctx.short): it checks a
	 * feature that relies on n8n's internals on every release of the supported range.
	 */
	compat?: boolean;
	credentials?: ScenarioCredential[];
	/** The workflow to import and run. The runner sets id, name, active:false and settings defaults. */
	workflow(ctx: ScenarioContext): WorkflowJson;
	/** Set when the workflow is expected to end with an error (assert then checks result.error). */
	expectError?: boolean;
	/** Runs before the workflow (the simulator log was just cleared): e.g. add simulator faults. */
	before?(ctx: ScenarioContext): void | Promise<void>;
	/** Runs after the scenario, passed or failed: e.g. to undo a simulator setting before() changed. */
	after?(ctx: ScenarioContext): void | Promise<void>;
	/** Throw (node:assert) to fail the scenario. */
	assert(result: ScenarioResult, ctx: ScenarioContext): void | Promise<void>;
	/** Timeout of `n8n execute` (default 180 s). */
	timeoutMs?: number;
}
