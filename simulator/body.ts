/**
 * Request body reading: JSON, application/x-www-form-urlencoded (buffered, bounded) and
 * multipart/form-data (streamed; file parts hashed while streaming and stored via BlobStore).
 * The body is always read to its end (so the client always gets the answer), even when it is
 * malformed or too large; the content of too large files is dropped while draining.
 */
import { IncomingMessage } from 'http';
import { Readable } from 'stream';
import { BlobSink, BlobStore } from './blob';
import { getBoundary, MultipartError, MultipartParser, PartInfo, PartSink } from './multipart';
import { pacedRequest } from './pace';
import { BodyPace } from './types';
import { addField, mimeOf, paramsToObject } from './util';

export interface ParsedFile {
	field: string;
	filename: string;
	contentType: string;
	size: number;
	sha256: string;
	sink: BlobSink;
	exceeded: boolean;
	/** undefined = valid or not checked (see csvChecked) */
	csvError?: string;
	csvChecked: boolean;
}

export interface BodyError {
	status: 400 | 413;
	message: string;
}

export interface ParsedBody {
	kind: 'none' | 'json' | 'urlencoded' | 'multipart' | 'other';
	mime: string;
	size: number;
	json?: unknown;
	form?: Record<string, string | string[]>;
	fields?: Record<string, string | string[]>;
	files?: ParsedFile[];
	raw?: Buffer;
	error?: BodyError;
	/** the client went away before the body ended */
	aborted?: boolean;
}

export interface ReadBodyOptions {
	store: BlobStore;
	/** keep file contents (false: hash/count only) */
	storeFiles: boolean;
	maxFileBytes: number;
	/** limit of buffered (JSON / urlencoded / other) bodies */
	maxBufferedBytes?: number;
	/** limit of one multipart text field */
	maxFieldBytes?: number;
	/** fault rule `requestBody`: how the body is read */
	pace?: BodyPace;
}

const CSV_MIMES = new Set(['text/csv', 'application/csv', 'text/x-csv', 'application/vnd.ms-excel.csv']);

export function isCsvCandidate(filename: string, contentType: string | undefined): boolean {
	return /\.csv$/i.test(filename) || CSV_MIMES.has(mimeOf(contentType));
}

export function emptyBody(): ParsedBody {
	return { kind: 'none', mime: '', size: 0 };
}

/**
 * Reads and discards the rest of the request (from `source`: the request, or its paced reader).
 * Resolves with the byte count and whether it ended normally.
 */
export function drain(req: IncomingMessage, onChunk?: (c: Buffer) => void, source: Readable = req): Promise<{ size: number; aborted: boolean }> {
	return new Promise((resolve) => {
		let size = 0;
		if (source.readableEnded) {
			resolve({ size, aborted: false });
			return;
		}
		const done = (aborted: boolean): void => {
			source.off('data', onData);
			source.off('end', onEnd);
			source.off('close', onClose);
			source.off('error', onError);
			resolve({ size, aborted });
		};
		const onData = (c: Buffer): void => {
			size += c.length;
			onChunk?.(c);
		};
		const onEnd = (): void => done(false);
		// a paced reader closes early when the client went away (pace.ts)
		const onClose = (): void => done(source === req ? !req.complete : !source.readableEnded);
		const onError = (): void => done(true);
		source.on('data', onData);
		source.on('end', onEnd);
		source.on('close', onClose);
		source.on('error', onError);
		source.resume();
	});
}

export async function readBody(req: IncomingMessage, opts: ReadBodyOptions): Promise<ParsedBody> {
	const ct = req.headers['content-type'];
	const mime = mimeOf(ct);
	const maxBuffered = opts.maxBufferedBytes ?? 16 * 1024 * 1024;
	const source = opts.pace ? pacedRequest(req, opts.pace) : req;
	if (mime === 'multipart/form-data') return readMultipart(req, source, ct ?? '', opts);

	const chunks: Buffer[] = [];
	let buffered = 0;
	let tooLarge = false;
	const { size, aborted } = await drain(
		req,
		(c) => {
			if (tooLarge) return;
			buffered += c.length;
			if (buffered > maxBuffered) {
				tooLarge = true;
				chunks.length = 0;
			} else chunks.push(c);
		},
		source,
	);
	const body: ParsedBody = { kind: size === 0 ? 'none' : 'other', mime, size, aborted };
	if (size === 0) return body;
	if (tooLarge) {
		body.error = { status: 413, message: `Request body too large (max ${maxBuffered} bytes)` };
		return body;
	}
	const raw = Buffer.concat(chunks);
	body.raw = raw;
	const text = raw.toString('utf8');
	if (mime === 'application/json' || mime.endsWith('+json')) {
		body.kind = 'json';
		try {
			body.json = JSON.parse(text);
		} catch (e) {
			body.error = { status: 400, message: `Invalid JSON body: ${(e as Error).message}` };
		}
	} else if (mime === 'application/x-www-form-urlencoded') {
		body.kind = 'urlencoded';
		body.form = paramsToObject(new URLSearchParams(text));
	} else if (mime === '') {
		// no content type: take JSON when it parses (documented leniency)
		try {
			body.json = JSON.parse(text);
			body.kind = 'json';
		} catch {
			// leave as 'other'
		}
	}
	return body;
}

