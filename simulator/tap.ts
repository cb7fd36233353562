/**
 * "Tap a button as a given user": finds a pushed bot message and one of its postback actions,
 * and builds the postback event the platform would send to the bot's webhook.
 * The delivery itself is done by the server (`Simulator.tap`, or `Simulator.tapTogether` for
 * several taps in one delivery), with webhook-sender.ts.
 */
import { BotPostbackEvent, postbackEvent } from './events';
import type { SentBotMessage, SimulatorState } from './state';
import { isPlainObject } from './util';

export interface TapRequest {
	/** The action's label (exact). */
	label?: string;
	/** 0-based over the message's postback actions: template actions, carousel columns' actions, quick reply items' actions. */
	index?: number;
	/** The sent message's id (`SentBotMessage.id`, the push answer's `message.id`). */
	messageId?: string;
	/** The thread the message is in: a group (every thread of it), with `topicId` one thread ('' = the main chat). */
	groupId?: string;
	topicId?: string;
	/** The user's direct chat with the bot (user id, or a username). */
	uid?: string;
	/** Who taps: a username or user id known to the state, or `{userId, username}` (a missing one is filled from the state). */
	user: { userId?: string; username?: string } | string;
	/** Where the event goes (default: the configured `botWebhookUrl`). */
	webhookUrl?: string;
	/** HMAC secret (default: the configured `botWebhookSecret`); null = unsigned. */
	secret?: string | null;
	/** Delivery timeout, default 10000 ms. */
	timeoutMs?: number;
	/** Let a user tap who is not a member of the message's group (the platform would not show it to them). */
	allowNonMember?: boolean;
}

export interface TapResult {
	/** The webhook's answer status. */
	status: number;
	/** The webhook's answer body (text). */
	body: string;
	/** The X-Service-Signature sent (undefined when unsigned). */
	signature?: string;
	/** The postback event delivered in `{events: [event]}`. */
	event: BotPostbackEvent;
}

/** Where several taps delivered together go (`Simulator.tapTogether`), and how their times are spread. */
export interface TapsDelivery {
	/** Where the delivery goes (default: the configured `botWebhookUrl`). */
	webhookUrl?: string;
	/** HMAC secret (default: the configured `botWebhookSecret`); null = unsigned. */
	secret?: string | null;
	/** Delivery timeout, default 10000 ms. */
	timeoutMs?: number;
	/** The events' timestamps: the last tap now, each earlier one this much before the next (default 1000 ms). */
	spacingMs?: number;
}

export interface TapsResult {
	/** The webhook's answer status. */
	status: number;
	/** The webhook's answer body (text). */
	body: string;
	/** The X-Service-Signature sent (undefined when unsigned). */
	signature?: string;
	/** The postback events delivered in `{events: [...]}`, in the order of the taps. */
	events: BotPostbackEvent[];
}

/** The default time between two taps of one delivery (`TapsDelivery.spacingMs`). */
export const TAPS_SPACING_MS = 1000;

/** A refused tap: `status` is the control route's answer (404 nothing found, 400 not possible, 502 delivery failed). */
export class TapError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
		this.name = 'TapError';
	}
}

interface FoundAction {
	action: Record<string, unknown>;
	/** where it is in the message, e.g. `template.actions[1]` */
	path: string;
}

/** Every action of a pushed message that a user can tap, in order: template actions, carousel columns' actions, quick reply items' actions. */
export function tappableActions(content: unknown): FoundAction[] {
	const out: FoundAction[] = [];
	if (!isPlainObject(content)) return out;
	const push = (a: unknown, path: string): void => {
		if (isPlainObject(a)) out.push({ action: a, path });
	};
	const t = content.template;
	if (isPlainObject(t)) {
		if (Array.isArray(t.actions)) t.actions.forEach((a, i) => push(a, `template.actions[${i}]`));
		if (Array.isArray(t.columns)) {
			t.columns.forEach((c, ci) => {
				if (isPlainObject(c) && Array.isArray(c.actions)) c.actions.forEach((a, i) => push(a, `template.columns[${ci}].actions[${i}]`));
			});
		}
	}
	const q = content.quickReply;
	if (isPlainObject(q) && Array.isArray(q.items)) {
		q.items.forEach((it, i) => {
			if (isPlainObject(it)) push(it.action, `quickReply.items[${i}].action`);
		});
	}
	return out;
}

/** The message's postback actions in the order `index` counts them. */
export function postbackActions(content: unknown): FoundAction[] {
	return tappableActions(content).filter((f) => f.action.type === 'postback');
}

function describeMessage(m: SentBotMessage): string {
	return `message ${m.id} (group ${m.groupId}, thread ${m.threadId})`;
}

function labels(actions: FoundAction[]): string {
	return actions.map((f, i) => `${i}: ${JSON.stringify(f.action.label ?? '')}`).join(', ');
}

