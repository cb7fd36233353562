/** Knowledge base API ({knowledge_url} = {base_url}/api/v1). */
import { Ctx, RouteDef, AuthFailure } from '../context';
import { KNOWLEDGE_ERRORS, knowledgeError, KnowledgeValidationItem } from '../errors';
import { ParsedFile } from '../body';
import { KnowledgeBase } from '../state';
import { charLength, contentDispositionAttachment, isPlainObject, normalizeAddress } from '../util';

const P = '/api/v1';

export const PAGE_SIZE_DEFAULT = 10;
export const PAGE_SIZE_MAX = 100;
const NAME_MAX = 255;
const DESCRIPTION_MAX = 2000;

/** Allowed extensions and the MIME type stored for them. */
export const KNOWLEDGE_FILE_TYPES: Record<string, string> = {
	pdf: 'application/pdf',
	txt: 'text/plain',
	md: 'text/markdown',
	markdown: 'text/markdown',
	csv: 'text/csv',
	json: 'application/json',
	html: 'text/html',
	htm: 'text/html',
	doc: 'application/msword',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	xls: 'application/vnd.ms-excel',
	xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	ppt: 'application/vnd.ms-powerpoint',
	pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};
const ALLOWED_MIMES = new Set([...Object.values(KNOWLEDGE_FILE_TYPES), 'text/x-markdown', 'application/csv', 'text/x-csv']);
const CSV_MIMES = new Set(['text/csv', 'application/csv', 'text/x-csv']);

function auth(ctx: Ctx): AuthFailure | undefined {
	const key = ctx.header('x-api-key');
	const fail = (message: string): AuthFailure => ({ status: 401, body: knowledgeError(401, message) });
	if (!key) return fail('Missing API key (header x-api-key)');
	if (key !== ctx.config.credentials.knowledgeApiKey) return fail('Invalid API key');
	const allowed = ctx.config.allowedClientAddresses;
	if (allowed) {
		const fwd = ctx.header('x-forwarded-for');
		const addr = normalizeAddress(fwd ? fwd.split(',')[0] : ctx.req.socket.remoteAddress);
		if (!allowed.map(normalizeAddress).includes(addr)) return fail(`Client address ${addr} is not allowed`);
	}
	return undefined;
}

// ---------------------------------------------------------------- helpers

function kbRecord(ctx: Ctx, kb: KnowledgeBase): Record<string, unknown> {
	return { ...kb, fileCount: ctx.state.fileCount(kb.id) };
}

function parseIntParam(ctx: Ctx, name: string, min: number, max: number | undefined, errors: KnowledgeValidationItem[]): number | undefined {
	const raw = ctx.entry.query[name];
	if (raw === undefined) return undefined;
	if (Array.isArray(raw) || !/^-?\d+$/.test(raw.trim())) {
		errors.push({ type: 'isInt', field: name, value: raw, message: `${name} must be an integer number` });
		return undefined;
	}
	const n = Number(raw);
	if (n < min) errors.push({ type: 'min', field: name, value: raw, message: `${name} must not be less than ${min}` });
	else if (max !== undefined && n > max) errors.push({ type: 'max', field: name, value: raw, message: `${name} must not be greater than ${max}` });
	return n;
}

/** page (>= 1, default 1) and pageSize (1..100, default 10; `limit` is accepted as an alias). */
async function pagination(ctx: Ctx): Promise<{ page: number; pageSize: number } | undefined> {
	const errors: KnowledgeValidationItem[] = [];
	const page = parseIntParam(ctx, 'page', 1, undefined, errors) ?? 1;
	let pageSize = parseIntParam(ctx, 'pageSize', 1, PAGE_SIZE_MAX, errors);
	if (ctx.entry.query.pageSize === undefined) pageSize = parseIntParam(ctx, 'limit', 1, PAGE_SIZE_MAX, errors);
	if (errors.length) {
		await ctx.json(422, KNOWLEDGE_ERRORS.validation(errors));
		return undefined;
	}
	return { page, pageSize: pageSize ?? PAGE_SIZE_DEFAULT };
}

