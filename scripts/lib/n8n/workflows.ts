/** Importing credentials and workflows, executing a workflow from the CLI. */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { RunResult } from '../proc';
import { runN8n, runN8nChecked } from './cli';
import type { N8nInstall } from './install';

export async function importCredentials(
	inst: N8nInstall,
	env: NodeJS.ProcessEnv,
	credentials: unknown[],
	workDir: string,
): Promise<RunResult> {
	const file = path.join(workDir, 'credentials.json');
	fs.writeFileSync(file, JSON.stringify(credentials, null, 2));
	return runN8nChecked(inst, ['import:credentials', `--input=${file}`], env);
}

export async function importWorkflows(
	inst: N8nInstall,
	env: NodeJS.ProcessEnv,
	workflows: unknown[],
	workDir: string,
): Promise<RunResult> {
	const file = path.join(workDir, 'workflows.json');
	// n8n 2.0 imports a workflow without versionId as NULL (NOT NULL constraint failed:
	// workflow_entity.versionId); later releases draw one themselves.
	const withVersion = workflows.map((w) =>
		w && typeof w === 'object' && !('versionId' in w) ? { ...w, versionId: randomUUID() } : w,
	);
	fs.writeFileSync(file, JSON.stringify(withVersion, null, 2));
	return runN8nChecked(inst, ['import:workflow', `--input=${file}`], env);
}

/**
 * Finds the JSON document `n8n execute` printed (JSON.stringify(run, null, 2), i.e. the whole
 * IRun with every node's runData) among log lines.
 */
export function extractPrintedJson(stdout: string): unknown {
	const lines = stdout.split('\n');
	for (let start = 0; start < lines.length; start++) {
		if (lines[start] !== '{') continue;
		for (let end = lines.length - 1; end > start; end--) {
			if (lines[end] !== '}') continue;
			try {
				return JSON.parse(lines.slice(start, end + 1).join('\n'));
			} catch {
				// try a shorter span
			}
		}
	}
	return undefined;
}

export interface ExecuteResult {
	run: RunResult;
	/** The IRun printed by `n8n execute` (undefined if none could be parsed). */
	data: unknown;
}

/** `n8n execute --id=<id> --rawOutput` */
export async function executeWorkflow(
	inst: N8nInstall,
	env: NodeJS.ProcessEnv,
	workflowId: string,
	timeoutMs = 180_000,
): Promise<ExecuteResult> {
	const r = await runN8n(inst, ['execute', `--id=${workflowId}`, '--rawOutput'], env, { timeoutMs });
	return { run: r, data: extractPrintedJson(r.stdout) };
}
