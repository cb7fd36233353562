import { LogFilter, LoggedRequest, RequestLogApi } from './types';

export class RequestLog implements RequestLogApi {
	private entries: LoggedRequest[] = [];
	private seq = 0;

	constructor(private readonly maxEntries = 10000) {}

	/** Creates and stores an entry (status 0 until answered). */
	start(e: Omit<LoggedRequest, 'seq' | 'time' | 'status' | 'bodySize'>): LoggedRequest {
		const entry: LoggedRequest = { seq: ++this.seq, time: Date.now(), ...e, bodySize: 0, status: 0 };
		this.entries.push(entry);
		if (this.entries.length > this.maxEntries) this.entries.splice(0, this.entries.length - this.maxEntries);
		return entry;
	}

	all(): LoggedRequest[] {
		return [...this.entries];
	}

	clear(): void {
		this.entries = [];
	}

	since(seq: number): LoggedRequest[] {
		return this.entries.filter((e) => e.seq > seq);
	}

	/** The last assigned sequence number. */
	get lastSeq(): number {
		return this.seq;
	}

	find(filter: LogFilter): LoggedRequest[] {
		return this.entries.filter((e) => matches(e, filter));
	}
}

export function matchPath(p: string | RegExp | undefined, path: string): boolean {
	if (p === undefined) return true;
	if (typeof p === 'string') return p === path;
	p.lastIndex = 0;
	return p.test(path);
}

function matches(e: LoggedRequest, f: LogFilter): boolean {
	if (f.method && f.method.toUpperCase() !== e.method) return false;
	if (f.interface && f.interface !== e.interface) return false;
	return matchPath(f.path, e.path);
}