class FieldSink implements PartSink {
	private chunks: Buffer[] = [];
	size = 0;
	constructor(
		private readonly name: string,
		private readonly fields: Record<string, string | string[]>,
		private readonly max: number,
	) {}
	write(chunk: Buffer): void {
		this.size += chunk.length;
		if (this.size > this.max) throw new MultipartError(`Multipart field "${this.name}" too large (max ${this.max} bytes)`, 413);
		this.chunks.push(chunk);
	}
	end(): void {
		addField(this.fields, this.name, Buffer.concat(this.chunks).toString('utf8'));
	}
}

async function readMultipart(req: IncomingMessage, source: Readable, contentType: string, opts: ReadBodyOptions): Promise<ParsedBody> {
	const boundary = getBoundary(contentType);
	const body: ParsedBody = { kind: 'multipart', mime: 'multipart/form-data', size: 0, fields: {}, files: [] };
	if (!boundary) {
		const d = await drain(req, undefined, source);
		body.size = d.size;
		body.aborted = d.aborted;
		body.error = { status: 400, message: 'multipart/form-data without boundary parameter' };
		return body;
	}
	const fields = body.fields as Record<string, string | string[]>;
	const files = body.files as ParsedFile[];
	const sinks: Array<{ info: PartInfo; sink: BlobSink }> = [];
	const parser = new MultipartParser(boundary, (info) => {
		if (info.filename === undefined) return new FieldSink(info.name, fields, opts.maxFieldBytes ?? 1024 * 1024);
		const csv = isCsvCandidate(info.filename, info.contentType);
		const sink = opts.store.createSink({ discard: !opts.storeFiles, maxBytes: opts.maxFileBytes, csv });
		sinks.push({ info, sink });
		return sink;
	});

	const result = await new Promise<{ error?: Error; aborted: boolean }>((resolve) => {
		let settled = false;
		const finish = (r: { error?: Error; aborted: boolean }): void => {
			if (settled) return;
			settled = true;
			resolve(r);
		};
		parser.on('finish', () => finish({ aborted: false }));
		parser.on('error', (e: Error) => {
			source.unpipe(parser);
			// keep reading so the client gets the error answer
			void drain(req, (c) => (parser.bytes += c.length), source).then((d) => finish({ error: e, aborted: d.aborted }));
		});
		req.on('aborted', () => finish({ aborted: true }));
		req.on('close', () => {
			if (!req.complete) finish({ aborted: true });
		});
		if (source !== req) {
			source.on('close', () => {
				if (!source.readableEnded) finish({ aborted: true });
			});
		}
		source.pipe(parser);
	});

	body.size = parser.bytes;
	body.aborted = result.aborted;
	for (const { info, sink } of sinks) {
		files.push({
			field: info.name,
			filename: info.filename ?? '',
			contentType: info.contentType ?? 'application/octet-stream',
			size: sink.size,
			sha256: sink.sha256,
			sink,
			exceeded: sink.exceeded,
			csvError: sink.csvError,
			csvChecked: isCsvCandidate(info.filename ?? '', info.contentType),
		});
	}
	if (result.error) {
		const status = result.error instanceof MultipartError && result.error.status === 413 ? 413 : 400;
		body.error = { status, message: result.error.message };
		for (const f of files) f.sink.abort();
	} else if (files.some((f) => f.exceeded)) {
		body.error = { status: 413, message: `File too large (max ${opts.maxFileBytes} bytes)` };
		for (const f of files) f.sink.abort();
	}
	if (result.aborted) for (const f of files) f.sink.abort();
	return body;
}
