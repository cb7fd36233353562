/**
 * Real n8n for end-to-end tests and local development.
 *
 * - installs n8n releases on demand into a git-ignored cache (`.cache/` in the repo,
 *   or $WORKPLACE_N8N_CACHE), each under the Node.js major it supports (targets, node-runtime, install);
 * - builds the environment n8n runs with (throwaway user folder, sqlite, no telemetry) (cli);
 * - installs this package into a user folder the way n8n's Community Nodes panel does (community-package);
 * - runs n8n CLI commands and starts/stops a real n8n server (cli, workflows, server);
 * - installs n8n's community-node CLI, @n8n/node-cli, and runs its `lint` and `cloud-support` for
 *   `npm run lint:n8n` and `npm run cloud-support` (node-cli, node-cli-checks).
 *
 * Used by scripts/install-n8n.ts, scripts/lint-n8n.ts, scripts/cloud-support.ts, scripts/e2e.ts, scripts/dev.ts, scripts/queue-test.ts and the benchmarks.
 */
export {
	COMPAT_CI_VERSIONS,
	COMPAT_VERSIONS,
	ISOLATE_ENGINE,
	parseTargetIds,
	parseTargets,
	targetFor,
	SIGNED_RESUME_URLS,
	versionAtLeast,
	TARGETS,
	type N8nTarget,
	type NodeRuntimeSpec,
	type TargetId,
} from './targets';
export { cacheRoot, installDir, npmCliPath, repoRoot } from './paths';
export { defaultLogger, type Logger } from './logger';
export { cleanEnv } from './npm-env';
export type { NodeRuntime } from './node-runtime';
export { ensureN8n, findInstalled, type EnsureOptions, type N8nInstall } from './install';
export { createUserFolder, E2E_ENCRYPTION_KEY, n8nEnv, runN8n, runN8nChecked, type N8nEnvOptions } from './cli';
export { declaredTypes, installCommunityPackage, packPackage, type InstalledCommunityPackage } from './community-package';
export { executeWorkflow, extractPrintedJson, importCredentials, importWorkflows, type ExecuteResult } from './workflows';
export {
	E2E_OWNER,
	fetchWebhook,
	settledExecutionCount,
	settledExecutions,
	startN8nServer,
	type ExecutionSummary,
	type N8nServer,
	type StartServerOptions,
} from './server';
export { ensureNodeCli, NODE_CLI_VERSION, type NodeCliInstall } from './node-cli';
