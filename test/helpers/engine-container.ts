/**
 * Dependency-injection setup that n8n-core needs at run time.
 *
 * n8n-core resolves a few services lazily through `Container.get(...)` while a workflow
 * runs (BinaryDataService for prepareBinaryData/getBinaryStream, InstanceSettings and
 * Cipher for credentials, Logger, ErrorReporter, ...). They are constructed the way n8n
 * constructs them: by the DI container from @n8n/config classes that read the environment
 * prepared in `engine-env.ts` (user folder in a temp dir, filesystem binary mode available).
 */
import 'reflect-metadata';
import './engine-env';

import { Container } from '@n8n/di';
import { BinaryDataConfig, BinaryDataService, InstanceSettings } from 'n8n-core';
// Not re-exported by n8n-core's index; created by the DI container for every node context.
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';

/** n8n's binary data modes supported by the test bed. */
export type BinaryMode = 'default' | 'filesystem';

let initPromise: Promise<void> | undefined;
let currentMode: BinaryMode | undefined;

/** Creates InstanceSettings and an initialised BinaryDataService in the DI container (once). */
export async function initEngineContainer(): Promise<void> {
	initPromise ??= (async () => {
		// Writes `<N8N_USER_FOLDER>/.n8n/config` with the encryption key (used by Cipher).
		Container.get(InstanceSettings);
		const config = Container.get(BinaryDataConfig);
		await Container.get(BinaryDataService).init();
		currentMode = config.mode === 'default' ? 'default' : 'filesystem';
	})();
	await initPromise;
}

/**
 * Switches n8n's binary data mode for the next executions.
 *
 * `filesystem`: binaries are written below `<N8N_USER_FOLDER>/.n8n/binaryData` and carry an
 * `id` (`filesystem-v2:workflows/...`), nodes can stream them. `default`: binaries are kept
 * inline as base64 in `binary.data`. The filesystem manager stays registered in both modes,
 * so ids created earlier remain readable. The mode is process-wide: do not run executions
 * with different modes concurrently.
 */
export async function useBinaryDataMode(mode: BinaryMode): Promise<void> {
	await initEngineContainer();
	if (currentMode === mode) return;
	const config = Container.get(BinaryDataConfig);
	config.mode = mode;
	await Container.get(BinaryDataService).init();
	currentMode = mode;
}

export function getBinaryDataService(): BinaryDataService {
	return Container.get(BinaryDataService);
}

export function getInstanceSettings(): InstanceSettings {
	return Container.get(InstanceSettings);
}

/**
 * Stops what n8n-core leaves running in the background so jest can exit: every node context
 * gets SSH tunnel helpers, whose DI-created SSHClientsManager starts a 60 s cleanup interval
 * (n8n clears it on process exit only).
 */
export function shutdownEngineContainer(): void {
	if (initPromise === undefined) return;
	Container.get(SSHClientsManager).onShutdown();
}

const jestAfterAll = (globalThis as { afterAll?: (fn: () => void) => void }).afterAll;
if (typeof jestAfterAll === 'function') {
	jestAfterAll(shutdownEngineContainer);
}
