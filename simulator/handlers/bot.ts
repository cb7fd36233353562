/** Bot messaging v1/v2 and image retrieval ({base_url}/bot/..., {base_url}/file/image/...). */
import { AuthFailure, Ctx, RouteDef } from '../context';
import { botError, FieldError, validationBotError } from '../errors';
import { IMAGE_SIZES } from '../png';
import { SimGroup, SimUser } from '../state';
import { charLength, isPlainObject } from '../util';
import { LIMITS, validateMessages } from './bot-validate';

/** not in the spec (chosen) */
export const GROUP_NAME_MAX = 100;
export const TOPIC_NAME_MAX = 100;

type AuthMode = 'v1' | 'bearer' | 'lookup-v1' | 'lookup-bearer';

function extractToken(ctx: Ctx, allowAuthentication: boolean): string | undefined {
	const authz = ctx.header('authorization');
	if (authz) {
		const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
		return m ? m[1] : undefined;
	}
	if (allowAuthentication) {
		const a = ctx.header('authentication');
		if (a) {
			const m = /^(?:Bearer\s+)?(\S+)\s*$/i.exec(a.trim());
			return m ? m[1] : undefined;
		}
	}
	return undefined;
}

function botAuth(mode: AuthMode): (ctx: Ctx) => AuthFailure | undefined {
	return (ctx) => {
		const v1 = mode === 'v1' || mode === 'lookup-v1';
		const token = extractToken(ctx, v1);
		const www = (err: string): Record<string, string> => ({ 'www-authenticate': `Bearer realm="bot", error="${err}"` });
		if (!token) {
			const hint = v1 ? 'Authorization: Bearer <token> or Authentication: <token>' : 'Authorization: Bearer <token>';
			return { status: 401, body: botError(401, `Missing access token (${hint})`, 'unauthorized'), headers: www('invalid_request') };
		}
		const check = ctx.state.checkToken(token);
		if (!check.ok) {
			const msg = check.reason === 'expired' ? 'Access token expired' : 'Invalid access token';
			return { status: 401, body: botError(401, msg, check.reason === 'expired' ? 'token_expired' : 'invalid_token'), headers: www('invalid_token') };
		}
		ctx.token = check.token;
		if ((mode === 'lookup-v1' || mode === 'lookup-bearer') && !check.token.scope.includes('bot')) {
			return { status: 403, body: botError(403, "Insufficient scope: the token's scope must include 'bot'", 'insufficient_scope'), headers: { 'www-authenticate': 'Bearer realm="bot", error="insufficient_scope", scope="bot"' } };
		}
		return undefined;
	};
}

// ---------------------------------------------------------------- body helpers

/** Field value from JSON, urlencoded or multipart bodies (`x` or `x[]`). */
function field(ctx: Ctx, name: string): unknown {
	const o = ctx.bodyObject();
	if (!o) return undefined;
	if (o[name] !== undefined) return o[name];
	return o[`${name}[]`];
}

/** The v1 `message` object: JSON object, `message[type]`/`message[data]` fields, or a JSON string. */
function messageField(ctx: Ctx): unknown {
	const o = ctx.bodyObject();
	if (!o) return undefined;
	const m = o.message;
	if (typeof m === 'string') {
		try {
			return JSON.parse(m);
		} catch {
			return m;
		}
	}
	if (m !== undefined) return m;
	if (o['message[type]'] !== undefined || o['message[data]'] !== undefined) return { type: o['message[type]'], data: o['message[data]'] };
	return undefined;
}

function requireString(v: unknown, fieldName: string, errs: FieldError[], opts: { required?: boolean; max?: number } = {}): string | undefined {
	if (v === undefined || v === null || v === '') {
		if (opts.required) errs.push({ field: fieldName, message: 'is required' });
		return undefined;
	}
	if (typeof v !== 'string') {
		errs.push({ field: fieldName, message: 'must be a string' });
		return undefined;
	}
	if (opts.max !== undefined && charLength(v) > opts.max) {
		errs.push({ field: fieldName, message: `must be at most ${opts.max} characters` });
		return undefined;
	}
	return v;
}

async function badBody(ctx: Ctx): Promise<boolean> {
	const k = ctx.body.kind;
	if (k === 'other' || (k === 'json' && ctx.bodyObject() === undefined)) {
		await ctx.json(400, botError(400, 'Body must be a JSON object, application/x-www-form-urlencoded or multipart/form-data', 'invalid_request'));
		return true;
	}
	return false;
}

async function fail(ctx: Ctx, errs: FieldError[]): Promise<void> {
	await ctx.json(400, validationBotError(errs));
}

