import type { IDataObject } from 'n8n-workflow';

import type { ApiDefinition, RequestContext, WorkplaceRequest, WorkplaceResponse } from '../shared/transport';
import { workplaceRequest } from '../shared/transport';

/**
 * The form API under {base_url}. Creating a form is a POST without an idempotency key, so the
 * shared transport retries it only after a 429 (not processed), never after a 5xx.
 */
export const FORM_API: ApiDefinition = {
	credentialType: 'workplaceFormApi',
	baseUrl: (credentials) => String(credentials.baseUrl ?? ''),
};

export async function formRequest<T = IDataObject>(
	ctx: RequestContext,
	request: WorkplaceRequest,
	itemIndex = 0,
): Promise<WorkplaceResponse<T>> {
	return await workplaceRequest<T>(ctx, FORM_API, request, itemIndex);
}
