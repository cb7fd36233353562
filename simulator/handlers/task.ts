/** Task API: POST {base_url}/api/v1/task-projects/tasks. */
import { AuthFailure, Ctx, RouteDef } from '../context';
import { taskError } from '../errors';
import { TaskRecord } from '../state';
import { charLength, isIsoDateTime, isPlainObject, sha256Hex, uuid } from '../util';

export const TASK_LIMITS = { title: 200, description: 5000, tags: 20, images: 6, attachments: 6, imagesAndAttachments: 12 };

function auth(ctx: Ctx): AuthFailure | undefined {
	const h = ctx.header('authorization');
	const www = { 'www-authenticate': 'Bearer realm="tasks"' };
	if (!h) return { status: 401, body: taskError(401, 'Missing Authorization header (Bearer JWT)'), headers: www };
	const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
	if (!m) return { status: 401, body: taskError(401, 'Authorization must be "Bearer <JWT>"'), headers: www };
	if (m[1] === ctx.config.credentials.taskJwt) return undefined;
	if (m[1] === ctx.state.taskReadOnlyJwt) return { status: 403, body: taskError(403, 'Insufficient scope: tasks:write is required', [], 'Forbidden') };
	return { status: 401, body: taskError(401, 'Invalid or expired token'), headers: { 'www-authenticate': 'Bearer realm="tasks", error="invalid_token"' } };
}

type Detail = { path: string; message: string };