/** The tapping user: from the state when known; a user given as {userId, username} is taken as given. */
export function resolveTapUser(state: SimulatorState, user: TapRequest['user'] | undefined): { userId: string; username: string } {
	if (typeof user === 'string') {
		const u = state.userByUsername(user) ?? state.user(user);
		if (!u) throw new TapError(400, `unknown user "${user}": give a username or user id the simulator knows, or {userId, username}`);
		return { userId: u._id, username: u.username };
	}
	if (!isPlainObject(user)) throw new TapError(400, 'user is required: a username (e.g. "bob") or {userId, username}');
	const userId = typeof user.userId === 'string' && user.userId ? user.userId : undefined;
	const username = typeof user.username === 'string' && user.username ? user.username : undefined;
	if (userId && username) return { userId, username };
	if (userId) {
		const u = state.user(userId);
		if (!u) throw new TapError(400, `unknown user id ${userId}: give its username too`);
		return { userId, username: u.username };
	}
	if (username) {
		const u = state.userByUsername(username);
		if (!u) throw new TapError(400, `unknown username ${username}: give its userId too`);
		return { userId: u._id, username };
	}
	throw new TapError(400, 'user needs a userId or a username');
}

/** The message tapped: by id, else the latest in the given thread or direct chat (or overall) that has a matching action. */
export function findTapMessage(state: SimulatorState, req: TapRequest): SentBotMessage {
	if (req.messageId !== undefined) {
		const m = state.sentMessages().find((x) => x.id === req.messageId);
		if (!m) throw new TapError(404, `no sent message with id ${req.messageId}`);
		return m;
	}
	let list: SentBotMessage[];
	let where: string;
	if (req.groupId !== undefined) {
		if (!state.group(req.groupId)) throw new TapError(404, `unknown group ${req.groupId}`);
		list = state.sentMessages(req.topicId !== undefined ? { gid: req.groupId, tid: req.topicId } : { gid: req.groupId });
		where = req.topicId !== undefined ? `thread ${req.topicId || '(main chat)'} of group ${req.groupId}` : `group ${req.groupId}`;
	} else if (req.topicId !== undefined) {
		list = state.sentMessages().filter((m) => m.threadId === req.topicId);
		where = `thread ${req.topicId}`;
	} else if (req.uid !== undefined) {
		const uid = state.user(req.uid)?._id ?? state.userByUsername(req.uid)?._id ?? req.uid;
		list = state.sentMessages({ uid });
		where = `the direct chat with ${req.uid}`;
	} else {
		list = state.sentMessages();
		where = 'any conversation';
	}
	// the latest message a user could tap this on: with an action of that label, else with a postback action
	const fits = (m: SentBotMessage): boolean =>
		req.label !== undefined ? tappableActions(m.content).some((f) => f.action.label === req.label) : postbackActions(m.content).length > 0;
	for (let i = list.length - 1; i >= 0; i--) if (fits(list[i])) return list[i];
	const what = req.label !== undefined ? `an action labelled ${JSON.stringify(req.label)}` : 'a postback action';
	throw new TapError(404, `no sent message with ${what} in ${where}`);
}

/** The postback action tapped: by label (exact), by index over the postback actions, or the only one. */
export function findPostbackAction(m: SentBotMessage, req: Pick<TapRequest, 'label' | 'index'>): Record<string, unknown> {
	const postbacks = postbackActions(m.content);
	if (req.label !== undefined) {
		const hit = postbacks.find((f) => f.action.label === req.label);
		if (hit) return hit.action;
		const other = tappableActions(m.content).find((f) => f.action.label === req.label);
		if (other) throw new TapError(400, `the action ${JSON.stringify(req.label)} of ${describeMessage(m)} is a ${String(other.action.type)} action at ${other.path}, not a postback: tapping it sends no event`);
		throw new TapError(404, `no action labelled ${JSON.stringify(req.label)} in ${describeMessage(m)}; postback actions: ${labels(postbacks) || 'none'}`);
	}
	if (req.index !== undefined) {
		if (!Number.isInteger(req.index) || req.index < 0) throw new TapError(400, 'index must be an integer >= 0');
		const hit = postbacks[req.index];
		if (!hit) throw new TapError(404, `${describeMessage(m)} has ${postbacks.length} postback action(s), no index ${req.index}`);
		return hit.action;
	}
	if (postbacks.length === 1) return postbacks[0].action;
	if (!postbacks.length) throw new TapError(400, `${describeMessage(m)} has no postback action`);
	throw new TapError(400, `${describeMessage(m)} has ${postbacks.length} postback actions: give label or index (${labels(postbacks)})`);
}

