/**
 * Small streaming multipart/form-data parser (RFC 7578).
 *
 * - Scans for the boundary across chunk edges, never buffering more than one chunk plus
 *   (delimiter length - 1) bytes of body data (part headers are limited to 16 KiB).
 * - Part headers: Content-Disposition `name`, `filename`, `filename*` (RFC 5987, preferred),
 *   Content-Type. Header bytes are decoded as UTF-8 (what browsers and undici send).
 * - Backpressure: the Writable callback waits for the part sink (e.g. a file write stream).
 */
import { Writable } from 'stream';

export interface PartInfo {
	name: string;
	filename?: string;
	contentType?: string;
	headers: Record<string, string>;
}

export interface PartSink {
	write(chunk: Buffer): void | Promise<void>;
	end(): void | Promise<void>;
}

export class MultipartError extends Error {
	constructor(message: string, readonly status: number = 400) {
		super(message);
		this.name = 'MultipartError';
	}
}

export interface MultipartLimits {
	maxParts: number;
	maxHeaderBytes: number;
}

export function getBoundary(contentType: string | undefined): string | undefined {
	if (!contentType) return undefined;
	const { params } = parseHeaderValue(contentType);
	const b = params.boundary;
	if (!b || b.length > 200) return undefined;
	return b;
}

/** Parses `type; a=b; c="d"` header values (quoted strings with backslash escapes of `"` and `\`). */
export function parseHeaderValue(value: string): { type: string; params: Record<string, string> } {
	const params: Record<string, string> = {};
	let i = value.indexOf(';');
	const type = (i < 0 ? value : value.slice(0, i)).trim();
	while (i >= 0 && i < value.length) {
		i++; // skip ';'
		let key = '';
		while (i < value.length && value[i] !== '=' && value[i] !== ';') key += value[i++];
		key = key.trim().toLowerCase();
		let val = '';
		if (value[i] === '=') {
			i++;
			while (value[i] === ' ' || value[i] === '\t') i++;
			if (value[i] === '"') {
				i++;
				while (i < value.length && value[i] !== '"') {
					if (value[i] === '\\' && (value[i + 1] === '"' || value[i + 1] === '\\')) i++;
					val += value[i++];
				}
				i++; // closing quote
				while (i < value.length && value[i] !== ';') i++;
			} else {
				while (i < value.length && value[i] !== ';') val += value[i++];
				val = val.trim();
			}
		}
		if (key) params[key] = val;
		if (i >= value.length) break;
	}
	return { type, params };
}

