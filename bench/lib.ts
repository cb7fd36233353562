/** Small helpers shared by the benchmarks: statistics, process memory, flatted execution data. */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

import type { N8nInstall } from '../scripts/lib/n8n';

export const log = (m: string) => process.stdout.write(`${m}\n`);

export function median(values: number[]): number {
	const s = [...values].sort((a, b) => a - b);
	const m = Math.floor(s.length / 2);
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** "median (min–max, ±spread% of the median)" */
export function stat(values: number[], digits = 1, unit = ''): string {
	if (!values.length) return 'n/a';
	const med = median(values);
	const min = Math.min(...values);
	const max = Math.max(...values);
	const spread = med === 0 ? 0 : ((max - min) / 2 / med) * 100;
	return `${med.toFixed(digits)}${unit} (${min.toFixed(digits)}–${max.toFixed(digits)}, ±${spread.toFixed(0)}%)`;
}

export const MiB = 1024 * 1024;

/** Resident set size and its high-water mark of a process, in bytes (Linux /proc). */
export function memoryOf(pid: number): { rss: number; peak: number } {
	const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
	const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
	return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/** CPU time a process has used so far (user + system), in seconds (Linux /proc; USER_HZ is 100). */
export function cpuSecondsOf(pid: number): number {
	const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
	// after "pid (comm) ": state is field 3, utime 14 and stime 15
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resets a process's peak RSS (VmHWM) to its current RSS: `5` to /proc/<pid>/clear_refs. */
export function resetPeak(pid: number): void {
	fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** n8n 1.x answers an execution's `data` in flatted form; parse it with n8n's own copy of flatted. */
export function parseExecutionData(inst: N8nInstall, data: unknown): unknown {
	if (typeof data !== 'string') return data;
	const req = createRequire(path.join(path.dirname(inst.n8nBin), '..', 'package.json'));
	const flatted = req('flatted') as { parse(text: string): unknown };
	return flatted.parse(data);
}

type RunEntry = { executionTime?: number; data?: { main?: Array<Array<{ json?: Record<string, unknown>; binary?: Record<string, Record<string, unknown>> }> | null> } };

/** The first run of a node in an execution's data (flatted or not). */
export function nodeRun(inst: N8nInstall, execution: { data?: unknown }, nodeName: string): RunEntry | undefined {
	const data = parseExecutionData(inst, execution.data) as { resultData?: { runData?: Record<string, RunEntry[]> } } | undefined;
	return data?.resultData?.runData?.[nodeName]?.[0];
}

export async function pool<T>(count: number, inFlight: number, task: (index: number) => Promise<T>): Promise<T[]> {
	const results: T[] = new Array<T>(count);
	let next = 0;
	const worker = async () => {
		for (;;) {
			const i = next++;
			if (i >= count) return;
			results[i] = await task(i);
		}
	};
	await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
	return results;
}