/** The checks and the event of a tap (no delivery); `at` is the event's time (default now). */
export function prepareTap(state: SimulatorState, req: TapRequest, at?: number): { message: SentBotMessage; action: Record<string, unknown>; event: BotPostbackEvent } {
	if (req.label !== undefined && typeof req.label !== 'string') throw new TapError(400, 'label must be a string');
	if (req.index !== undefined && typeof req.index !== 'number') throw new TapError(400, 'index must be a number');
	if (req.label !== undefined && req.index !== undefined) throw new TapError(400, 'give label or index, not both');
	const user = resolveTapUser(state, req.user);
	const message = findTapMessage(state, req);
	const action = findPostbackAction(message, req);
	if (typeof action.data !== 'string') throw new TapError(400, `the postback action ${JSON.stringify(action.label ?? '')} of ${describeMessage(message)} has no string data`);
	if (!req.allowNonMember && !state.isMember(message.groupId, user.userId)) {
		const g = state.group(message.groupId);
		const chat = g?.type === 'direct_chat' ? `the direct chat ${message.groupId} (only its user sees it)` : `group ${message.groupId}`;
		throw new TapError(400, `user ${user.username} (${user.userId}) is not a member of ${chat}, so cannot tap its message; set allowNonMember: true to tap anyway`);
	}
	const event = postbackEvent({ data: action.data, userId: user.userId, username: user.username, groupId: message.groupId, topicId: message.threadId, timestamp: at });
	return { message, action, event };
}

/**
 * The events of several taps delivered together, in the order given: the last one at `now`,
 * each earlier one `spacingMs` before the next (the platform sends taps that already happened).
 */
export function prepareTaps(state: SimulatorState, taps: TapRequest[], spacingMs = TAPS_SPACING_MS, now = Date.now()): BotPostbackEvent[] {
	if (!Array.isArray(taps) || !taps.length) throw new TapError(400, 'taps must be a non-empty array of taps');
	if (!(spacingMs >= 0)) throw new TapError(400, 'spacingMs must be a number >= 0');
	for (const t of taps) {
		if (t.webhookUrl !== undefined || t.secret !== undefined || t.timeoutMs !== undefined) {
			throw new TapError(400, 'webhookUrl, secret and timeoutMs belong to the delivery, not to one of its taps');
		}
	}
	return taps.map((t, i) => prepareTap(state, t, now - (taps.length - 1 - i) * spacingMs).event);
}

/** The delivery fields of a tap or of several taps delivered together, from the control route's JSON. */
function deliveryFromJson(j: Record<string, unknown>): Pick<TapRequest, 'webhookUrl' | 'secret' | 'timeoutMs'> {
	const out: Pick<TapRequest, 'webhookUrl' | 'secret' | 'timeoutMs'> = {};
	if (j.webhookUrl !== undefined && j.webhookUrl !== null) {
		if (typeof j.webhookUrl !== 'string') throw new TapError(400, 'webhookUrl must be a string');
		out.webhookUrl = j.webhookUrl;
	}
	if (j.secret !== undefined) {
		if (j.secret !== null && typeof j.secret !== 'string') throw new TapError(400, 'secret must be a string or null');
		out.secret = j.secret;
	}
	if (j.timeoutMs !== undefined && j.timeoutMs !== null) {
		if (typeof j.timeoutMs !== 'number' || !(j.timeoutMs > 0)) throw new TapError(400, 'timeoutMs must be a number > 0');
		out.timeoutMs = j.timeoutMs;
	}
	return out;
}

/** A TapRequest from the control route's JSON (types checked; the rest by prepareTap). */
export function tapRequestFromJson(j: unknown): TapRequest {
	if (!isPlainObject(j)) throw new TapError(400, 'body must be a JSON object {label?, index?, messageId?, groupId?, topicId?, uid?, user, webhookUrl?, secret?, timeoutMs?, allowNonMember?}');
	const req: TapRequest = { user: j.user as TapRequest['user'], ...deliveryFromJson(j) };
	for (const k of ['label', 'messageId', 'groupId', 'topicId', 'uid'] as const) {
		if (j[k] === undefined || j[k] === null) continue;
		if (typeof j[k] !== 'string') throw new TapError(400, `${k} must be a string`);
		req[k] = j[k];
	}
	if (j.index !== undefined && j.index !== null) {
		if (typeof j.index !== 'number') throw new TapError(400, 'index must be a number');
		req.index = j.index;
	}
	if (j.allowNonMember !== undefined) req.allowNonMember = j.allowNonMember === true;
	return req;
}

/** Several taps delivered together, from the control route's JSON `{taps: [...], webhookUrl?, secret?, timeoutMs?, spacingMs?}`. */
export function tapsRequestFromJson(j: unknown): { taps: TapRequest[]; delivery: TapsDelivery } {
	if (!isPlainObject(j) || !Array.isArray(j.taps)) throw new TapError(400, 'body must be a JSON object {taps: [{label?, index?, messageId?, groupId?, topicId?, uid?, user, allowNonMember?}, ...], webhookUrl?, secret?, timeoutMs?, spacingMs?}');
	const delivery: TapsDelivery = deliveryFromJson(j);
	if (j.spacingMs !== undefined && j.spacingMs !== null) {
		if (typeof j.spacingMs !== 'number') throw new TapError(400, 'spacingMs must be a number');
		delivery.spacingMs = j.spacingMs;
	}
	return { taps: j.taps.map(tapRequestFromJson), delivery };
}
