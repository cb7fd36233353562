/** A lock folder in the cache: two runs must not install into the same folder at once. */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { isProcessAlive, sleep } from '../proc';
import type { Logger } from './logger';
import { cacheRoot } from './paths';

export async function withLock<T>(name: string, log: Logger, fn: () => Promise<T>): Promise<T> {
	fs.mkdirSync(cacheRoot(), { recursive: true });
	const lockDir = path.join(cacheRoot(), `${name}.lock`);
	const pidFile = path.join(lockDir, 'pid');
	let announced = false;
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(pidFile, String(process.pid));
			break;
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
			let owner = NaN;
			try {
				owner = Number(fs.readFileSync(pidFile, 'utf8'));
			} catch {
				// being created or abandoned
			}
			const ageMs = Date.now() - fs.statSync(lockDir).mtimeMs;
			if ((Number.isFinite(owner) && !isProcessAlive(owner)) || (!Number.isFinite(owner) && ageMs > 10_000)) {
				log(`  removing stale lock ${lockDir}`);
				fs.rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			if (!announced) {
				log(`  waiting for another process (pid ${owner}) installing ${name} ...`);
				announced = true;
			}
			await sleep(2000);
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}
