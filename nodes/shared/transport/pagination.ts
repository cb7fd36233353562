import type { IDataObject } from 'n8n-workflow';

import { workplaceRequest } from './request';
import type { ApiDefinition, RequestContext, WorkplaceRequest } from './index';

export interface ListEnvelope<T> {
	data?: T[];
	total?: number;
	pagination?: IDataObject;
}

/**
 * Walks `page`/`pageSize` pages until `total` records were read, a page comes back
 * short or empty, or `limit` is reached.
 */
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
	for (let page = 1; ; page++) {
		const { body } = await workplaceRequest<ListEnvelope<T>>(
			ctx,
			api,
			{ ...request, qs: { ...(request.qs ?? {}), page, pageSize: size } },
			itemIndex,
		);
		const data = Array.isArray(body?.data) ? body.data : [];
		records.push(...data);
		if (limit !== undefined && records.length >= limit) return records.slice(0, limit);
		if (data.length === 0) return records;
		// `total` decides when it is given: the platform may cap a page below the size asked for.
		if (typeof body?.total === 'number') {
			if (records.length >= body.total) return records;
		} else if (data.length < size) {
			return records;
		}
	}
}
