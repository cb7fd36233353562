import type { IDataObject } from 'n8n-workflow';

import type { ApiDefinition, RequestContext, WorkplaceRequest, WorkplaceResponse } from '../shared/transport';
import { workplaceRequest } from '../shared/transport';

/** The bot API (v1, v2 and image retrieval) under {base_url}, signed with the bot's OAuth token. */
export const BOT_API: ApiDefinition = {
	credentialType: 'workplaceBotOAuth2Api',
	baseUrl: (credentials) => String(credentials.baseUrl ?? ''),
	// A user lookup changes nothing; n8n renews the token when it answers 401.
	tokenRefreshProbe: { path: '/bot/v1/users', qs: { username: 'n8n-token-refresh' } },
};

export async function botRequest<T = IDataObject>(
	ctx: RequestContext,
	request: WorkplaceRequest,
	itemIndex = 0,
): Promise<WorkplaceResponse<T>> {
	return await workplaceRequest<T>(ctx, BOT_API, request, itemIndex);
}
