/**
 * Every test starts as in a freshly started n8n process: no bot token, trigger memory or signing
 * secret held from an earlier test (the nodes keep them process-wide, see
 * nodes/shared/processMemory.ts). The same module instance the nodes use is reset, through the
 * package's one test entry: n8n-core's loader requires it from dist/ through this test file's
 * module registry.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { findPackageRoot } from './engine-types';

interface ProcessMemory {
	forgetProcessMemoryForTests?: () => void;
}

/** Forgets what the nodes hold in this process (bot tokens, trigger memory, secrets), as a restart of n8n would. */
export function resetProcessState(): void {
	const file = path.join(findPackageRoot(), 'dist', 'nodes', 'shared', 'processMemory.js');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	if (fs.existsSync(file)) (require(file) as ProcessMemory).forgetProcessMemoryForTests?.();
}

if (typeof beforeEach === 'function') beforeEach(resetProcessState);
