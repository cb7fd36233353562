import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { listSearchItems, matchesFilter } from '../../shared/listSearch';
import { apiPath } from '../../shared/transport/apiPath';
import { botRequest } from '../../shared/transport/botApi';

/** The first entry of the thread picker: an empty thread ID sends to the group's main chat. */
export const MAIN_CHAT: INodeListSearchItems = { name: 'Main Chat', value: '' };

/**
 * Statuses of a platform that has no topic list (the spec documents none, see
 * docs/assumptions.md): the picker then offers the main chat alone, and a topic is given By ID.
 */
const NO_TOPIC_LIST = new Set(['404', '405', '501']);

/** The group ID the node holds now, or '' while it is empty or an expression (not known yet). */
function currentGroupId(ctx: ILoadOptionsFunctions): string {
	const value = ctx.getCurrentNodeParameter('groupId', { extractValue: true });
	const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	return text.startsWith('=') || /[\s/?#]/.test(text) ? '' : text;
}

/**
 * The group's topics, or undefined on a platform without the topic list. The transport throws
 * only NodeApiError and NodeOperationError, passed on as they are.
 */
async function groupTopics(ctx: ILoadOptionsFunctions, gid: string): Promise<IDataObject[] | undefined> {
	const answer = await botRequest<{ topics?: unknown }>(ctx, {
		method: 'GET',
		path: apiPath`/bot/v1/groups/${gid}/topics`,
	}).catch((error: unknown) => ({ error }));
	if ('body' in answer) return Array.isArray(answer.body?.topics) ? (answer.body.topics as IDataObject[]) : [];
	if (answer.error instanceof NodeApiError && NO_TOPIC_LIST.has(String(answer.error.httpCode))) return undefined;
	throw answer.error;
}

/**
 * "Thread" picker of Message > Send to Thread: the main chat, then the group's topics from
 * GET /bot/v1/groups/{gid}/topics (`{topics: [{_id, name, gid}]}`), filtered by name.
 */
export async function searchThreads(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const mainChat = matchesFilter(MAIN_CHAT.name, filter) ? [MAIN_CHAT] : [];
	const gid = currentGroupId(this);
	const topics = gid === '' ? undefined : await groupTopics(this, gid);
	return { results: [...mainChat, ...listSearchItems(topics ?? [], filter)] };
}