function envelope<T>(items: T[], page: number, pageSize: number): Record<string, unknown> {
	const total = items.length;
	return {
		data: items.slice((page - 1) * pageSize, page * pageSize),
		total,
		pagination: { page, pageSize, totalPages: Math.ceil(total / pageSize) },
	};
}

function searchFilter<T extends { name: string }>(ctx: Ctx, items: T[]): T[] {
	const s = ctx.q('search');
	if (!s) return items;
	const needle = s.toLowerCase();
	return items.filter((i) => i.name.toLowerCase().includes(needle));
}

async function requireKb(ctx: Ctx): Promise<KnowledgeBase | undefined> {
	const kb = ctx.state.knowledgeBase(ctx.params.id);
	if (!kb) await ctx.json(404, KNOWLEDGE_ERRORS.knowledgeNotFound(ctx.params.id));
	return kb;
}

/** Validates create (name required) / update (all optional, at least one) params. */
async function kbParams(ctx: Ctx, create: boolean): Promise<{ name?: string; description?: string | null; metadata?: Record<string, unknown> } | undefined> {
	const b = ctx.body;
	if (b.kind !== 'json' && b.kind !== 'urlencoded' && b.kind !== 'none') {
		await ctx.json(415, knowledgeError(415, 'Content-Type must be application/json'));
		return undefined;
	}
	const body = ctx.bodyObject();
	if (!body) {
		await ctx.json(400, knowledgeError(400, 'Request body must be a JSON object'));
		return undefined;
	}
	const errors: KnowledgeValidationItem[] = [];
	const out: { name?: string; description?: string | null; metadata?: Record<string, unknown> } = {};
	for (const k of Object.keys(body)) {
		if (!['name', 'description', 'metadata'].includes(k)) errors.push({ type: 'whitelistValidation', field: k, value: body[k], message: `property ${k} should not exist` });
	}
	const name = body.name;
	if (name === undefined || name === null) {
		if (create) errors.push({ type: 'isNotEmpty', field: 'name', message: 'name should not be empty' });
	} else if (typeof name !== 'string') {
		errors.push({ type: 'isString', field: 'name', value: name, message: 'name must be a string' });
	} else if (!name.trim()) {
		errors.push({ type: 'isNotEmpty', field: 'name', value: name, message: 'name should not be empty' });
	} else if (charLength(name) > NAME_MAX) {
		errors.push({ type: 'maxLength', field: 'name', value: name, message: `name must be shorter than or equal to ${NAME_MAX} characters` });
	} else out.name = name;
	const d = body.description;
	if (d !== undefined) {
		if (d === null) out.description = null;
		else if (typeof d !== 'string') errors.push({ type: 'isString', field: 'description', value: d, message: 'description must be a string' });
		else if (charLength(d) > DESCRIPTION_MAX) errors.push({ type: 'maxLength', field: 'description', value: d, message: `description must be shorter than or equal to ${DESCRIPTION_MAX} characters` });
		else out.description = d;
	}
	const m = body.metadata;
	if (m !== undefined) {
		if (!isPlainObject(m)) errors.push({ type: 'isObject', field: 'metadata', value: m, message: 'metadata must be an object' });
		else out.metadata = m;
	}
	if (!create && !errors.length && Object.keys(body).length === 0) {
		errors.push({ type: 'isNotEmptyObject', field: 'body', message: 'at least one of name, description, metadata must be given' });
	}
	if (errors.length) {
		await ctx.json(422, KNOWLEDGE_ERRORS.validation(errors));
		return undefined;
	}
	return out;
}

function extensionOf(filename: string): string {
	const i = filename.lastIndexOf('.');
	return i > 0 || (i === 0 && filename.length > 1) ? filename.slice(i + 1).toLowerCase() : '';
}