/** Decodes an RFC 5987 ext-value such as `UTF-8''na%C3%AFve.txt`. */
export function decodeRfc5987(v: string): string {
	const m = /^([A-Za-z0-9!#$%&+^_`{}~-]+)'([^']*)'(.*)$/.exec(v);
	if (!m) return v;
	const charset = m[1].toLowerCase();
	const encoded = m[3];
	if (charset === 'utf-8' || charset === 'utf8') {
		try {
			return decodeURIComponent(encoded);
		} catch {
			return encoded;
		}
	}
	// ISO-8859-1 (or anything else): percent-decode bytes as latin1
	const bytes: number[] = [];
	for (let i = 0; i < encoded.length; i++) {
		if (encoded[i] === '%' && /^[0-9a-fA-F]{2}$/.test(encoded.slice(i + 1, i + 3))) {
			bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
			i += 2;
		} else bytes.push(encoded.charCodeAt(i) & 0xff);
	}
	return Buffer.from(bytes).toString('latin1');
}

export function parsePartHeaders(raw: Buffer): PartInfo {
	const headers: Record<string, string> = {};
	const text = raw.toString('utf8');
	for (const line of text.split('\r\n')) {
		if (!line) continue;
		const idx = line.indexOf(':');
		if (idx <= 0) throw new MultipartError('Malformed multipart part header');
		headers[line.slice(0, idx).trim().toLowerCase()] = line.slice(idx + 1).trim();
	}
	const cd = headers['content-disposition'];
	if (!cd) throw new MultipartError('Multipart part without Content-Disposition header');
	const { type, params } = parseHeaderValue(cd);
	if (type.toLowerCase() !== 'form-data') throw new MultipartError(`Unsupported Content-Disposition type "${type}" in multipart part`);
	if (params.name === undefined) throw new MultipartError('Multipart part without a name');
	let filename: string | undefined;
	if (params['filename*'] !== undefined) filename = decodeRfc5987(params['filename*']);
	else if (params.filename !== undefined) filename = params.filename;
	return { name: params.name, filename, contentType: headers['content-type'], headers };
}

type ParseEvent = { t: 'part'; info: PartInfo } | { t: 'data'; buf: Buffer } | { t: 'end' };

const CRLF = Buffer.from('\r\n');
const CRLFCRLF = Buffer.from('\r\n\r\n');

export class MultipartParser extends Writable {
	/** bytes received */
	bytes = 0;
	parts = 0;
	private state: 'preamble' | 'afterBoundary' | 'headers' | 'body' | 'done' = 'preamble';
	// A virtual CRLF is prepended so that the first boundary matches `\r\n--boundary` like all others.
	private carry: Buffer = Buffer.from(CRLF);
	private readonly delimiter: Buffer;
	private sink?: PartSink;
	private readonly limits: MultipartLimits;

	constructor(
		boundary: string,
		private readonly onPart: (info: PartInfo) => PartSink,
		limits?: Partial<MultipartLimits>,
	) {
		super();
		this.delimiter = Buffer.from('\r\n--' + boundary, 'latin1');
		this.limits = { maxParts: 1000, maxHeaderBytes: 16 * 1024, ...limits };
	}

	get finished(): boolean {
		return this.state === 'done';
	}

	override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
		this.bytes += chunk.length;
		let events: ParseEvent[];
		try {
			events = this.parse(chunk);
		} catch (e) {
			cb(e as Error);
			return;
		}
		this.dispatch(events).then(() => cb(), (e: Error) => cb(e));
	}

	override _final(cb: (err?: Error | null) => void): void {
		if (this.state !== 'done') cb(new MultipartError('Unexpected end of multipart body (closing boundary missing)'));
		else cb();
	}

	private async dispatch(events: ParseEvent[]): Promise<void> {
		for (const ev of events) {
			if (ev.t === 'part') {
				this.parts++;
				if (this.parts > this.limits.maxParts) throw new MultipartError(`Too many multipart parts (max ${this.limits.maxParts})`);
				this.sink = this.onPart(ev.info);
			} else if (ev.t === 'data') {
				const r = this.sink?.write(ev.buf);
				if (r) await r;
			} else {
				const r = this.sink?.end();
				this.sink = undefined;
				if (r) await r;
			}
		}
	}

	private parse(chunk: Buffer): ParseEvent[] {
		const events: ParseEvent[] = [];
		let buf = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
		const dl = this.delimiter.length;
		for (;;) {
			if (this.state === 'done') {
				buf = Buffer.alloc(0); // epilogue is ignored
				break;
			}
			if (this.state === 'preamble') {
				const idx = buf.indexOf(this.delimiter);
				if (idx < 0) {
					buf = buf.subarray(Math.max(0, buf.length - (dl - 1)));
					break;
				}
				buf = buf.subarray(idx + dl);
				this.state = 'afterBoundary';
				continue;
			}
			if (this.state === 'afterBoundary') {
				// `--` closes the body; otherwise optional whitespace then CRLF
				if (buf.length < 2) break;
				if (buf[0] === 0x2d && buf[1] === 0x2d) {
					this.state = 'done';
					continue;
				}
				let i = 0;
				while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x09)) i++;
				if (i > 256) throw new MultipartError('Malformed multipart boundary line');
				if (buf.length < i + 2) break;
				if (buf[i] !== 0x0d || buf[i + 1] !== 0x0a) throw new MultipartError('Malformed multipart boundary line');
				buf = buf.subarray(i + 2);
				this.state = 'headers';
				continue;
			}
			if (this.state === 'headers') {
				let headerEnd: number;
				let skip: number;
				if (buf.length >= 2 && buf[0] === 0x0d && buf[1] === 0x0a) {
					headerEnd = 0;
					skip = 2;
				} else {
					headerEnd = buf.indexOf(CRLFCRLF);
					skip = 4;
				}
				if (headerEnd < 0) {
					if (buf.length > this.limits.maxHeaderBytes) throw new MultipartError('Multipart part headers too large');
					break;
				}
				if (headerEnd > this.limits.maxHeaderBytes) throw new MultipartError('Multipart part headers too large');
				const info = parsePartHeaders(buf.subarray(0, headerEnd));
				buf = buf.subarray(headerEnd + skip);
				events.push({ t: 'part', info });
				this.state = 'body';
				continue;
			}
			// body
			const idx = buf.indexOf(this.delimiter);
			if (idx >= 0) {
				if (idx > 0) events.push({ t: 'data', buf: buf.subarray(0, idx) });
				events.push({ t: 'end' });
				buf = buf.subarray(idx + dl);
				this.state = 'afterBoundary';
				continue;
			}
			// keep the bytes that could be the start of a delimiter split across chunks
			let keepFrom = Math.max(0, buf.length - (dl - 1));
			const cr = buf.indexOf(0x0d, keepFrom);
			keepFrom = cr < 0 ? buf.length : cr;
			if (keepFrom > 0) events.push({ t: 'data', buf: buf.subarray(0, keepFrom) });
			buf = buf.subarray(keepFrom);
			break;
		}
		// copy the (small) carry so the big chunk can be garbage collected
		this.carry = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
		return events;
	}
}
