/**
 * In-memory platform state with seeding helpers and read access for tests.
 */
import { randomBytes } from 'crypto';
import { BlobStore, StoredBlob } from './blob';
import { IMAGE_SIZES, makePng } from './png';
import { SEED, SEED_FILE_CONTENTS, TASK_READONLY_JWT_DEFAULT } from './seed';
import { nowIso, objectId, uuid } from './util';

export interface SimUser {
	_id: string;
	username: string;
	email: string;
	firstname: string;
	lastname: string;
	position: string;
	deleted: boolean;
	avatar: string;
	network_admin: boolean;
	isBot: boolean;
}

export interface GroupSettings {
	isPrivate: boolean;
	isMemberManaged: boolean;
	isCreatorManaged: boolean;
	isAdminManaged: boolean;
	isAutoManagedMember: boolean;
	isReadOnly: boolean;
	onlyAdminCanPost: boolean;
}

export interface SimGroup {
	_id: string;
	name: string;
	type: 'group_chatv2' | 'direct_chat';
	settings: GroupSettings;
	/** member user ids, the bot included when it is a member */
	memberIds: string[];
	/** thread id of the main chat (used as `threadId` for main-chat messages) */
	mainThreadId: string;
	pictureId?: string;
	createdAt: string;
}

export interface SimTopic {
	_id: string;
	name: string;
	gid: string;
	createdAt: string;
}

export interface SentBotMessage {
	/** arrival order over all conversations, starting at 1 */
	seq: number;
	id: string;
	time: number;
	/** e.g. 'v1/direct/message', 'v1/group/picture', 'v2/message/push' */
	endpoint: string;
	/** result type: text | picture | file | botv2 */
	type: 'text' | 'picture' | 'file' | 'botv2';
	groupId: string;
	threadId: string;
	/** set for direct chats: the user the chat is with */
	directUserId?: string;
	/** v1: {text} / {file, caption, fileName?, size?, sha256?}; v2: the pushed message object */
	content: unknown;
}

export interface KnowledgeBase {
	id: string;
	name: string;
	description: string | null;
	metadata: Record<string, unknown>;
	createdAt: string;
	updatedAt: string;
}

export interface KnowledgeFile {
	id: string;
	knowledgeId: string;
	name: string;
	mimeType: string;
	size: number;
	sha256: string;
	status: 'ready';
	metadata: Record<string, string | string[]>;
	createdAt: string;
	updatedAt: string;
}

export interface FormRecord {
	id: string;
	[key: string]: unknown;
}

export interface TaskRecord {
	id: string;
	taskTitle: string;
	taskDescription: string | null;
	priority: number | null;
	dueDate: string | null;
	assigneeId: string | null;
	checklist: Array<{ id: string; description: string; isDone: boolean }>;
	parentId: string | null;
	isSubtask: boolean;
	status: 'open';
	tags?: string[];
	createdBy: string;
	createdAt: string;
	updatedAt: string;
	[key: string]: unknown;
}

export interface TaskTopic {
	id: string;
	name: string;
}

export interface IssuedToken {
	token: string;
	clientId: string;
	scope: string[];
	issuedAt: number;
	expiresAt: number;
	revoked: boolean;
}

export type TokenCheck = { ok: true; token: IssuedToken } | { ok: false; reason: 'unknown' | 'expired' };

const DEFAULT_SETTINGS: GroupSettings = {
	isPrivate: true,
	isMemberManaged: false,
	isCreatorManaged: true,
	isAdminManaged: false,
	isAutoManagedMember: false,
	isReadOnly: false,
	onlyAdminCanPost: false,
};

export class SimulatorState {
	/** Read-only task JWT (valid, but lacks `tasks:write`: 403 on task creation). */
	readonly taskReadOnlyJwt = TASK_READONLY_JWT_DEFAULT;
	readonly botUserId = SEED.bot._id;

	private _users = new Map<string, SimUser>();
	private _groups = new Map<string, SimGroup>();
	private _topics = new Map<string, SimTopic>();
	private _directChats = new Map<string, { gid: string; tid: string }>();
	private _messages: SentBotMessage[] = [];
	private _messageSeq = 0;
	private _kbs = new Map<string, KnowledgeBase>();
	private _files = new Map<string, KnowledgeFile>();
	private _blobs = new Map<string, StoredBlob>();
	private _pictures = new Map<string, { source: string; cache: Map<string, Buffer>; contentType: string; bytes?: Buffer }>();
	private _forms: FormRecord[] = [];
	private _tasks = new Map<string, TaskRecord>();
	private _taskTopics = new Map<string, TaskTopic>();
	private _tokens = new Map<string, IssuedToken>();
	private _issuedTokens = 0;
	/** task Idempotency-Key -> {fingerprint, response} */
	readonly idempotency = new Map<string, { fingerprint: string; status: number; body: unknown }>();

