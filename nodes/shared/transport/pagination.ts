import type { IDataObject } from 'n8n-workflow';

import { workplaceRequest } from './request';
import type { ApiDefinition, RequestContext, WorkplaceRequest } from './types';

export interface ListEnvelope<T> {
	data?: T[];
	total?: number;
	pagination?: IDataObject;
}

/** Where a walk through a list stands: the page to ask for next and how many records came before it. */
export interface PageCursor {
	page: number;
	read: number;
}

export const FIRST_PAGE: PageCursor = { page: 1, read: 0 };

/**
 * One `page`/`pageSize` page of a list. `next` is the cursor of the page after it, undefined when
 * the list ends here: the page was empty, `total` records were read, or (without `total`) the
 * page came back short. `total` decides when it is given: the platform may cap a page below the
 * size asked for. Get Many (requestAllPages) and the From List pickers page this one way.
 */
export async function requestPage<T = IDataObject>(
	ctx: RequestContext,
	api: ApiDefinition,
	request: WorkplaceRequest,
	itemIndex: number,
	cursor: PageCursor,
	pageSize: number,
): Promise<{ records: T[]; next?: PageCursor }> {
	const { body } = await workplaceRequest<ListEnvelope<T>>(
		ctx,
		api,
		{ ...request, qs: { ...(request.qs ?? {}), page: cursor.page, pageSize } },
		itemIndex,
	);
	const records = Array.isArray(body?.data) ? body.data : [];
	const read = cursor.read + records.length;
	const more =
		records.length > 0 && (typeof body?.total === 'number' ? read < body.total : records.length >= pageSize);
	return { records, next: more ? { page: cursor.page + 1, read } : undefined };
}

/** Walks the pages of a list (requestPage) until it ends or `limit` records were read. */
export async function requestAllPages<T = IDataObject>(
	ctx: RequestContext,
	api: ApiDefinition,
	request: WorkplaceRequest,
	itemIndex: number,
	{ pageSize, limit }: { pageSize: number; limit?: number },
): Promise<T[]> {
	// The page size stays the same on every page, or page numbers would point at other offsets.
	const size = Math.max(1, limit === undefined ? pageSize : Math.min(pageSize, limit));
	const records: T[] = [];
	let cursor: PageCursor | undefined = FIRST_PAGE;
	while (cursor) {
		const page: { records: T[]; next?: PageCursor } = await requestPage<T>(ctx, api, request, itemIndex, cursor, size);
		records.push(...page.records);
		if (limit !== undefined && records.length >= limit) return records.slice(0, limit);
		cursor = page.next;
	}
	return records;
}
