import type { IExecuteFunctions } from 'n8n-workflow';

import { requireId } from '../../shared/validation';
import { userConversationKey } from './users';
import { nodeParameter } from '../../shared/parameters';

/** The group of a group message: `{ gid, tid }`, tid '' for the main chat; `{ gid }` where there is no topic. */
export function groupRecipient(
	ctx: IExecuteFunctions,
	itemIndex: number,
	{ topic }: { topic: boolean },
): { gid: string; tid?: string } {
	const gid = requireId(ctx, itemIndex, 'groupId', 'Group ID');
	if (!topic) return { gid };
	const value = String(nodeParameter(ctx, 'topicId', itemIndex, '') ?? '').trim();
	return { gid, tid: value === '' ? '' : requireId(ctx, itemIndex, 'topicId', 'Topic ID') };
}

// Conversation keys: the router sends the items of one conversation one after another, in item order.

/** A user's direct chat with the bot. */
export function directConversationKey(this: IExecuteFunctions, itemIndex: number): string {
	return userConversationKey(this, itemIndex);
}

/** A group's main chat or one of its topics. */
export function groupConversationKey(this: IExecuteFunctions, itemIndex: number): string {
	const gid = String(nodeParameter(this, 'groupId', itemIndex, '')).trim();
	const tid = String(nodeParameter(this, 'topicId', itemIndex, '') ?? '').trim();
	return `thread:${gid}:${tid}`;
}

/** A group's main chat, for operations that have no topic. */
export function groupMainChatConversationKey(this: IExecuteFunctions, itemIndex: number): string {
	return `thread:${String(nodeParameter(this, 'groupId', itemIndex, '')).trim()}:`;
}
