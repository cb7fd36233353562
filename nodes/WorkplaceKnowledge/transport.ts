import type { IDataObject } from 'n8n-workflow';

import type { RequestContext, WorkplaceRequest, WorkplaceResponse } from '../shared/transport';
import { requestAllPages, workplaceRequest } from '../shared/transport';
import type { ApiDefinition } from '../shared/transport';

export const KNOWLEDGE_API: ApiDefinition = {
	credentialType: 'workplaceKnowledgeApi',
	baseUrl: (credentials) => String(credentials.knowledgeUrl ?? ''),
};

export async function knowledgeRequest<T = IDataObject>(
	ctx: RequestContext,
	request: WorkplaceRequest,
	itemIndex = 0,
): Promise<WorkplaceResponse<T>> {
	return await workplaceRequest<T>(ctx, KNOWLEDGE_API, request, itemIndex);
}

export async function knowledgeList(
	ctx: RequestContext,
	path: string,
	itemIndex: number,
	options: { pageSize: number; limit?: number },
): Promise<IDataObject[]> {
	return await requestAllPages<IDataObject>(ctx, KNOWLEDGE_API, { method: 'GET', path }, itemIndex, options);
}