async function activeUser(ctx: Ctx, uid: string, fieldName: string): Promise<SimUser | undefined> {
	const u = ctx.state.user(uid);
	if (!u || u.deleted) {
		await ctx.json(404, botError(404, `User ${uid} not found`, 'user_not_found', [{ field: fieldName, message: 'user not found' }]));
		return undefined;
	}
	return u;
}

/** Group must exist and the bot must be a member. */
async function botGroup(ctx: Ctx, gid: string): Promise<SimGroup | undefined> {
	const g = ctx.state.group(gid);
	if (!g) {
		await ctx.json(404, botError(404, `Group ${gid} not found`, 'group_not_found', [{ field: 'gid', message: 'group not found' }]));
		return undefined;
	}
	if (!g.memberIds.includes(ctx.state.botUserId)) {
		await ctx.json(403, botError(403, `The bot is not a member of group ${gid}`, 'bot_not_in_group'));
		return undefined;
	}
	return g;
}

async function thread(ctx: Ctx, g: SimGroup, tid: string | undefined): Promise<string | undefined> {
	const t = ctx.state.resolveThread(g._id, tid);
	if (!t) await ctx.json(404, botError(404, `Topic ${tid} not found in group ${g._id}`, 'topic_not_found', [{ field: 'tid', message: 'topic not found in this group' }]));
	return t;
}

/** `file` as a string (URL or data) or as a multipart file part. */
function fileContent(ctx: Ctx, errs: FieldError[]): Record<string, unknown> | undefined {
	const part = ctx.body.files?.find((f) => f.field === 'file');
	if (part) return { file: part.filename, fileName: part.filename, contentType: part.contentType, size: part.size, sha256: part.sha256 };
	const f = requireString(field(ctx, 'file'), 'file', errs, { required: true, max: 16 * 1024 * 1024 });
	if (f === undefined) return undefined;
	let fileName: string | undefined;
	if (/^https?:\/\//i.test(f)) {
		try {
			fileName = decodeURIComponent(new URL(f).pathname.split('/').pop() ?? '') || undefined;
		} catch {
			fileName = undefined;
		}
	}
	return { file: f.length > 2048 ? `${f.slice(0, 2048)}…` : f, fileName, length: f.length };
}

function sentResult(id: string, type: string, groupId: string, threadId: string): Record<string, unknown> {
	return { status: 'success', message: { id, type, groupId, threadId } };
}

// ---------------------------------------------------------------- v1 send

type V1Kind = 'message' | 'picture' | 'file';

function v1Send(target: 'direct' | 'group', kind: V1Kind): (ctx: Ctx) => Promise<void> {
	return async (ctx) => {
		if (await badBody(ctx)) return;
		const errs: FieldError[] = [];
		let uid: string | undefined;
		let gid: string | undefined;
		let tid: string | undefined;
		if (target === 'direct') uid = requireString(field(ctx, 'uid'), 'uid', errs, { required: true });
		else {
			gid = requireString(field(ctx, 'gid'), 'gid', errs, { required: true });
			tid = requireString(field(ctx, 'tid'), 'tid', errs);
		}
		let content: Record<string, unknown> | undefined;
		if (kind === 'message') {
			const m = messageField(ctx);
			if (m === undefined || m === null) errs.push({ field: 'message', message: 'is required' });
			else if (!isPlainObject(m)) errs.push({ field: 'message', message: 'must be an object with type and data' });
			else {
				if (m.type === undefined) errs.push({ field: 'message.type', message: 'is required' });
				else if (m.type !== 'text') errs.push({ field: 'message.type', message: 'must be "text"' });
				const text = requireString(m.data, 'message.data', errs, { required: true, max: LIMITS.textMessage });
				if (text !== undefined) content = { text };
			}
		} else {
			content = fileContent(ctx, errs);
			if (kind === 'picture') {
				const caption = requireString(field(ctx, 'caption'), 'caption', errs, { max: LIMITS.textMessage });
				if (content && caption !== undefined) content.caption = caption;
			}
		}
		if (errs.length) return fail(ctx, errs);
		let groupId: string;
		let threadId: string;
		if (uid !== undefined) {
			if (!(await activeUser(ctx, uid, 'uid'))) return;
			const d = ctx.state.ensureDirectChat(uid);
			groupId = d.gid;
			threadId = d.tid;
		} else {
			const g = await botGroup(ctx, gid as string);
			if (!g) return;
			const t = await thread(ctx, g, tid);
			if (!t) return;
			groupId = g._id;
			threadId = t;
		}
		const type = kind === 'message' ? 'text' : kind;
		const rec = ctx.state.recordMessage({ endpoint: `v1/${target}/${kind}`, type, groupId, threadId, content });
		await ctx.json(201, sentResult(rec.id, type, groupId, threadId));
	};
}