	constructor(readonly store: BlobStore) {
		this.reset();
	}

	// ------------------------------------------------------------------ reset / seed

	/** Drops everything and restores the seeded data (tokens are dropped too). */
	reset(): void {
		for (const b of this._blobs.values()) b.dispose();
		this._users.clear();
		this._groups.clear();
		this._topics.clear();
		this._directChats.clear();
		this._messages = [];
		this._messageSeq = 0;
		this._kbs.clear();
		this._files.clear();
		this._blobs.clear();
		this._pictures.clear();
		this._forms = [];
		this._tasks.clear();
		this._taskTopics.clear();
		this._tokens.clear();
		this._issuedTokens = 0;
		this.idempotency.clear();
		this.seed();
	}

	private seed(): void {
		this.addUser({ ...SEED.bot, email: 'bot@example.com', firstname: 'Workplace', lastname: 'Bot', position: 'Bot', isBot: true });
		for (const u of Object.values(SEED.users)) this.addUser(u);
		const { alice, bob, carol } = SEED.users;
		const p = SEED.groups.project;
		this.addGroup({ _id: p._id, name: p.name, memberIds: [alice._id, bob._id, carol._id], mainThreadId: p.mainThreadId });
		this.addTopic(p._id, p.topics.release.name, p.topics.release._id);
		const l = SEED.groups.leadership;
		this.addGroup({ _id: l._id, name: l.name, memberIds: [alice._id, bob._id], botMember: false, mainThreadId: l.mainThreadId });
		const dc = SEED.directChats.alice;
		this.createDirectChat(alice._id, dc.gid, dc.tid);
		this.addPicture(SEED.pictures.first);
		this.addPicture(SEED.pictures.second);

		const k = SEED.knowledge;
		this.addKnowledgeBase({ id: k.handbook.id, name: k.handbook.name, description: 'Policies and procedures for all employees' });
		this.addKnowledgeBase({ id: k.faq.id, name: k.faq.name, description: 'Frequently asked product questions' });
		this.addKnowledgeBase({ id: k.empty.id, name: k.empty.name, description: null });
		const c = SEED_FILE_CONTENTS;
		this.addKnowledgeFile(k.handbook.id, { id: k.handbook.files.policy, ...c.policy });
		this.addKnowledgeFile(k.handbook.id, { id: k.handbook.files.holidays, ...c.holidays });
		this.addKnowledgeFile(k.faq.id, { id: k.faq.files.faq, ...c.faq });
		this.addKnowledgeFile(k.faq.id, { id: k.faq.files.overview, ...c.overview });

		this.addTaskTopic({ id: SEED.taskTopics.roadmap, name: 'Roadmap' });
		this.addTask({ id: SEED.tasks.parent, taskTitle: 'Quarterly planning', taskDescription: 'Parent task for subtask tests' });
	}

	// ------------------------------------------------------------------ users

	users(): SimUser[] {
		return [...this._users.values()];
	}
	user(id: string): SimUser | undefined {
		return this._users.get(id);
	}
	userByUsername(username: string): SimUser | undefined {
		const u = username.toLowerCase();
		return this.users().find((x) => x.username.toLowerCase() === u);
	}
	addUser(p: Partial<SimUser> & { username: string }): SimUser {
		const id = p._id ?? objectId();
		const user: SimUser = {
			_id: id,
			username: p.username,
			email: p.email ?? `${p.username}@example.com`,
			firstname: p.firstname ?? p.username,
			lastname: p.lastname ?? '',
			position: p.position ?? '',
			deleted: p.deleted ?? false,
			avatar: p.avatar ?? `https://avatars.example.com/${id}.png`,
			network_admin: p.network_admin ?? false,
			isBot: p.isBot ?? false,
		};
		this._users.set(id, user);
		return user;
	}

	// ------------------------------------------------------------------ groups, topics, direct chats

