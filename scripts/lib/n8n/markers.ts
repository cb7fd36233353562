/** Marker files that say an install step completed, and how they are read. */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';

export const MARKER = '.install-complete.json';
export const NPM_DONE = '.npm-install-done.json';

export function readJson<T>(file: string): T | undefined {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
	} catch {
		return undefined;
	}
}

export function sha256(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}
