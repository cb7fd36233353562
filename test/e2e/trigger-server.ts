/**
 * A real `n8n start` for trigger scenarios: an own user folder (with the community package the
 * runner installed copied in, so the runner's owner setup and server check are untouched),
 * credentials and workflows created through n8n's REST API, workflows activated (production
 * webhooks registered), and the executions n8n recorded counted.
 *
 * The e2e runner executes scenarios with `n8n execute`, which cannot receive webhooks; a
 * trigger scenario therefore does its work in `before()` with this helper.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import {
	createUserFolder,
	fetchWebhook,
	findInstalled,
	settledExecutionCount,
	settledExecutions,
	startN8nServer,
	targetFor,
	type ExecutionSummary,
	type N8nServer,
} from '../../scripts/lib/n8n';
import { assertNoFallback } from './fallbacks';
import type { Scenario, ScenarioContext, TargetId, WorkflowJson } from './types';
import { chain, manualTrigger, set } from './workflow';
import { remindersFieldOf, votesFieldOf } from '../../nodes/WorkplaceTrigger/approvals/questionStore';

export type { ExecutionSummary };

export interface TriggerServer {
	server: N8nServer;
	userFolder: string;
	/** Creates a credential; returns its id. */
	createCredential(name: string, type: string, data: Record<string, unknown>): Promise<string>;
	/** Creates and activates a workflow; returns its id. */
	createActiveWorkflow(name: string, workflow: WorkflowJson): Promise<string>;
	/** Creates a workflow and tries to activate (publish) it: what n8n answered when it refused, undefined when it did not. */
	activationRefusal(name: string, workflow: WorkflowJson): Promise<string | undefined>;
	/** Production URL of a webhook node: /webhook/<webhookId>/<path>. */
	webhookUrl(webhookId: string, webhookPath: string): string;
	/**
	 * Waits until n8n serves a production webhook (2.x registers them shortly after the activate
	 * call answers). Probes with `{"events": []}`: 401 or 200, and never a run, from the trigger.
	 */
	waitForWebhook(url: string): Promise<void>;
	/** Executions of a workflow once none is running and the count stayed the same for `quietMs`. */
	settledExecutions(workflowId: string, quietMs?: number): Promise<ExecutionSummary[]>;
	/** How many executions a workflow has (all of them), once settled. */
	executionCount(workflowId: string, quietMs?: number): Promise<number>;
	/** One execution with its data, as the REST API returns it. */
	execution(id: string): Promise<Record<string, unknown>>;
	/** The workflow's static data as n8n saved it in its database. */
	storedStaticData(workflowId: string): Promise<Record<string, unknown>>;
	/** Stops n8n (SIGTERM, as a deploy does) and starts it again on the same folder, database and port. */
	restart(): Promise<void>;
	/** Everything n8n printed, over restarts (log level warn unless E2E_VERBOSE=1). */
	output(): string;
	stop(): Promise<void>;
}

export interface TriggerServerOptions {
	/** Extra environment for n8n (e.g. a Postgres database). */
	env?: NodeJS.ProcessEnv;
	/**
	 * Whether n8n may log the package's fallback lines (test/e2e/fallbacks.ts); by default none may
	 * appear, and withTriggerServer fails when one does.
	 */
	fallbacksExpected?: boolean;
}

/** Creates a credential through n8n's REST API; returns its id. */
export async function createCredentialIn(server: N8nServer, name: string, type: string, data: Record<string, unknown>): Promise<string> {
	return (await server.rest<{ id: string }>('POST', '/credentials', { name, type, data })).id;
}

/** Creates and activates a workflow through n8n's REST API; returns its id. */
export async function createActiveWorkflowIn(server: N8nServer, name: string, workflow: WorkflowJson): Promise<string> {
	const created = await server.rest<{ id: string; versionId: string }>('POST', '/workflows', {
		name,
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all', ...(workflow.settings ?? {}) },
		active: false,
	});
	try {
		await server.rest('POST', `/workflows/${created.id}/activate`, { versionId: created.versionId });
	} catch (error) {
		// n8n 1.110 and older have no /activate (1.123 has): a workflow is activated by saving it with `active: true`.
		if (!/\/activate answered 404:/.test((error as Error).message)) throw error;
		await server.rest('PATCH', `/workflows/${created.id}`, { versionId: created.versionId, active: true });
	}
	return created.id;
}