	groups(): SimGroup[] {
		return [...this._groups.values()];
	}
	group(gid: string): SimGroup | undefined {
		return this._groups.get(gid);
	}
	addGroup(p: { name: string; memberIds?: string[]; botMember?: boolean; _id?: string; mainThreadId?: string; type?: SimGroup['type']; pictureId?: string; settings?: Partial<GroupSettings> }): SimGroup {
		const members = new Set(p.memberIds ?? []);
		if (p.botMember !== false) members.add(this.botUserId);
		else members.delete(this.botUserId);
		const g: SimGroup = {
			_id: p._id ?? objectId(),
			name: p.name,
			type: p.type ?? 'group_chatv2',
			settings: { ...DEFAULT_SETTINGS, ...p.settings },
			memberIds: [...members],
			mainThreadId: p.mainThreadId ?? objectId(),
			pictureId: p.pictureId,
			createdAt: nowIso(),
		};
		this._groups.set(g._id, g);
		return g;
	}
	addTopic(gid: string, name: string, id?: string): SimTopic {
		if (!this._groups.has(gid)) throw new Error(`unknown group ${gid}`);
		const t: SimTopic = { _id: id ?? objectId(), name, gid, createdAt: nowIso() };
		this._topics.set(t._id, t);
		return t;
	}
	topics(gid?: string): SimTopic[] {
		return [...this._topics.values()].filter((t) => gid === undefined || t.gid === gid);
	}
	topic(tid: string): SimTopic | undefined {
		return this._topics.get(tid);
	}
	/** The thread id for (gid, tid): '' or undefined = main chat; undefined result = no such thread. */
	resolveThread(gid: string, tid: string | undefined): string | undefined {
		const g = this._groups.get(gid);
		if (!g) return undefined;
		if (!tid || tid === g.mainThreadId) return g.mainThreadId;
		const t = this._topics.get(tid);
		return t && t.gid === gid ? t._id : undefined;
	}
	isMember(gid: string, uid: string): boolean {
		return !!this._groups.get(gid)?.memberIds.includes(uid);
	}
	directChat(uid: string): { gid: string; tid: string } | undefined {
		const d = this._directChats.get(uid);
		return d ? { ...d } : undefined;
	}
	directChats(): Array<{ uid: string; gid: string; tid: string }> {
		return [...this._directChats.entries()].map(([uid, d]) => ({ uid, ...d }));
	}
	/** Returns the bot's direct chat with the user, creating it when missing. */
	ensureDirectChat(uid: string): { gid: string; tid: string; created: boolean } {
		const d = this._directChats.get(uid);
		if (d) return { ...d, created: false };
		const created = this.createDirectChat(uid);
		return { ...created, created: true };
	}
	private createDirectChat(uid: string, gid?: string, tid?: string): { gid: string; tid: string } {
		const u = this._users.get(uid);
		const g = this.addGroup({ _id: gid, mainThreadId: tid, name: u ? `${u.firstname} ${u.lastname}`.trim() : uid, memberIds: [uid], type: 'direct_chat' });
		const d = { gid: g._id, tid: g.mainThreadId };
		this._directChats.set(uid, d);
		return { ...d };
	}

	// ------------------------------------------------------------------ bot messages

	recordMessage(m: Omit<SentBotMessage, 'seq' | 'id' | 'time' | 'directUserId'> & { id?: string }): SentBotMessage {
		const g = this._groups.get(m.groupId);
		let directUserId: string | undefined;
		if (g?.type === 'direct_chat') directUserId = g.memberIds.find((id) => id !== this.botUserId);
		const rec: SentBotMessage = { ...m, id: m.id ?? objectId(), seq: ++this._messageSeq, time: Date.now(), directUserId };
		this._messages.push(rec);
		return rec;
	}

	/**
	 * Sent bot messages in arrival order. Filter by direct-chat user (`uid`) or by
	 * group (`gid`) and optionally thread (`tid`; '' = main chat).
	 */
	sentMessages(filter?: { uid?: string; gid?: string; tid?: string }): SentBotMessage[] {
		let list = this._messages;
		if (filter?.uid !== undefined) {
			const d = this._directChats.get(filter.uid);
			list = d ? list.filter((m) => m.groupId === d.gid) : [];
		}
		if (filter?.gid !== undefined) {
			const gid = filter.gid;
			list = list.filter((m) => m.groupId === gid);
			if (filter.tid !== undefined) {
				const thread = this.resolveThread(gid, filter.tid);
				list = list.filter((m) => m.threadId === thread);
			}
		}
		return list.map((m) => ({ ...m }));
	}

	clearMessages(): void {
		this._messages = [];
	}

	// ------------------------------------------------------------------ pictures