function typeName(v: unknown): string {
	return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

export function validateTask(b: Record<string, unknown>): Detail[] {
	const d: Detail[] = [];
	const t = b.taskTitle;
	if (t === undefined || t === null) d.push({ path: 'taskTitle', message: 'taskTitle is required' });
	else if (typeof t !== 'string') d.push({ path: 'taskTitle', message: `taskTitle must be a string (got ${typeName(t)})` });
	else if (!t.trim()) d.push({ path: 'taskTitle', message: 'taskTitle must not be empty' });
	else if (charLength(t) > TASK_LIMITS.title) d.push({ path: 'taskTitle', message: `taskTitle must be at most ${TASK_LIMITS.title} characters` });
	const desc = b.taskDescription;
	if (desc !== undefined && desc !== null) {
		if (typeof desc !== 'string') d.push({ path: 'taskDescription', message: 'taskDescription must be a string' });
		else if (charLength(desc) > TASK_LIMITS.description) d.push({ path: 'taskDescription', message: `taskDescription must be at most ${TASK_LIMITS.description} characters` });
	}
	const p = b.priority;
	if (p !== undefined && p !== null && !(typeof p === 'number' && Number.isInteger(p))) d.push({ path: 'priority', message: 'priority must be an integer' });
	const due = b.dueDate;
	if (due !== undefined && due !== null && !isIsoDateTime(due)) d.push({ path: 'dueDate', message: 'dueDate must be an ISO 8601 date-time, e.g. 2025-01-31T17:00:00Z' });
	for (const k of ['assigneeId', 'parentId']) {
		const v = b[k];
		if (v !== undefined && v !== null && (typeof v !== 'string' || !v)) d.push({ path: k, message: `${k} must be a non-empty string` });
	}
	const cl = b.checklist;
	if (cl !== undefined && cl !== null) {
		if (!Array.isArray(cl)) d.push({ path: 'checklist', message: 'checklist must be an array' });
		else
			cl.forEach((it, i) => {
				const ip = `checklist[${i}]`;
				if (!isPlainObject(it)) return void d.push({ path: ip, message: `${ip} must be an object {description, isDone}` });
				if (it.description === undefined || it.description === null) d.push({ path: `${ip}.description`, message: 'description is required' });
				else if (typeof it.description !== 'string') d.push({ path: `${ip}.description`, message: 'description must be a string' });
				if (it.isDone === undefined || it.isDone === null) d.push({ path: `${ip}.isDone`, message: 'isDone is required' });
				else if (typeof it.isDone !== 'boolean') d.push({ path: `${ip}.isDone`, message: 'isDone must be a boolean' });
			});
	}
	const tags = b.tags;
	if (tags !== undefined && tags !== null) {
		if (!Array.isArray(tags) || tags.some((x) => typeof x !== 'string')) d.push({ path: 'tags', message: 'tags must be an array of strings' });
		else if (tags.length > TASK_LIMITS.tags) d.push({ path: 'tags', message: `at most ${TASK_LIMITS.tags} tags are allowed` });
	}
	let media = 0;
	for (const k of ['images', 'attachments'] as const) {
		const v = b[k];
		if (v === undefined || v === null) continue;
		if (!Array.isArray(v)) d.push({ path: k, message: `${k} must be an array` });
		else {
			media += v.length;
			if (v.length > TASK_LIMITS[k]) d.push({ path: k, message: `at most ${TASK_LIMITS[k]} ${k} are allowed` });
		}
	}
	if (media > TASK_LIMITS.imagesAndAttachments) d.push({ path: 'attachments', message: `at most ${TASK_LIMITS.imagesAndAttachments} images and attachments in total` });
	return d;
}

async function createTask(ctx: Ctx): Promise<void> {
	const mime = (ctx.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
	if (mime !== 'application/json') return void (await ctx.json(400, taskError(400, 'Content-Type must be application/json')));
	if (ctx.body.kind !== 'json' || ctx.body.json === undefined) return void (await ctx.json(400, taskError(400, 'Request body must be valid JSON')));
	const b = ctx.body.json;
	if (!isPlainObject(b)) return void (await ctx.json(400, taskError(400, 'Request body must be a JSON object')));

	const key = ctx.header('idempotency-key');
	const fingerprint = sha256Hex(JSON.stringify(b));
	if (key) {
		const prev = ctx.state.idempotency.get(key);
		if (prev) {
			if (prev.fingerprint !== fingerprint) return void (await ctx.json(409, taskError(409, `Idempotency-Key ${key} was already used with a different request body`)));
			return void (await ctx.json(prev.status, prev.body, { 'idempotent-replayed': 'true' }));
		}
	}
	const details = validateTask(b);
	if (details.length) return void (await ctx.json(422, taskError(422, 'Validation failed', details, 'ValidationError')));
	const parentId = b.parentId as string | undefined | null;
	if (parentId && !ctx.state.task(parentId) && !ctx.state.taskTopic(parentId)) {
		return void (await ctx.json(404, taskError(404, `Parent topic or task ${parentId} not found`, [{ path: 'parentId', message: 'not found' }])));
	}
	const assigneeId = b.assigneeId as string | undefined | null;
	if (assigneeId) {
		const u = ctx.state.user(assigneeId);
		if (!u || u.deleted) return void (await ctx.json(404, taskError(404, `Assignee ${assigneeId} not found`, [{ path: 'assigneeId', message: 'not found' }])));
	}
	const rec: TaskRecord = ctx.state.addTask({
		...b,
		id: undefined,
		taskTitle: b.taskTitle as string,
		taskDescription: (b.taskDescription as string | undefined) ?? null,
		priority: (b.priority as number | undefined) ?? null,
		dueDate: (b.dueDate as string | undefined) ?? null,
		assigneeId: assigneeId ?? null,
		parentId: parentId ?? null,
		checklist: ((b.checklist as Array<{ description: string; isDone: boolean }> | undefined) ?? []).map((c) => ({ id: uuid(), description: c.description, isDone: c.isDone })),
		createdBy: '64f0a0000000000000000001',
	});
	if (key) ctx.state.idempotency.set(key, { fingerprint, status: 201, body: rec });
	await ctx.json(201, rec, { location: `/api/v1/task-projects/tasks/${rec.id}` });
}

export const taskRoutes: RouteDef[] = [{ method: 'POST', path: '/api/v1/task-projects/tasks', iface: 'task', auth, handler: createTask }];