/**
 * Renames a node of an active workflow as the editor does (its ID and webhook ID stay; connections
 * follow) and saves it; n8n 2.x saves a draft, so the new version is published. Resolves once
 * n8n answered; the caller waits for the webhook.
 */
export async function renameNodeIn(server: N8nServer, workflowId: string, from: string, to: string): Promise<void> {
	type Saved = { versionId: string; nodes: Array<{ name: string }>; connections: Record<string, unknown>; activeVersionId?: string | null };
	const workflow = await server.rest<Saved>('GET', `/workflows/${workflowId}`);
	const renamed = (name: string) => (name === from ? to : name);
	const nodes = workflow.nodes.map((n) => ({ ...n, name: renamed(n.name) }));
	const connections = Object.fromEntries(
		Object.entries(workflow.connections).map(([source, outputs]) => [renamed(source), JSON.parse(JSON.stringify(outputs), (key, value: unknown) => (key === 'node' && value === from ? to : value)) as unknown]),
	);
	const saved = await server.rest<Saved>('PATCH', `/workflows/${workflowId}`, { versionId: workflow.versionId, nodes, connections });
	// n8n 2.x: the active version is the published one. n8n 1.x re-registered the active workflow on save.
	if (saved.activeVersionId !== undefined && saved.activeVersionId !== saved.versionId) {
		await server.rest('POST', `/workflows/${workflowId}/activate`, { versionId: saved.versionId });
	}
}

/** Creates a workflow and tries to activate it: the error text n8n answered with, or undefined when it activated it. */
export async function activationRefusalIn(server: N8nServer, name: string, workflow: WorkflowJson): Promise<string | undefined> {
	try {
		await createActiveWorkflowIn(server, name, workflow);
		return undefined;
	} catch (error) {
		return (error as Error).message;
	}
}

/** The workflow's static data as n8n saved it in its database. */
export async function storedStaticDataOf(server: N8nServer, workflowId: string): Promise<Record<string, unknown>> {
	const workflow = await server.rest<{ staticData?: Record<string, unknown> | string | null }>('GET', `/workflows/${workflowId}`);
	const data = workflow.staticData;
	return typeof data === 'string' ? (JSON.parse(data) as Record<string, unknown>) : (data ?? {});
}

export /** The in-chat questions of the workflow's triggers as stored (global static data, one field per trigger's webhook ID), request -> record. */
function questionsStored(stored: Record<string, unknown>, records: 'votes' | 'reminders'): Record<string, unknown> {
	const prefix = records === 'votes' ? votesFieldOf('') : remindersFieldOf('');
	const global = (stored.global ?? {}) as Record<string, unknown>;
	return Object.assign({}, ...Object.entries(global).filter(([field]) => field.startsWith(prefix)).map(([, value]) => value)) as Record<string, unknown>;
}

/** Waits until n8n serves a Workplace Trigger's production URL (see TriggerServer.waitForWebhook). */
export async function waitForTriggerWebhook(hookUrl: string): Promise<void> {
	await fetchWebhook(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"events":[]}' });
}

/**
 * Runs `work` against a fresh trigger server and stops it afterwards; a failure carries the tail of
 * what n8n printed.
 */
export async function withTriggerServer<T>(
	ctx: ScenarioContext,
	work: (srv: TriggerServer) => Promise<T>,
	options: TriggerServerOptions = {},
): Promise<T> {
	const srv = await startTriggerServer(ctx, options);
	try {
		const result = await work(srv);
		if (!options.fallbacksExpected) assertNoFallback(srv.output(), `n8n start (${ctx.n8nVersion})`);
		return result;
	} catch (e) {
		throw new Error(`${(e as Error).message}\n--- n8n start output (tail) ---\n${srv.server.output().split('\n').slice(-30).join('\n')}`);
	} finally {
		await srv.stop();
	}
}

