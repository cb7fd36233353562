/** Form API: POST {base_url}/v1/forms. */
import { AuthFailure, Ctx, RouteDef } from '../context';
import { botError, FieldError, validationBotError } from '../errors';
import { charLength, HEX_COLOR, isDateOnly, isPlainObject, isTimestamp, nowIso, objectId } from '../util';

export const FORM_STATUSES = ['drafted', 'published', 'completed', 'submitted'];
export const TIER_STATUSES = ['submitted', 'drafted', 'approved', 'rejected', 'mixed', 'canceled'];
/** full list not shown in the spec (chosen) */
export const FORM_ITEM_TYPES = ['textinput', 'textarea', 'number', 'email', 'date', 'time', 'datetime', 'radio', 'checkbox', 'dropdown', 'action', 'file', 'label'];
const OPTION_TYPES = ['radio', 'checkbox', 'dropdown', 'action'];
export const ACTION_OPTION_TYPES = ['approved', 'rejected', 'other'];
const TEXT_MAX = 1000;

function auth(ctx: Ctx): AuthFailure | undefined {
	const c = ctx.config.credentials;
	const key = ctx.header('x-api-key');
	const token = ctx.header('x-api-token');
	if (!key || !token) return { status: 401, body: botError(401, `Missing ${!key ? 'X-API-Key' : 'X-API-Token'} header`, 'unauthorized') };
	if (key !== c.formApiKey) return { status: 401, body: botError(401, 'Invalid API key', 'unauthorized') };
	if (token !== c.formApiToken) return { status: 401, body: botError(401, 'Invalid API token', 'unauthorized') };
	return undefined;
}

function acceptsJson(accept: string | undefined): boolean {
	if (!accept) return true;
	return accept.split(',').some((p) => {
		const t = p.split(';')[0].trim().toLowerCase();
		return t === 'application/json' || t === 'application/*' || t === '*/*';
	});
}