// ---------------------------------------------------------------- v1 groups, topics, users

function memberIds(ctx: Ctx): unknown[] {
	const o = ctx.bodyObject() ?? {};
	const out: unknown[] = [];
	for (const k of ['uids[]', 'uids', 'uid[]', 'uid']) {
		const v = o[k];
		if (v === undefined) continue;
		if (Array.isArray(v)) out.push(...v);
		else if (typeof v === 'string' && v.includes(',') && ctx.body.kind !== 'json') out.push(...v.split(',').map((s) => s.trim()).filter(Boolean));
		else out.push(v);
	}
	return out;
}

async function createGroup(ctx: Ctx): Promise<void> {
	if (await badBody(ctx)) return;
	const errs: FieldError[] = [];
	const name = requireString(field(ctx, 'name'), 'name', errs, { required: true, max: GROUP_NAME_MAX });
	if (name !== undefined && !name.trim()) errs.push({ field: 'name', message: 'must not be blank' });
	const ids = memberIds(ctx);
	ids.forEach((id, i) => {
		if (typeof id !== 'string' || !id) errs.push({ field: `uids[${i}]`, message: 'must be a non-empty string' });
	});
	const pictures = (ctx.body.files ?? []).filter((f) => f.field === 'file');
	if (pictures.length > 1) errs.push({ field: 'file', message: 'only one group picture may be given' });
	const pic = pictures[0];
	if (pic && !(/^image\//i.test(pic.contentType) || /\.(png|jpe?g|gif|webp|bmp)$/i.test(pic.filename))) {
		errs.push({ field: 'file', message: 'must be an image (png, jpeg, gif, webp, bmp)' });
	}
	if (errs.length) return fail(ctx, errs);
	const unique = [...new Set(ids as string[])];
	const unknown: FieldError[] = [];
	unique.forEach((id) => {
		const u = ctx.state.user(id);
		if (!u || u.deleted) unknown.push({ field: `uids[${ids.indexOf(id)}]`, message: `user ${id} not found` });
	});
	if (unknown.length) return void (await ctx.json(404, botError(404, `Unknown member id(s): ${unknown.map((u) => u.message.split(' ')[1]).join(', ')}`, 'user_not_found', unknown)));
	let pictureId: string | undefined;
	if (pic) pictureId = ctx.state.addPicture(undefined, { source: `group picture ${pic.filename} (${pic.size} bytes, sha256 ${pic.sha256})` });
	const g = ctx.state.addGroup({ name: name as string, memberIds: unique, pictureId });
	await ctx.json(201, { group: { _id: g._id, name: g.name, type: g.type, settings: g.settings, userCount: g.memberIds.length } });
}

async function createTopic(ctx: Ctx): Promise<void> {
	if (await badBody(ctx)) return;
	const errs: FieldError[] = [];
	const name = requireString(field(ctx, 'name'), 'name', errs, { required: true, max: TOPIC_NAME_MAX });
	if (name !== undefined && !name.trim()) errs.push({ field: 'name', message: 'must not be blank' });
	if (errs.length) return fail(ctx, errs);
	const g = await botGroup(ctx, ctx.params.gid);
	if (!g) return;
	if (g.type === 'direct_chat') return void (await ctx.json(400, botError(400, 'Topics cannot be created in a direct chat', 'invalid_request', [{ field: 'group_id', message: 'is a direct chat' }])));
	const t = ctx.state.addTopic(g._id, name as string);
	await ctx.json(201, { topic: { _id: t._id, name: t.name, gid: t.gid } });
}

/**
 * GET /bot/v1/groups/{gid}/topics: not in the spec (chosen, see docs/assumptions.md), answers
 * `{topics: [{_id, name, gid}]}` in creation order; a direct chat has none.
 */
async function listTopics(ctx: Ctx): Promise<void> {
	const g = await botGroup(ctx, ctx.params.gid);
	if (!g) return;
	const topics = ctx.state.topics(g._id).map((t) => ({ _id: t._id, name: t.name, gid: t.gid }));
	await ctx.json(200, { topics });
}

async function lookupUsers(ctx: Ctx): Promise<void> {
	const username = ctx.q('username');
	if (!username) return fail(ctx, [{ field: 'username', message: 'is required' }]);
	const u = ctx.state.userByUsername(username);
	const users = u ? [{ _id: u._id, username: u.username, email: u.email, firstname: u.firstname, lastname: u.lastname, position: u.position, deleted: u.deleted }] : [];
	await ctx.json(200, { users });
}

// ---------------------------------------------------------------- v2

async function push(ctx: Ctx): Promise<void> {
	if (ctx.body.kind !== 'json') {
		return void (await ctx.json(415, botError(415, 'Content-Type must be application/json', 'unsupported_media_type')));
	}
	const body = ctx.bodyObject();
	if (!body) return void (await ctx.json(400, botError(400, 'Body must be a JSON object', 'invalid_request')));
	const errs: FieldError[] = [];
	const gid = requireString(body.gid, 'gid', errs, { required: true });
	const tid = requireString(body.tid, 'tid', errs);
	validateMessages(body.messages, errs);
	if (errs.length) return fail(ctx, errs);
	const g = await botGroup(ctx, gid as string);
	if (!g) return;
	const t = await thread(ctx, g, tid);
	if (!t) return;
	const results = (body.messages as unknown[]).map((m) => {
		const rec = ctx.state.recordMessage({ endpoint: 'v2/message/push', type: 'botv2', groupId: g._id, threadId: t, content: m });
		return sentResult(rec.id, 'botv2', g._id, t);
	});
	await ctx.json(200, results);
}

async function groupUserInfo(ctx: Ctx): Promise<void> {
	const { gid, uid } = ctx.params;
	const g = ctx.state.group(gid);
	if (!g) return void (await ctx.json(404, botError(404, `Group ${gid} not found`, 'group_not_found')));
	if (!g.memberIds.includes(ctx.state.botUserId)) return void (await ctx.json(403, botError(403, `The bot is not a member of group ${gid}`, 'bot_not_in_group')));
	const u = ctx.state.user(uid);
	if (!u) return void (await ctx.json(404, botError(404, `User ${uid} not found`, 'user_not_found')));
	if (!g.memberIds.includes(uid)) return void (await ctx.json(404, botError(404, `User ${uid} is not a member of group ${gid}`, 'user_not_in_group')));
	await ctx.json(200, { _id: u._id, firstname: u.firstname, lastname: u.lastname, avatar: u.avatar, network_admin: u.network_admin });
}

async function directChat(ctx: Ctx): Promise<void> {
	const uid = ctx.params.uid;
	if (uid === ctx.state.botUserId) return void (await ctx.json(400, botError(400, 'The bot cannot open a direct chat with itself', 'invalid_request')));
	if (!(await activeUser(ctx, uid, 'uid'))) return;
	const d = ctx.state.ensureDirectChat(uid);
	await ctx.json(200, { gid: d.gid, tid: d.tid });
}

async function image(ctx: Ctx): Promise<void> {
	const size = ctx.entry.query.size;
	if (Array.isArray(size) || (size !== undefined && !IMAGE_SIZES[size])) {
		return void (await ctx.json(400, botError(400, 'size must be one of small, medium, large', 'invalid_size', [{ field: 'size', message: 'must be one of small, medium, large' }])));
	}
	const id = ctx.params.pictureId;
	const file = ctx.state.pictureFile(id, size ?? 'medium');
	if (!file) return void (await ctx.json(404, botError(404, `Picture ${id} not found`, 'picture_not_found')));
	await ctx.raw(200, { 'content-type': file.contentType, 'cache-control': 'private, max-age=3600' }, file.bytes);
}

const v1 = (path: string, handler: (ctx: Ctx) => Promise<void>, mode: AuthMode = 'v1', method = 'POST', files = false): RouteDef => ({
	method,
	path: '/bot/v1' + path,
	iface: 'bot',
	auth: botAuth(mode),
	handler,
	files,
});

export const botRoutes: RouteDef[] = [
	v1('/direct/message', v1Send('direct', 'message')),
	v1('/direct/picture', v1Send('direct', 'picture')),
	v1('/direct/file', v1Send('direct', 'file')),
	v1('/group/message', v1Send('group', 'message')),
	v1('/group/picture', v1Send('group', 'picture')),
	v1('/group/file', v1Send('group', 'file')),
	v1('/groups', createGroup, 'v1', 'POST', true),
	v1('/groups/:gid/topics', createTopic),
	v1('/groups/:gid/topics', listTopics, 'v1', 'GET'),
	v1('/users', lookupUsers, 'lookup-v1', 'GET'),
	{ method: 'POST', path: '/bot/v2/message/push', iface: 'bot', auth: botAuth('bearer'), handler: push },
	{ method: 'GET', path: '/bot/v2/groups/:gid/users/:uid/info', iface: 'bot', auth: botAuth('lookup-bearer'), handler: groupUserInfo },
	{ method: 'GET', path: '/bot/v2/groups/users/:uid', iface: 'bot', auth: botAuth('bearer'), handler: directChat },
	{ method: 'GET', path: '/file/image/:pictureId', iface: 'image', auth: botAuth('bearer'), handler: image },
];