/**
 * A scenario whose work happens in before() on its own `n8n start` (withTriggerServer): `run`
 * makes one report per target, `check` asserts on it; the workflow `n8n execute` runs is a
 * placeholder whose note says where the work is.
 */
export function triggerServerScenario<Report>(spec: {
	name: string;
	/** One of `npm run test:compat`'s scenarios (its short form: ctx.short). */
	compat?: boolean;
	placeholderNote: string;
	run(ctx: ScenarioContext, srv: TriggerServer): Promise<Report>;
	check(report: Report, ctx: ScenarioContext): void;
	/** Only on these majors (default: both). */
	targets?: TargetId[];
	options?: TriggerServerOptions;
}): Scenario {
	const reports = new Map<string, Report>();
	return {
		name: spec.name,
		compat: spec.compat,
		timeoutMs: 60_000,
		targets: spec.targets,
		workflow: () => chain([manualTrigger(), set('Placeholder', { note: spec.placeholderNote })]),
		async before(ctx) {
			reports.set(ctx.n8nVersion, await withTriggerServer(ctx, (srv) => spec.run(ctx, srv), spec.options));
		},
		assert(_result, ctx) {
			const report = reports.get(ctx.n8nVersion);
			assert.ok(report, 'before() produced no report');
			spec.check(report, ctx);
		},
	};
}

export async function startTriggerServer(ctx: ScenarioContext, options: TriggerServerOptions = {}): Promise<TriggerServer> {
	const inst = findInstalled(targetFor(ctx.n8nVersion));
	if (!inst) throw new Error(`n8n ${ctx.n8nVersion} is not installed`);
	const userFolder = createUserFolder(`n8n-e2e-trigger-${ctx.target}-`);
	// The package as the runner installed it (Community Nodes layout); n8n loads it at start.
	fs.cpSync(path.join(ctx.userFolder, '.n8n', 'nodes'), path.join(userFolder, '.n8n', 'nodes'), { recursive: true });
	const start = (port?: number) =>
		startN8nServer(inst, { userFolder, port, env: options.env, logLevel: process.env.E2E_VERBOSE === '1' ? 'debug' : 'warn' });
	let server: N8nServer;
	/** What the servers stopped by restart() printed. */
	let earlier = '';
	try {
		server = await start();
	} catch (e) {
		fs.rmSync(userFolder, { recursive: true, force: true });
		throw e;
	}
	try {
		await server.setupOwner();
	} catch (e) {
		await server.stop();
		fs.rmSync(userFolder, { recursive: true, force: true });
		throw e;
	}

	return {
		get server() {
			return server;
		},
		userFolder,
		createCredential: (name, type, data) => createCredentialIn(server, name, type, data),
		createActiveWorkflow: (name, workflow) => createActiveWorkflowIn(server, name, workflow),
		activationRefusal: (name, workflow) => activationRefusalIn(server, name, workflow),
		webhookUrl(webhookId, webhookPath) {
			return `${server.url}/webhook/${webhookId}/${webhookPath}`;
		},
		waitForWebhook: waitForTriggerWebhook,
		async settledExecutions(workflowId, quietMs) {
			return await settledExecutions(server, workflowId, quietMs);
		},
		async executionCount(workflowId, quietMs) {
			return await settledExecutionCount(server, workflowId, quietMs);
		},
		async execution(id) {
			return await server.rest<Record<string, unknown>>('GET', `/executions/${id}`);
		},
		storedStaticData: (workflowId) => storedStaticDataOf(server, workflowId),
		async restart() {
			const port = server.port;
			await server.stop();
			earlier += server.output();
			server = await start(port);
			await server.login();
		},
		output: () => `${earlier}${server.output()}`,
		async stop() {
			await server.stop();
			if (process.env.E2E_KEEP === '1') process.stdout.write(`      trigger user folder kept: ${userFolder}\n`);
			else fs.rmSync(userFolder, { recursive: true, force: true });
		},
	};
}
