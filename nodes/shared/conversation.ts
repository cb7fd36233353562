import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from './validation';

/**
 * The conversation of a bot event (message, join, postback): read by the Workplace Trigger (its
 * filters and the `conversationKey` of its items) and by Workplace Bot's Message > Reply to Event.
 */

function str(value: unknown): string | undefined {
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Group and topic of a bot event: message.groupId/topicId, else source.gid (join), else the
 * sessionId (group id and topic id joined by an underscore).
 */
export function chatOf(event: IDataObject): { groupId?: string; topicId?: string } {
	const message = isPlainObject(event.message) ? event.message : {};
	const source = isPlainObject(event.source) ? event.source : {};
	const [sessionGroup, sessionTopic] = (str(event.sessionId) ?? '').split('_');
	return {
		groupId: str(message.groupId) ?? str(source.gid) ?? str(source.groupId) ?? str(sessionGroup),
		topicId: str(message.topicId) ?? str(source.tid) ?? str(source.topicId) ?? str(sessionTopic),
	};
}

/**
 * The conversation a bot event belongs to, the same for every event of one conversation: the
 * field `conversationKey` of the trigger's output, the Session Key for n8n's memory nodes.
 *
 * - a topic, or a direct chat's thread as message events name it: `<groupId>_<topicId>` (the
 *   platform's own `sessionId`);
 * - a group's main chat (no topic): `<groupId>`;
 * - a direct chat the trigger knows from its join event (`directChats`, the group IDs join events
 *   named): `<groupId>` for the join and for every later message and postback in it, since a join
 *   names the direct chat's group (`source.gid`) but not its thread;
 * - an event without a group (a join before platform 14.1.0, user events): none.
 */
export function conversationKeyOf(event: IDataObject, directChats?: ReadonlySet<string>): string | undefined {
	const { groupId, topicId } = chatOf(event);
	if (!groupId) return undefined;
	const source = isPlainObject(event.source) ? event.source : {};
	if (event.type === 'join' || source.type === 'direct_chat' || directChats?.has(groupId)) return groupId;
	return topicId ? `${groupId}_${topicId}` : groupId;
}

/** The event as the trigger outputs it: with `conversationKey` when it has a conversation. */
export function withConversationKey(event: IDataObject, directChats?: ReadonlySet<string>): IDataObject {
	const conversationKey = conversationKeyOf(event, directChats);
	return conversationKey === undefined ? event : { ...event, conversationKey };
}