/** Type check of an upload. Returns the stored MIME type or an error answer. */
export function knowledgeFileType(filename: string, contentType: string): { mimeType: string; csv: boolean } | { error: string } {
	const ext = extensionOf(filename);
	const partMime = contentType.split(';')[0].trim().toLowerCase();
	if (KNOWLEDGE_FILE_TYPES[ext]) {
		const mimeType = KNOWLEDGE_FILE_TYPES[ext];
		return { mimeType, csv: mimeType === 'text/csv' };
	}
	if (ALLOWED_MIMES.has(partMime)) {
		const mimeType = partMime === 'text/x-markdown' ? 'text/markdown' : CSV_MIMES.has(partMime) ? 'text/csv' : partMime;
		return { mimeType, csv: mimeType === 'text/csv' };
	}
	const shown = ext ? `.${ext}` : 'no extension';
	return {
		error: `Unsupported file type (${shown}, ${partMime || 'no content type'}). Supported: ${Object.keys(KNOWLEDGE_FILE_TYPES)
			.map((e) => '.' + e)
			.join(', ')}`,
	};
}

/** Common part of upload and replace: returns the file part and its metadata, or answers an error. */
async function uploadPart(ctx: Ctx): Promise<{ file: ParsedFile; mimeType: string; metadata: Record<string, string | string[]> } | undefined> {
	const field = ctx.config.uploadFieldName;
	const b = ctx.body;
	if (b.kind !== 'multipart') {
		await ctx.json(422, KNOWLEDGE_ERRORS.validation([{ type: 'isMultipart', field, message: 'request must be multipart/form-data with a file part' }]));
		return undefined;
	}
	const files = b.files ?? [];
	const mine = files.filter((f) => f.field === field);
	const others = files.filter((f) => f.field !== field);
	const errors: KnowledgeValidationItem[] = [];
	if (mine.length === 0) errors.push({ type: 'isNotEmpty', field, message: `${field} should not be empty (multipart file part "${field}")` });
	if (mine.length > 1) errors.push({ type: 'maxCount', field, message: `only one file may be uploaded per request (got ${mine.length})` });
	for (const o of others) errors.push({ type: 'unexpectedFile', field: o.field, value: o.filename, message: `unexpected file field ${o.field}` });
	if (errors.length) {
		await ctx.json(422, KNOWLEDGE_ERRORS.validation(errors));
		return undefined;
	}
	const file = mine[0];
	const t = knowledgeFileType(file.filename, file.contentType);
	if ('error' in t) {
		await ctx.json(400, KNOWLEDGE_ERRORS.unsupportedType(t.error));
		return undefined;
	}
	if (t.csv) {
		const reason = file.csvChecked ? file.csvError : 'CSV content could not be checked';
		if (reason) {
			await ctx.json(400, KNOWLEDGE_ERRORS.unsupportedCsv(`Unsupported CSV format: ${reason}`));
			return undefined;
		}
	}
	return { file, mimeType: t.mimeType, metadata: { ...(b.fields ?? {}) } };
}

// ---------------------------------------------------------------- handlers

async function createKb(ctx: Ctx): Promise<void> {
	const p = await kbParams(ctx, true);
	if (!p) return;
	const kb = ctx.state.addKnowledgeBase({ name: p.name as string, description: p.description ?? null, metadata: p.metadata });
	await ctx.json(201, kbRecord(ctx, kb));
}

async function listKb(ctx: Ctx): Promise<void> {
	const pg = await pagination(ctx);
	if (!pg) return;
	const items = searchFilter(ctx, ctx.state.knowledgeBases()).map((kb) => kbRecord(ctx, kb));
	await ctx.json(200, envelope(items, pg.page, pg.pageSize));
}

async function getKb(ctx: Ctx): Promise<void> {
	const kb = await requireKb(ctx);
	if (kb) await ctx.json(200, kbRecord(ctx, kb));
}

async function updateKb(ctx: Ctx): Promise<void> {
	if (!(await requireKb(ctx))) return;
	const p = await kbParams(ctx, false);
	if (!p) return;
	const kb = ctx.state.updateKnowledgeBase(ctx.params.id, p);
	if (!kb) return void (await ctx.json(404, KNOWLEDGE_ERRORS.knowledgeNotFound(ctx.params.id)));
	await ctx.json(200, kbRecord(ctx, kb));
}

async function deleteKb(ctx: Ctx): Promise<void> {
	if (!ctx.state.deleteKnowledgeBase(ctx.params.id)) return void (await ctx.json(404, KNOWLEDGE_ERRORS.knowledgeNotFound(ctx.params.id)));
	await ctx.empty(204);
}

