/**
 * Where a reply to a Workplace Trigger event goes: the event's group and thread (topic, main chat
 * or direct chat), as the platform names them in the event.
 */
import type { IDataObject } from 'n8n-workflow';

import { chatOf } from '../../../../shared/conversation';
import { isPlainObject } from '../../../../shared/validation';

export type ReplyTarget =
	/** A group's topic or main chat (`tid` ''), or a direct chat's thread. */
	| { gid: string; tid: string }
	/** A direct chat named only by its user: a join event from before platform 14.1.0 (no `source.gid`). */
	| { uid: string };

/**
 * The conversation of a bot event: a message or postback's `message.groupId`/`topicId` (or its
 * `sessionId`), a join's `source.gid` (its direct chat; the thread is the chat's only one, sent as
 * `tid` ''), else a join's `source.uid`. Undefined when the event names none (a user event, or
 * something else).
 */
export function replyTargetOf(event: IDataObject): ReplyTarget | undefined {
	const { groupId, topicId } = chatOf(event);
	if (groupId) return { gid: groupId, tid: topicId ?? '' };
	const source = isPlainObject(event.source) ? event.source : {};
	if (event.type === 'join' && typeof source.uid === 'string' && source.uid.trim() !== '') return { uid: source.uid.trim() };
	return undefined;
}
