/** /proc helpers (Linux; no dependency on procps, which minimal images lack). */
import * as fs from 'node:fs';

interface ProcInfo {
	pid: number;
	comm: string;
	state: string;
	ppid: number;
	pgid: number;
}

export function readProc(pid: number): ProcInfo | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		// comm may contain spaces and parentheses: it ends at the last ')'
		const close = stat.lastIndexOf(')');
		const fields = stat.slice(close + 2).split(' ');
		return {
			pid,
			comm: stat.slice(stat.indexOf('(') + 1, close),
			state: fields[0],
			ppid: Number(fields[1]),
			pgid: Number(fields[2]),
		};
	} catch {
		return undefined;
	}
}

/** Live (non-zombie) processes. */
export function listProcesses(): ProcInfo[] {
	let names: string[];
	try {
		names = fs.readdirSync('/proc');
	} catch {
		return [];
	}
	const result: ProcInfo[] = [];
	for (const name of names) {
		if (!/^\d+$/.test(name)) continue;
		const info = readProc(Number(name));
		if (info && info.state !== 'Z') result.push(info);
	}
	return result;
}

/** PIDs of live processes in a process group (e.g. postgres backends, nginx workers). */
export function processGroupPids(pgid: number): number[] {
	return listProcesses()
		.filter((p) => p.pgid === pgid)
		.map((p) => p.pid);
}

/**
 * A server's processes: its group plus all descendants (postgres children call setsid(), so
 * they are outside the postmaster's group).
 */
export function processTreePids(pid: number): number[] {
	const all = listProcesses();
	const found = new Set(all.filter((p) => p.pgid === pid || p.pid === pid).map((p) => p.pid));
	for (let grew = true; grew; ) {
		grew = false;
		for (const p of all) {
			if (!found.has(p.pid) && found.has(p.ppid)) {
				found.add(p.pid);
				grew = true;
			}
		}
	}
	return [...found];
}

export function pidsByName(comm: string): number[] {
	return listProcesses()
		.filter((p) => p.comm === comm)
		.map((p) => p.pid);
}
