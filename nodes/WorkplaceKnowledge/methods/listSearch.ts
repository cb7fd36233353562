import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listSearchItems } from '../../shared/listSearch';
import { apiPath } from '../../shared/transport/apiPath';
import type { PageCursor } from '../../shared/transport';
import { FIRST_PAGE } from '../../shared/transport';
import { knowledgeListPage } from '../transport';

const PAGE_SIZE = 50;

/** The picker's pagination token: the next page and how many records came before it ("2:50"). */
function cursorOf(paginationToken: string | undefined): PageCursor {
	const match = /^(\d+):(\d+)$/.exec(paginationToken ?? '');
	return match && Number(match[1]) >= 1 ? { page: Number(match[1]), read: Number(match[2]) } : FIRST_PAGE;
}

/**
 * One page of a list endpoint, filtered by name on our side (the API has no search parameter);
 * the next page is decided as Get Many decides it (requestPage in nodes/shared/transport/pagination.ts).
 */
async function searchPage(
	ctx: ILoadOptionsFunctions,
	path: string,
	filter: string | undefined,
	paginationToken: string | undefined,
): Promise<INodeListSearchResult> {
	const { records, next } = await knowledgeListPage(ctx, path, cursorOf(paginationToken), PAGE_SIZE);
	return { results: listSearchItems(records, filter), paginationToken: next ? `${next.page}:${next.read}` : undefined };
}

export async function searchKnowledgeBases(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage(this, '/knowledge', filter, paginationToken);
}

export async function searchFiles(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const knowledgeBaseId = String(
		this.getCurrentNodeParameter('knowledgeBaseId', { extractValue: true }) ?? '',
	).trim();
	if (knowledgeBaseId === '') return { results: [] };
	return await searchPage(
		this,
		apiPath`/knowledge/${knowledgeBaseId}/files`,
		filter,
		paginationToken,
	);
}
