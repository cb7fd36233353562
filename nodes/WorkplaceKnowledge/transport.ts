import type { IDataObject } from 'n8n-workflow';

import { credentialText } from '../shared/credentialTests/probe';
import { credentialTestMethod } from '../shared/credentialTests/testMethod';
import type { PageCursor, RequestContext } from '../shared/transport';
import { apiAt, requestAllPages, requestPage, requestTo } from '../shared/transport';

export const KNOWLEDGE_API = apiAt('workplaceKnowledgeApi', 'knowledgeUrl', [
	'the API key lacks the right to this operation (e.g. a read-only key)',
	'the API key may not access this knowledge base',
]);

export const knowledgeRequest = requestTo(KNOWLEDGE_API);

/**
 * DELETE a knowledge base or a file. It is sent again after a 5xx, a lost connection or a
 * timeout; a 404 to that retry means an earlier attempt deleted it and its answer was lost, so
 * the item succeeds with the fields returned here (`retried`, `alreadyGone`) added to its
 * output. A 404 to the first attempt (or after a 429, not processed) fails as usual.
 */
export async function knowledgeDelete(ctx: RequestContext, path: string, itemIndex: number): Promise<IDataObject> {
	const request = { method: 'DELETE' as const, path, notFoundAfterRetrySucceeds: true };
	const { statusCode } = await knowledgeRequest(ctx, request, itemIndex);
	return statusCode === 404 ? { retried: true, alreadyGone: true } : {};
}

export async function knowledgeList(
	ctx: RequestContext,
	path: string,
	itemIndex: number,
	options: { pageSize: number; limit?: number },
): Promise<IDataObject[]> {
	return await requestAllPages<IDataObject>(ctx, KNOWLEDGE_API, { method: 'GET', path }, itemIndex, options);
}

/** One page of a list, paged as knowledgeList pages (for the From List pickers). */
export async function knowledgeListPage(
	ctx: RequestContext,
	path: string,
	cursor: PageCursor,
	pageSize: number,
): Promise<{ records: IDataObject[]; next?: PageCursor }> {
	return await requestPage<IDataObject>(ctx, KNOWLEDGE_API, { method: 'GET', path }, 0, cursor, pageSize);
}

/**
 * The credential's "Test" button: lists one knowledge base (GET {knowledge_url}/knowledge),
 * which reads nothing sensitive and proves the address, the key and the allowed address list.
 */
export const testKnowledgeCredential = credentialTestMethod((data) => {
	const apiKey = credentialText(data, 'apiKey');
	if (apiKey.trim() === '') return 'Enter the API key in the "API Key" field';
	return {
		api: 'knowledge API',
		method: 'GET',
		baseUrl: credentialText(data, 'knowledgeUrl'),
		urlField: 'Knowledge URL',
		urlHint: 'It is the address of the knowledge API including its /api/v1 prefix, e.g. https://workplace.example.com/api/v1.',
		path: '/knowledge',
		qs: { page: 1, pageSize: 1 },
		headers: { 'x-api-key': apiKey, accept: 'application/json' },
		secretName: 'API key',
		rejectedSecret: 'API key',
		secretFields: 'the "API Key" field',
		unauthorizedHint:
			"The knowledge API also answers 401 when n8n calls from an address that is not on the platform's allowed list.",
		forbiddenHint: 'the API key may not list knowledge bases',
		secrets: [apiKey],
	};
});