	/**
	 * Registers a picture. `contentType` is what GET /file/image answers it with (default
	 * image/png); `bytes` what it serves in every size (default: a PNG generated from the id,
	 * differing per size).
	 */
	addPicture(id?: string, options: { source?: string; contentType?: string; bytes?: Buffer } = {}): string {
		const pid = id ?? `pic-${randomBytes(6).toString('hex')}`;
		this._pictures.set(pid, {
			source: options.source ?? 'seed',
			cache: new Map(),
			contentType: options.contentType ?? 'image/png',
			bytes: options.bytes,
		});
		return pid;
	}
	hasPicture(id: string): boolean {
		return this._pictures.has(id);
	}
	pictures(): string[] {
		return [...this._pictures.keys()];
	}
	/** PNG of the picture in the given size (bytes differ per size). */
	picturePng(id: string, size: string): Buffer | undefined {
		const p = this._pictures.get(id);
		const px = IMAGE_SIZES[size];
		if (!p || !px) return undefined;
		let png = p.cache.get(size);
		if (!png) {
			png = makePng(px, px, id);
			p.cache.set(size, png);
		}
		return png;
	}
	/** What GET /file/image serves for the picture in the given size: its content type and bytes. */
	pictureFile(id: string, size: string): { contentType: string; bytes: Buffer } | undefined {
		const p = this._pictures.get(id);
		if (!p || !IMAGE_SIZES[size]) return undefined;
		const bytes = p.bytes ?? this.picturePng(id, size);
		return bytes ? { contentType: p.contentType, bytes } : undefined;
	}

	// ------------------------------------------------------------------ knowledge

	knowledgeBases(): KnowledgeBase[] {
		return [...this._kbs.values()].map((k) => ({ ...k }));
	}
	knowledgeBase(id: string): KnowledgeBase | undefined {
		const k = this._kbs.get(id);
		return k ? { ...k } : undefined;
	}
	addKnowledgeBase(p: { name: string; description?: string | null; metadata?: Record<string, unknown>; id?: string }): KnowledgeBase {
		const now = nowIso();
		const kb: KnowledgeBase = { id: p.id ?? uuid(), name: p.name, description: p.description ?? null, metadata: p.metadata ?? {}, createdAt: now, updatedAt: now };
		this._kbs.set(kb.id, kb);
		return { ...kb };
	}
	updateKnowledgeBase(id: string, p: { name?: string; description?: string | null; metadata?: Record<string, unknown> }): KnowledgeBase | undefined {
		const kb = this._kbs.get(id);
		if (!kb) return undefined;
		if (p.name !== undefined) kb.name = p.name;
		if (p.description !== undefined) kb.description = p.description;
		if (p.metadata !== undefined) kb.metadata = p.metadata;
		kb.updatedAt = nowIso();
		return { ...kb };
	}
	deleteKnowledgeBase(id: string): boolean {
		if (!this._kbs.delete(id)) return false;
		for (const f of [...this._files.values()]) if (f.knowledgeId === id) this.deleteKnowledgeFile(id, f.id);
		return true;
	}
	knowledgeFiles(kbId: string): KnowledgeFile[] {
		return [...this._files.values()].filter((f) => f.knowledgeId === kbId).map((f) => ({ ...f }));
	}
	knowledgeFile(kbId: string, fileId: string): KnowledgeFile | undefined {
		const f = this._files.get(fileId);
		return f && f.knowledgeId === kbId ? { ...f } : undefined;
	}
	knowledgeFileBlob(kbId: string, fileId: string): StoredBlob | undefined {
		return this.knowledgeFile(kbId, fileId) ? this._blobs.get(fileId) : undefined;
	}
	async readKnowledgeFile(kbId: string, fileId: string): Promise<Buffer | undefined> {
		return this.knowledgeFileBlob(kbId, fileId)?.read();
	}
	/** Seeding helper: adds a file from memory. */
	addKnowledgeFile(kbId: string, p: { name: string; content: string | Buffer; mimeType?: string; metadata?: Record<string, string | string[]>; id?: string }): KnowledgeFile {
		const blob = this.store.fromBuffer(typeof p.content === 'string' ? Buffer.from(p.content) : p.content);
		return this.putKnowledgeFile(kbId, { id: p.id, name: p.name, mimeType: p.mimeType ?? 'application/octet-stream', metadata: p.metadata ?? {} }, blob);
	}
	/** Stores a new file (or replaces an existing one when `id` exists in that base). */
	putKnowledgeFile(kbId: string, p: { id?: string; name: string; mimeType: string; metadata: Record<string, string | string[]> }, blob: StoredBlob): KnowledgeFile {
		if (!this._kbs.has(kbId)) throw new Error(`unknown knowledge base ${kbId}`);
		const now = nowIso();
		const existing = p.id ? this._files.get(p.id) : undefined;
		const f: KnowledgeFile = {
			id: p.id ?? uuid(),
			knowledgeId: kbId,
			name: p.name,
			mimeType: p.mimeType,
			size: blob.size,
			sha256: blob.sha256,
			status: 'ready',
			metadata: p.metadata,
			createdAt: existing?.createdAt ?? now,
			updatedAt: now,
		};
		const old = this._blobs.get(f.id);
		if (old && old !== blob) old.dispose();
		this._files.set(f.id, f);
		this._blobs.set(f.id, blob);
		this.touch(kbId);
		return { ...f };
	}
	deleteKnowledgeFile(kbId: string, fileId: string): boolean {
		const f = this._files.get(fileId);
		if (!f || f.knowledgeId !== kbId) return false;
		this._files.delete(fileId);
		this._blobs.get(fileId)?.dispose();
		this._blobs.delete(fileId);
		return true;
	}
	private touch(kbId: string): void {
		const kb = this._kbs.get(kbId);
		if (kb) kb.updatedAt = nowIso();
	}
	fileCount(kbId: string): number {
		let n = 0;
		for (const f of this._files.values()) if (f.knowledgeId === kbId) n++;
		return n;
	}

