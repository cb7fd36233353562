import { createHash, randomBytes, randomUUID } from 'crypto';

export function delay(ms: number): Promise<void> {
	if (!(ms > 0)) return Promise.resolve();
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** 24 hex characters, MongoDB ObjectId-like (the bot API's `_id` values look like that). */
export function objectId(): string {
	return Math.floor(Date.now() / 1000).toString(16).padStart(8, '0') + randomBytes(8).toString('hex');
}

export function uuid(): string {
	return randomUUID();
}

export function sha256Hex(data: Buffer | string): string {
	return createHash('sha256').update(data).digest('hex');
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function nowIso(): string {
	return new Date().toISOString();
}

/** Number of user-perceived characters (code points). */
export function charLength(s: string): number {
	let n = 0;
	for (const _ of s) n++;
	return n;
}

/** ASCII fallback of a file name for the plain `filename=` parameter. */
export function asciiFallback(filename: string): string {
	const stripped = filename.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
	const ascii = stripped.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
	return ascii.length ? ascii : 'download';
}

/** RFC 5987 / RFC 6266 encoding of a UTF-8 value (attr-char kept, everything else percent-encoded). */
export function rfc5987Encode(value: string): string {
	return encodeURIComponent(value).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

export function contentDispositionAttachment(filename: string): string {
	return `attachment; filename="${asciiFallback(filename)}"; filename*=UTF-8''${rfc5987Encode(filename)}`;
}

/** `YYYY-MM-DD` and a real calendar date. */
export function isDateOnly(s: unknown): boolean {
	if (typeof s !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
	const d = new Date(s + 'T00:00:00Z');
	return !isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** ISO 8601 date-time with a time zone designator (`Z` or an offset), e.g. 2025-01-31T12:00:00Z. */
export function isIsoDateTime(s: unknown): boolean {
	if (typeof s !== 'string') return false;
	const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(s);
	if (!m) return false;
	if (!isDateOnly(m[1])) return false;
	if (Number(m[2]) > 23 || Number(m[3]) > 59 || (m[4] !== undefined && Number(m[4]) > 59)) return false;
	return !isNaN(Date.parse(s));
}

/** Accepts a timestamp: ISO 8601 date or date-time string, or epoch milliseconds. */
export function isTimestamp(v: unknown): boolean {
	if (typeof v === 'number') return Number.isFinite(v) && v >= 0;
	return isDateOnly(v) || isIsoDateTime(v);
}

export function firstString(v: unknown): string | undefined {
	if (typeof v === 'string') return v;
	if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
	return undefined;
}

/** Turns URLSearchParams into an object; repeated keys and keys ending in `[]` become arrays. */
export function paramsToObject(params: URLSearchParams): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = {};
	for (const [k, v] of params) addField(out, k, v);
	return out;
}

export function addField(out: Record<string, string | string[]>, key: string, value: string): void {
	const prev = out[key];
	if (prev === undefined) out[key] = key.endsWith('[]') ? [value] : value;
	else if (Array.isArray(prev)) prev.push(value);
	else out[key] = [prev, value];
}

export function normalizeAddress(addr: string | undefined): string {
	if (!addr) return '';
	const a = addr.trim();
	return a.startsWith('::ffff:') ? a.slice(7) : a;
}

export function mimeOf(contentType: string | undefined): string {
	return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
