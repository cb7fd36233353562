/**
 * Process environment for the engine test bed.
 *
 * Must be evaluated before anything constructs n8n's config classes (@n8n/config reads
 * the environment when `Container.get(SomeConfig)` runs for the first time), so
 * `engine.ts` imports this module right after `reflect-metadata`.
 *
 * - N8N_USER_FOLDER points to a fresh temporary directory per test process, so
 *   InstanceSettings (encryption key file) and BinaryDataService (filesystem mode)
 *   never touch the developer's ~/.n8n. The directory is removed when the jest file
 *   finishes (afterAll) or the process exits.
 * - Proxy variables are removed and NO_PROXY is set to `*`: n8n-core's http helpers
 *   (proxy-from-env based agents), axios and @n8n/client-oauth2 all honour them, and
 *   tests only ever talk to 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PROXY_VARIABLES = [
	'http_proxy',
	'https_proxy',
	'all_proxy',
	'HTTP_PROXY',
	'HTTPS_PROXY',
	'ALL_PROXY',
	'npm_config_proxy',
	'npm_config_http_proxy',
	'npm_config_https_proxy',
	'npm_config_no_proxy',
	'N8N_HTTP_PROXY',
	'N8N_HTTPS_PROXY',
];

/** Removes every proxy setting from the environment and disables proxying for all hosts. */
export function disableEnvironmentProxies(): void {
	for (const name of PROXY_VARIABLES) {
		delete process.env[name];
	}
	process.env.no_proxy = '*';
	process.env.NO_PROXY = '*';
}

/** Temporary root for this test process: `<tmp>/n8n-engine-test-XXXX`. */
export const engineTempRoot: string = mkdtempSync(path.join(tmpdir(), 'n8n-engine-test-'));

let cleanedUp = false;
export function cleanupEngineTempRoot(): void {
	if (cleanedUp) return;
	cleanedUp = true;
	try {
		rmSync(engineTempRoot, { recursive: true, force: true });
	} catch {
		// best effort
	}
}

function setDefault(name: string, value: string): void {
	if (process.env[name] === undefined || process.env[name] === '') {
		process.env[name] = value;
	}
}

// Always isolate the n8n user folder (InstanceSettings writes `<folder>/.n8n/config`).
process.env.N8N_USER_FOLDER = engineTempRoot;
setDefault('N8N_ENCRYPTION_KEY', 'n8n-engine-test-encryption-key');
// The engine logs through @n8n/backend-common's Logger; keep test output quiet unless asked.
setDefault('N8N_LOG_LEVEL', 'silent');
setDefault('N8N_DIAGNOSTICS_ENABLED', 'false');
// Binary data: filesystem manager available, mode switched per run by the engine.
process.env.N8N_AVAILABLE_BINARY_DATA_MODES = 'filesystem';
process.env.N8N_DEFAULT_BINARY_DATA_MODE = 'filesystem';
delete process.env.N8N_BINARY_DATA_STORAGE_PATH;

disableEnvironmentProxies();

// Inside jest, clean up as soon as the test file is done (hooks registered at import time
// belong to the file's root describe block); elsewhere when the process exits.
const jestAfterAll = (globalThis as { afterAll?: (fn: () => void) => void }).afterAll;
if (typeof jestAfterAll === 'function') {
	jestAfterAll(cleanupEngineTempRoot);
} else {
	process.once('exit', cleanupEngineTempRoot);
}