	// ------------------------------------------------------------------ forms

	forms(): FormRecord[] {
		return this._forms.map((f) => ({ ...f }));
	}
	addForm(f: Omit<FormRecord, 'id'> & { id?: string }): FormRecord {
		const rec: FormRecord = { ...f, id: f.id ?? objectId() };
		this._forms.push(rec);
		return { ...rec };
	}

	// ------------------------------------------------------------------ tasks

	tasks(): TaskRecord[] {
		return [...this._tasks.values()].map((t) => ({ ...t }));
	}
	task(id: string): TaskRecord | undefined {
		const t = this._tasks.get(id);
		return t ? { ...t } : undefined;
	}
	addTask(p: Partial<TaskRecord> & { taskTitle: string }): TaskRecord {
		const now = nowIso();
		const t: TaskRecord = {
			...p,
			id: p.id ?? uuid(),
			taskTitle: p.taskTitle,
			taskDescription: p.taskDescription ?? null,
			priority: p.priority ?? null,
			dueDate: p.dueDate ?? null,
			assigneeId: p.assigneeId ?? null,
			checklist: p.checklist ?? [],
			parentId: p.parentId ?? null,
			isSubtask: !!p.parentId,
			status: 'open',
			createdBy: p.createdBy ?? SEED.users.alice._id,
			createdAt: now,
			updatedAt: now,
		};
		this._tasks.set(t.id, t);
		return { ...t };
	}
	taskTopics(): TaskTopic[] {
		return [...this._taskTopics.values()].map((t) => ({ ...t }));
	}
	taskTopic(id: string): TaskTopic | undefined {
		return this._taskTopics.get(id);
	}
	addTaskTopic(p: { name: string; id?: string }): TaskTopic {
		const t = { id: p.id ?? uuid(), name: p.name };
		this._taskTopics.set(t.id, t);
		return { ...t };
	}

	// ------------------------------------------------------------------ tokens

	get issuedTokenCount(): number {
		return this._issuedTokens;
	}
	tokens(): IssuedToken[] {
		return [...this._tokens.values()].map((t) => ({ ...t, scope: [...t.scope] }));
	}
	issueToken(clientId: string, scope: string[], ttlSeconds: number): IssuedToken {
		const now = Date.now();
		const t: IssuedToken = { token: 'sim_' + randomBytes(24).toString('base64url'), clientId, scope, issuedAt: now, expiresAt: now + ttlSeconds * 1000, revoked: false };
		this._tokens.set(t.token, t);
		this._issuedTokens++;
		return { ...t };
	}
	checkToken(token: string): TokenCheck {
		const t = this._tokens.get(token);
		if (!t) return { ok: false, reason: 'unknown' };
		if (t.revoked || Date.now() >= t.expiresAt) return { ok: false, reason: 'expired' };
		return { ok: true, token: t };
	}
	/** Every issued access token becomes invalid (401 on next use). */
	expireTokens(): void {
		for (const t of this._tokens.values()) t.revoked = true;
	}

	// ------------------------------------------------------------------ snapshot

	snapshot(): Record<string, unknown> {
		return {
			users: this.users(),
			groups: this.groups(),
			topics: this.topics(),
			directChats: this.directChats(),
			sentMessages: this.sentMessages(),
			pictures: this.pictures(),
			knowledgeBases: this.knowledgeBases().map((kb) => ({ ...kb, files: this.knowledgeFiles(kb.id) })),
			forms: this.forms(),
			tasks: this.tasks(),
			taskTopics: this.taskTopics(),
			issuedTokens: this._issuedTokens,
			activeTokens: this.tokens().filter((t) => !t.revoked && t.expiresAt > Date.now()).length,
			taskReadOnlyJwt: this.taskReadOnlyJwt,
		};
	}
}