function typeName(v: unknown): string {
	return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

class V {
	errs: FieldError[] = [];
	str(v: unknown, field: string, opts: { required?: boolean; nullable?: boolean; max?: number; allowEmpty?: boolean } = {}): void {
		if (v === undefined || (v === null && opts.nullable)) {
			if (opts.required) this.errs.push({ field, message: 'is required' });
			return;
		}
		if (typeof v !== 'string') return void this.errs.push({ field, message: `must be a string (got ${typeName(v)})` });
		if (!opts.allowEmpty && !v.trim()) return void this.errs.push({ field, message: 'must not be empty' });
		if (charLength(v) > (opts.max ?? TEXT_MAX)) this.errs.push({ field, message: `must be at most ${opts.max ?? TEXT_MAX} characters` });
	}
	num(v: unknown, field: string, opts: { min?: number; max?: number; integer?: boolean } = {}): void {
		if (v === undefined || v === null) return;
		if (typeof v !== 'number' || !Number.isFinite(v)) return void this.errs.push({ field, message: `must be a number (got ${typeName(v)})` });
		if (opts.integer && !Number.isInteger(v)) return void this.errs.push({ field, message: 'must be an integer' });
		if (opts.min !== undefined && v < opts.min) this.errs.push({ field, message: `must not be less than ${opts.min}` });
		if (opts.max !== undefined && v > opts.max) this.errs.push({ field, message: `must not be greater than ${opts.max}` });
	}
}

function validateItem(v: V, item: unknown, p: string): void {
	if (!isPlainObject(item)) return void v.errs.push({ field: p, message: 'must be an object' });
	const type = item.type;
	if (type === undefined) v.errs.push({ field: `${p}.type`, message: 'is required' });
	else if (typeof type !== 'string' || !FORM_ITEM_TYPES.includes(type)) v.errs.push({ field: `${p}.type`, message: `must be one of ${FORM_ITEM_TYPES.join(', ')}` });
	v.str(item.name, `${p}.name`, { required: true });
	v.str(item.value, `${p}.value`, { nullable: true, allowEmpty: true });
	if (item.editable !== undefined && typeof item.editable !== 'boolean') v.errs.push({ field: `${p}.editable`, message: 'must be a boolean' });
	const meta = item.meta;
	const needsOptions = typeof type === 'string' && OPTION_TYPES.includes(type);
	if (meta !== undefined && !isPlainObject(meta)) return void v.errs.push({ field: `${p}.meta`, message: 'must be an object' });
	if (!needsOptions) return;
	const options = meta?.options;
	if (options === undefined) return void v.errs.push({ field: `${p}.meta.options`, message: `is required for ${String(type)} fields` });
	if (!Array.isArray(options)) return void v.errs.push({ field: `${p}.meta.options`, message: 'must be an array' });
	if (options.length === 0) v.errs.push({ field: `${p}.meta.options`, message: 'must contain at least 1 option' });
	options.forEach((o, i) => {
		const op = `${p}.meta.options[${i}]`;
		if (!isPlainObject(o)) return void v.errs.push({ field: op, message: 'must be an object' });
		v.str(o.label, `${op}.label`, { required: true });
		if (type === 'action') {
			v.str(o.value, `${op}.value`, { allowEmpty: true });
			if (o.type === undefined) v.errs.push({ field: `${op}.type`, message: 'is required for action options' });
			else if (typeof o.type !== 'string' || !ACTION_OPTION_TYPES.includes(o.type)) v.errs.push({ field: `${op}.type`, message: `must be one of ${ACTION_OPTION_TYPES.join(', ')}` });
		} else {
			v.str(o.value, `${op}.value`, { required: true, allowEmpty: true });
		}
		if (o.color !== undefined && (typeof o.color !== 'string' || !HEX_COLOR.test(o.color))) v.errs.push({ field: `${op}.color`, message: 'must be a hex color such as #00FF00' });
	});
}

function validateTier(v: V, t: unknown, p: string): void {
	if (!isPlainObject(t)) return void v.errs.push({ field: p, message: 'must be an object' });
	v.str(t.title, `${p}.title`, { nullable: true, allowEmpty: true });
	v.str(t.description, `${p}.description`, { nullable: true, allowEmpty: true, max: 5000 });
	v.num(t.tier, `${p}.tier`, { min: 1, max: 100, integer: true });
	v.num(t.duration, `${p}.duration`, { min: 0 });
	v.num(t.minimumWeight, `${p}.minimumWeight`, { min: 0 });
	if (t.status !== undefined && t.status !== null && (typeof t.status !== 'string' || !TIER_STATUSES.includes(t.status))) v.errs.push({ field: `${p}.status`, message: `must be one of ${TIER_STATUSES.join(', ')}` });
	if (t.dueDate !== undefined && t.dueDate !== null && !isTimestamp(t.dueDate)) v.errs.push({ field: `${p}.dueDate`, message: 'must be an ISO 8601 timestamp (or epoch milliseconds)' });
	if (t.responders !== undefined) {
		if (!Array.isArray(t.responders)) v.errs.push({ field: `${p}.responders`, message: 'must be an array' });
		else
			t.responders.forEach((r, i) => {
				if (!isPlainObject(r)) return void v.errs.push({ field: `${p}.responders[${i}]`, message: 'must be an object {userId}' });
				v.str(r.userId, `${p}.responders[${i}].userId`, { required: true });
			});
	}
	if (t.allowedResponders !== undefined) {
		if (!Array.isArray(t.allowedResponders)) v.errs.push({ field: `${p}.allowedResponders`, message: 'must be an array' });
		else
			t.allowedResponders.forEach((r, i) => {
				const rp = `${p}.allowedResponders[${i}]`;
				if (!isPlainObject(r)) return void v.errs.push({ field: rp, message: 'must be an object {type, entityId, weight}' });
				if (r.type === undefined) v.errs.push({ field: `${rp}.type`, message: 'is required' });
				else if (r.type !== 'user') v.errs.push({ field: `${rp}.type`, message: 'must be "user"' });
				v.str(r.entityId, `${rp}.entityId`, { required: true });
				v.num(r.weight, `${rp}.weight`, { min: 0 });
			});
	}
}

/** Usernames referenced by the form (sender, receivers, responders). */
function referencedUsernames(body: Record<string, unknown>): Array<{ field: string; username: string }> {
	const out: Array<{ field: string; username: string }> = [];
	if (typeof body.senderUserId === 'string') out.push({ field: 'senderUserId', username: body.senderUserId });
	if (Array.isArray(body.receiverUserIds)) body.receiverUserIds.forEach((u, i) => typeof u === 'string' && out.push({ field: `receiverUserIds[${i}]`, username: u }));
	if (Array.isArray(body.responseTiers)) {
		body.responseTiers.forEach((t, ti) => {
			if (!isPlainObject(t)) return;
			if (Array.isArray(t.responders)) t.responders.forEach((r, i) => isPlainObject(r) && typeof r.userId === 'string' && out.push({ field: `responseTiers[${ti}].responders[${i}].userId`, username: r.userId }));
			if (Array.isArray(t.allowedResponders)) t.allowedResponders.forEach((r, i) => isPlainObject(r) && typeof r.entityId === 'string' && out.push({ field: `responseTiers[${ti}].allowedResponders[${i}].entityId`, username: r.entityId }));
		});
	}
	return out;
}

export function validateForm(body: Record<string, unknown>): FieldError[] {
	const v = new V();
	v.str(body.name, 'name', { required: true, max: 255 });
	v.str(body.subject, 'subject', { required: true, max: 255 });
	if (body.dueDate !== undefined && body.dueDate !== null && !isDateOnly(body.dueDate)) v.errs.push({ field: 'dueDate', message: 'must be a date in the format YYYY-MM-DD' });
	v.str(body.senderUserId, 'senderUserId', { required: true });
	const r = body.receiverUserIds;
	if (r === undefined) v.errs.push({ field: 'receiverUserIds', message: 'is required' });
	else if (!Array.isArray(r)) v.errs.push({ field: 'receiverUserIds', message: 'must be an array of usernames' });
	else {
		if (r.length === 0) v.errs.push({ field: 'receiverUserIds', message: 'must contain at least 1 username' });
		r.forEach((u, i) => v.str(u, `receiverUserIds[${i}]`, { required: true }));
	}
	const d = body.data;
	if (d === undefined) v.errs.push({ field: 'data', message: 'is required' });
	else if (!Array.isArray(d)) v.errs.push({ field: 'data', message: 'must be an array of input fields' });
	else {
		if (d.length === 0) v.errs.push({ field: 'data', message: 'must contain at least 1 input field' });
		d.forEach((item, i) => validateItem(v, item, `data[${i}]`));
	}
	const s = body.status;
	if (s === undefined) v.errs.push({ field: 'status', message: 'is required' });
	else if (typeof s !== 'string' || !FORM_STATUSES.includes(s)) v.errs.push({ field: 'status', message: `must be one of ${FORM_STATUSES.join(', ')}` });
	const rt = body.responseType;
	if (rt !== undefined && rt !== null && rt !== 'hierarchy') v.errs.push({ field: 'responseType', message: 'must be "hierarchy"' });
	const tiers = body.responseTiers;
	if (tiers !== undefined && tiers !== null) {
		if (!Array.isArray(tiers)) v.errs.push({ field: 'responseTiers', message: 'must be an array' });
		else {
			if (rt !== 'hierarchy') v.errs.push({ field: 'responseTiers', message: 'requires responseType "hierarchy"' });
			tiers.forEach((t, i) => validateTier(v, t, `responseTiers[${i}]`));
		}
	}
	if (rt === 'hierarchy' && (!Array.isArray(tiers) || tiers.length === 0)) v.errs.push({ field: 'responseTiers', message: 'at least one tier is required when responseType is "hierarchy"' });
	return v.errs;
}

async function createForm(ctx: Ctx): Promise<void> {
	if (!acceptsJson(ctx.header('accept'))) return void (await ctx.json(406, botError(406, 'Accept must allow application/json', 'not_acceptable')));
	const mime = (ctx.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
	if (mime !== 'application/json') return void (await ctx.json(415, botError(415, 'Content-Type must be application/json', 'unsupported_media_type')));
	const body = ctx.bodyObject();
	if (!body || ctx.body.kind !== 'json') return void (await ctx.json(400, botError(400, 'Body must be a JSON object', 'invalid_request')));
	const errs = validateForm(body);
	if (errs.length) return void (await ctx.json(400, validationBotError(errs)));
	const missing = referencedUsernames(body).filter((r) => {
		const u = ctx.state.userByUsername(r.username);
		return !u || u.deleted;
	});
	if (missing.length) {
		return void (await ctx.json(404, botError(404, `Unknown username(s): ${[...new Set(missing.map((m) => m.username))].join(', ')}`, 'user_not_found', missing.map((m) => ({ field: m.field, message: `user ${m.username} not found` })))));
	}
	const now = nowIso();
	const rec = ctx.state.addForm({
		id: objectId(),
		name: body.name,
		subject: body.subject,
		dueDate: body.dueDate ?? null,
		senderUserId: body.senderUserId,
		receiverUserIds: body.receiverUserIds,
		data: body.data,
		status: body.status,
		responseType: body.responseType ?? null,
		responseTiers: body.responseTiers ?? [],
		createdAt: now,
		updatedAt: now,
	});
	await ctx.json(201, rec);
}

export const formRoutes: RouteDef[] = [{ method: 'POST', path: '/v1/forms', iface: 'form', auth, handler: createForm }];
