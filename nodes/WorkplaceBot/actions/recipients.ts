import type { IExecuteFunctions } from 'n8n-workflow';

import { requireId } from '../../shared/validation';

/** Topic ID of a group message, or '' for the group's main chat. */
export function topicId(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = String(ctx.getNodeParameter('topicId', itemIndex, '') ?? '').trim();
	return value === '' ? '' : requireId(ctx, itemIndex, 'topicId', 'Topic ID');
}

// Conversation keys: the router sends the items of one conversation one after another, in item order.

/** A user's direct chat with the bot. */
export function directConversationKey(this: IExecuteFunctions, itemIndex: number): string {
	return `user:${String(this.getNodeParameter('userId', itemIndex, '')).trim()}`;
}

/** A group's main chat or one of its topics. */
export function groupConversationKey(this: IExecuteFunctions, itemIndex: number): string {
	const gid = String(this.getNodeParameter('groupId', itemIndex, '')).trim();
	const tid = String(this.getNodeParameter('topicId', itemIndex, '') ?? '').trim();
	return `thread:${gid}:${tid}`;
}

/** A group's main chat, for operations that have no topic. */
export function groupMainChatConversationKey(this: IExecuteFunctions, itemIndex: number): string {
	return `thread:${String(this.getNodeParameter('groupId', itemIndex, '')).trim()}:`;
}
