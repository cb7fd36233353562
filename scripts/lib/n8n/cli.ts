/** User folders, the environment n8n runs with, and n8n CLI commands. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { CommandError, run, tail, type RunResult } from '../proc';
import type { N8nInstall } from './install';
import { cleanEnv } from './npm-env';

export const E2E_ENCRYPTION_KEY = 'n8n-nodes-workplace-e2e-encryption-key';

export interface N8nEnvOptions {
	userFolder: string;
	/** Extra variables (win over the defaults). */
	env?: NodeJS.ProcessEnv;
	logLevel?: 'error' | 'warn' | 'info' | 'debug' | 'silent';
}

/**
 * Environment for running n8n: isolated user folder, sqlite, fixed encryption key, no
 * telemetry or update checks, filesystem binary data mode (so node code sees streams).
 */
let logFileCount = 0;

/**
 * With WORKPLACE_N8N_LOG_DIR set (the e2e secrets check), every n8n process started from here
 * also logs to its own file in that folder, at info level or above (debug changes the console
 * format, and `n8n execute --rawOutput` prints its result through the logger).
 */
function logFileEnv(level: N8nEnvOptions['logLevel']): NodeJS.ProcessEnv {
	const dir = process.env.WORKPLACE_N8N_LOG_DIR;
	if (!dir) return {};
	fs.mkdirSync(dir, { recursive: true });
	logFileCount++;
	return {
		N8N_LOG_OUTPUT: 'console,file',
		N8N_LOG_LEVEL: level === 'debug' ? 'debug' : 'info',
		N8N_LOG_FILE_LOCATION: path.join(dir, `n8n-${process.pid}-${logFileCount}.log`),
	};
}

export function n8nEnv(inst: N8nInstall, options: N8nEnvOptions): NodeJS.ProcessEnv {
	return cleanEnv({
		PATH: [path.dirname(inst.node.bin), process.env.PATH ?? ''].join(path.delimiter),
		TZ: 'UTC',
		GENERIC_TIMEZONE: 'UTC',
		N8N_USER_FOLDER: options.userFolder,
		DB_TYPE: 'sqlite',
		N8N_ENCRYPTION_KEY: E2E_ENCRYPTION_KEY,
		N8N_LOG_LEVEL: options.logLevel ?? 'warn',
		N8N_LOG_OUTPUT: 'console',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
		N8N_RUNNERS_ENABLED: 'true',
		N8N_RUNNERS_MODE: 'internal',
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		N8N_GIT_NODE_DISABLE_BARE_REPOS: 'true',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		DB_SQLITE_POOL_SIZE: '2',
		...options.env,
		...logFileEnv(options.logLevel),
	});
}

/** Runs `n8n <args>` with the target's Node and the given environment. */
export function runN8n(
	inst: N8nInstall,
	args: string[],
	env: NodeJS.ProcessEnv,
	options: { timeoutMs?: number; echoPrefix?: string } = {},
): Promise<RunResult> {
	return run(inst.node.bin, [inst.n8nBin, ...args], {
		cwd: env.N8N_USER_FOLDER,
		env,
		timeoutMs: options.timeoutMs ?? 180_000,
		echoPrefix: options.echoPrefix,
	});
}

export async function runN8nChecked(
	inst: N8nInstall,
	args: string[],
	env: NodeJS.ProcessEnv,
	options: { timeoutMs?: number; echoPrefix?: string } = {},
): Promise<RunResult> {
	const r = await runN8n(inst, args, env, options);
	if (r.code !== 0) {
		throw new CommandError(
			`n8n ${args.join(' ')} failed (${r.timedOut ? 'timed out' : `exit ${r.code ?? r.signal}`})\n` +
				`--- stdout (tail) ---\n${tail(r.stdout)}\n--- stderr (tail) ---\n${tail(r.stderr)}`,
			r,
		);
	}
	return r;
}

export function createUserFolder(prefix = 'n8n-user-'): string {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
