import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiPath } from '../../shared/transport/apiPath';
import { knowledgeRequest } from '../transport';
import type { ListEnvelope } from '../../shared/transport';

const PAGE_SIZE = 50;

function recordId(record: IDataObject): string {
	return String(record.id ?? record._id ?? '');
}

function recordName(record: IDataObject): string {
	return String(record.name ?? record.fileName ?? record.title ?? recordId(record));
}

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
	const needle = filter?.trim().toLowerCase();
	const results = records
		.filter((record) => recordId(record) !== '')
		.filter((record) => !needle || recordName(record).toLowerCase().includes(needle))
		.map((record) => ({ name: recordName(record), value: recordId(record) }));
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
