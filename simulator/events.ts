/**
 * Event factories producing realistic webhook payloads (spec section "Events").
 * Defaults reference the seeded data (alice and her direct chat with the bot).
 */
import { randomBytes } from 'crypto';
import { SEED } from './seed';
import { objectId } from './util';

export interface BotMessageEvent {
	type: 'message';
	replyToken: string;
	message: {
		id: string;
		type: 'text' | 'file' | 'sticker';
		groupId: string;
		topicId: string;
		text: string;
		fileName?: string;
		pictureId?: string;
		[key: string]: unknown;
	};
	source: { type: 'user'; userId: string; username: string };
	timestamp: string;
	sessionId: string;
}

export interface BotJoinEvent {
	type: 'join';
	replyToken: string;
	source: { type: 'direct_chat'; uid: string; gid?: string };
	timestamp: string;
}

/** Shape not shown in the spec; LINE-like choice, see README. */
export interface BotPostbackEvent {
	type: 'postback';
	replyToken: string;
	postback: { data: string; params?: Record<string, string> };
	source: { type: 'user'; userId: string; username: string };
	timestamp: string;
	sessionId: string;
}

export type BotEvent = BotMessageEvent | BotJoinEvent | BotPostbackEvent;

export function replyToken(): string {
	return randomBytes(16).toString('hex');
}

function ts(t?: string | Date | number): string {
	if (t === undefined) return new Date().toISOString();
	return new Date(t).toISOString();
}

const alice = SEED.users.alice;
const aliceChat = SEED.directChats.alice;

export function messageEvent(p: {
	text?: string;
	userId?: string;
	username?: string;
	groupId?: string;
	topicId?: string;
	pictureId?: string;
	fileName?: string;
	type?: 'text' | 'file' | 'sticker';
	messageId?: string;
	timestamp?: string | Date | number;
	extra?: Record<string, unknown>;
} = {}): BotMessageEvent {
	const type = p.type ?? (p.pictureId !== undefined || p.fileName !== undefined ? 'file' : 'text');
	const groupId = p.groupId ?? aliceChat.gid;
	const topicId = p.topicId ?? (p.groupId === undefined ? aliceChat.tid : '');
	const message: BotMessageEvent['message'] = {
		id: p.messageId ?? objectId(),
		type,
		groupId,
		topicId,
		text: p.text ?? (type === 'text' ? 'Hello bot' : ''),
		...p.extra,
	};
	if (p.fileName !== undefined) message.fileName = p.fileName;
	if (p.pictureId !== undefined) message.pictureId = p.pictureId;
	return {
		type: 'message',
		replyToken: replyToken(),
		message,
		source: { type: 'user', userId: p.userId ?? alice._id, username: p.username ?? alice.username },
		timestamp: ts(p.timestamp),
		sessionId: `${groupId}_${topicId}`,
	};
}

/** Emitted when a user starts a direct chat with the bot. `gid: null` omits source.gid (platform < 14.1.0). */
export function joinEvent(p: { uid?: string; gid?: string | null; timestamp?: string | Date | number } = {}): BotJoinEvent {
	const source: BotJoinEvent['source'] = { type: 'direct_chat', uid: p.uid ?? alice._id };
	if (p.gid !== null) source.gid = p.gid ?? aliceChat.gid;
	return { type: 'join', replyToken: replyToken(), source, timestamp: ts(p.timestamp) };
}

export function postbackEvent(p: {
	data?: string;
	params?: Record<string, string>;
	userId?: string;
	username?: string;
	groupId?: string;
	topicId?: string;
	timestamp?: string | Date | number;
} = {}): BotPostbackEvent {
	const groupId = p.groupId ?? aliceChat.gid;
	const topicId = p.topicId ?? (p.groupId === undefined ? aliceChat.tid : '');
	const postback: BotPostbackEvent['postback'] = { data: p.data ?? 'action=approve&id=1' };
	if (p.params) postback.params = p.params;
	return {
		type: 'postback',
		replyToken: replyToken(),
		postback,
		source: { type: 'user', userId: p.userId ?? alice._id, username: p.username ?? alice.username },
		timestamp: ts(p.timestamp),
		sessionId: `${groupId}_${topicId}`,
	};
}

export function botEnvelope(...events: BotEvent[]): { events: BotEvent[] } {
	return { events };
}

export interface UserRecord {
	_id: string;
	admin_panel_access: boolean;
	avatar: string;
	contacts: unknown[];
	coverPhoto: string;
	deleted: boolean;
	email: string;
	extras: Record<string, unknown>;
	firstname: string;
	firstname_first_character: string;
	invited: boolean;
	is_licensed: boolean;
	isBot: boolean;
	isVerifiedEmail: boolean;
	lastname: string;
	loginCount: number;
	network_admin: boolean;
	nid: string;
	position: string;
	redeemedPoints: number;
	roleIDs: string[];
	settings: { workHours: { enabled: boolean; lastUpdate: string; workDays: unknown[] } };
	status: string;
	stickerPacks: unknown[];
	totalPoints: number;
	username: string;
	[key: string]: unknown;
}

/** Full user record as carried by user webhook events (defaults: a fresh user). */
export function userRecord(overrides: Partial<UserRecord> = {}): UserRecord {
	const id = overrides._id ?? objectId();
	const firstname = overrides.firstname ?? 'Frank';
	const username = overrides.username ?? `user.${id.slice(-6)}`;
	return {
		_id: id,
		admin_panel_access: false,
		avatar: `https://avatars.example.com/${id}.png`,
		contacts: [],
		coverPhoto: '',
		deleted: false,
		email: `${username}@example.com`,
		extras: {},
		firstname,
		firstname_first_character: firstname.charAt(0).toUpperCase(),
		invited: false,
		is_licensed: true,
		isBot: false,
		isVerifiedEmail: true,
		lastname: 'Fischer',
		loginCount: 0,
		network_admin: false,
		nid: '64f0e0000000000000000001',
		position: 'Analyst',
		redeemedPoints: 0,
		roleIDs: [],
		settings: {
			workHours: {
				enabled: false,
				lastUpdate: new Date().toISOString(),
				workDays: [
					{ day: 'monday', start: '09:00', end: '17:00' },
					{ day: 'tuesday', start: '09:00', end: '17:00' },
					{ day: 'wednesday', start: '09:00', end: '17:00' },
					{ day: 'thursday', start: '09:00', end: '17:00' },
					{ day: 'friday', start: '09:00', end: '17:00' },
				],
			},
		},
		status: 'active',
		stickerPacks: [],
		totalPoints: 0,
		username,
		...overrides,
	};
}

export function userEvent(action: 'created' | 'updated' | 'deleted', user: Partial<UserRecord> = {}): { action: 'created' | 'updated' | 'deleted'; user: UserRecord } {
	const u = userRecord(user);
	if (action === 'deleted' && user.deleted === undefined) u.deleted = true;
	return { action, user: u };
}
