import type { IDataObject } from 'n8n-workflow';

import { workplaceRequest } from './request';
import type { ApiDefinition, RequestContext, WorkplaceRequest, WorkplaceResponse } from './types';

/**
 * The transport's entry (its parts never import it back): the types of a call and its answer
 * (types.ts), apiAt and requestTo. The work is split by job:
 * request.ts sends a call (retries, token, error mapping), attempt.ts sends it once,
 * retryPolicy.ts decides how often and how long to retry, timeLimit.ts how long an attempt may
 * take (the watchdog, the upload and download progress), token.ts and tokenCall.ts share a
 * bot token per process, errors.ts turns platform answers into NodeApiErrors, pagination.ts walks
 * list pages, apiPath.ts encodes IDs into paths, botApi.ts is the bot API's entry.
 */
export { workplaceRequest } from './request';
export { FIRST_PAGE, requestAllPages, requestPage } from './pagination';
export type { PageCursor } from './pagination';
export { DEFAULT_RETRY_POLICY, itemRetryPolicy, parseRetryAfter } from './retryPolicy';
export type { RetryPolicy } from './retryPolicy';
export type { ApiDefinition, RequestContext, WorkplaceRequest, WorkplaceResponse } from './types';

/** An interface whose base address is one field of its credential (`urlField`). */
export function apiAt(credentialType: string, urlField: string, forbiddenCauses?: readonly string[]): ApiDefinition {
	return {
		credentialType,
		baseUrl: (credentials) => String(credentials[urlField] ?? ''),
		...(forbiddenCauses ? { forbiddenCauses } : {}),
	};
}

/** The request function of one interface: workplaceRequest with the interface filled in. */
export function requestTo(api: ApiDefinition) {
	return async function <T = IDataObject>(
		ctx: RequestContext,
		request: WorkplaceRequest,
		itemIndex = 0,
	): Promise<WorkplaceResponse<T>> {
		return await workplaceRequest<T>(ctx, api, request, itemIndex);
	};
}
