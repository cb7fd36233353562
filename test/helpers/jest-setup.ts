/**
 * Every test starts as in a freshly started n8n process: no bot token and no trigger memory held
 * from an earlier test (both are kept process-wide by the nodes, see nodes/shared/transport/token.ts and
 * nodes/WorkplaceTrigger/dedupe.ts). The same module instances the nodes use are reset: n8n-core's
 * loader requires them from dist/ through this test file's module registry.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { findPackageRoot } from './engine-types';

interface ProcessState {
	resetSharedTokens?: () => void;
	resetEventKeyCache?: () => void;
}

function distModule(relative: string): ProcessState {
	const file = path.join(findPackageRoot(), 'dist', relative);
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return fs.existsSync(file) ? (require(file) as ProcessState) : {};
}

/** Forgets the bot tokens and trigger memory this process holds, as a restart of n8n would. */
export function resetProcessState(): void {
	distModule('nodes/shared/transport/token.js').resetSharedTokens?.();
	distModule('nodes/WorkplaceTrigger/dedupe.js').resetEventKeyCache?.();
}

if (typeof beforeEach === 'function') beforeEach(resetProcessState);
