import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listSearchItems } from '../../shared/listSearch';
import { apiPath } from '../../shared/transport/apiPath';
import { knowledgeRequest } from '../transport';
import type { ListEnvelope } from '../../shared/transport';

const PAGE_SIZE = 50;

/** One page of a list endpoint, filtered by name on our side (the API has no search parameter). */
async function searchPage(
	ctx: ILoadOptionsFunctions,
	path: string,
	filter: string | undefined,
	paginationToken: string | undefined,
): Promise<INodeListSearchResult> {
	const page = Number(paginationToken ?? 1) || 1;
	const { body } = await knowledgeRequest<ListEnvelope<IDataObject>>(ctx, {
		method: 'GET',
		path,
		qs: { page, pageSize: PAGE_SIZE },
	});
	const records = Array.isArray(body?.data) ? body.data : [];
	const results = listSearchItems(records, filter);
	const seen = (page - 1) * PAGE_SIZE + records.length;
	const more = records.length === PAGE_SIZE && (typeof body?.total !== 'number' || seen < body.total);
	return { results, paginationToken: more ? String(page + 1) : undefined };
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