async function uploadFile(ctx: Ctx): Promise<void> {
	if (!(await requireKb(ctx))) return;
	const u = await uploadPart(ctx);
	if (!u) return;
	const blob = u.file.sink.result();
	if (!blob) return void (await ctx.error(500, 'file content was not stored'));
	ctx.claim(blob);
	const rec = ctx.state.putKnowledgeFile(ctx.params.id, { name: u.file.filename, mimeType: u.mimeType, metadata: u.metadata }, blob);
	await ctx.json(201, rec);
}

async function listFiles(ctx: Ctx): Promise<void> {
	if (!(await requireKb(ctx))) return;
	const pg = await pagination(ctx);
	if (!pg) return;
	await ctx.json(200, envelope(searchFilter(ctx, ctx.state.knowledgeFiles(ctx.params.id)), pg.page, pg.pageSize));
}

async function requireFile(ctx: Ctx): Promise<boolean> {
	if (!(await requireKb(ctx))) return false;
	if (!ctx.state.knowledgeFile(ctx.params.id, ctx.params.fileId)) {
		await ctx.json(404, KNOWLEDGE_ERRORS.fileNotFound(ctx.params.fileId));
		return false;
	}
	return true;
}

async function getFile(ctx: Ctx): Promise<void> {
	if (!(await requireFile(ctx))) return;
	await ctx.json(200, ctx.state.knowledgeFile(ctx.params.id, ctx.params.fileId));
}

async function replaceFile(ctx: Ctx): Promise<void> {
	if (!(await requireFile(ctx))) return;
	const u = await uploadPart(ctx);
	if (!u) return;
	const blob = u.file.sink.result();
	if (!blob) return void (await ctx.error(500, 'file content was not stored'));
	if (!ctx.state.knowledgeFile(ctx.params.id, ctx.params.fileId)) return void (await ctx.json(404, KNOWLEDGE_ERRORS.fileNotFound(ctx.params.fileId)));
	ctx.claim(blob);
	const rec = ctx.state.putKnowledgeFile(ctx.params.id, { id: ctx.params.fileId, name: u.file.filename, mimeType: u.mimeType, metadata: u.metadata }, blob);
	await ctx.json(200, rec);
}

async function deleteFile(ctx: Ctx): Promise<void> {
	if (!(await requireFile(ctx))) return;
	ctx.state.deleteKnowledgeFile(ctx.params.id, ctx.params.fileId);
	await ctx.empty(204);
}

async function downloadFile(ctx: Ctx): Promise<void> {
	if (!(await requireFile(ctx))) return;
	const f = ctx.state.knowledgeFile(ctx.params.id, ctx.params.fileId);
	const blob = ctx.state.knowledgeFileBlob(ctx.params.id, ctx.params.fileId);
	if (!f || !blob) return void (await ctx.json(404, KNOWLEDGE_ERRORS.fileNotFound(ctx.params.fileId)));
	await ctx.stream(
		200,
		{
			'content-type': f.mimeType,
			'content-length': String(blob.size),
			'content-disposition': contentDispositionAttachment(f.name),
			etag: `"${f.sha256}"`,
			'x-content-sha256': f.sha256,
		},
		blob.createReadStream(),
	);
}

const r = (method: string, path: string, handler: (ctx: Ctx) => Promise<void>, files = false): RouteDef => ({
	method,
	path: P + path,
	iface: 'knowledge',
	auth,
	files,
	handler,
});

export const knowledgeRoutes: RouteDef[] = [
	r('POST', '/knowledge', createKb),
	r('GET', '/knowledge', listKb),
	r('GET', '/knowledge/:id', getKb),
	r('PUT', '/knowledge/:id', updateKb),
	r('DELETE', '/knowledge/:id', deleteKb),
	r('POST', '/knowledge/:id/files', uploadFile, true),
	r('GET', '/knowledge/:id/files', listFiles),
	r('GET', '/knowledge/:id/files/:fileId', getFile),
	r('PUT', '/knowledge/:id/files/:fileId', replaceFile, true),
	r('DELETE', '/knowledge/:id/files/:fileId', deleteFile),
	r('GET', '/knowledge/:id/files/:fileId/download', downloadFile),
];
