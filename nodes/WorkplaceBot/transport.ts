import type { ICredentialsDecrypted, ICredentialTestFunctions, IDataObject, INodeCredentialTestResult } from 'n8n-workflow';

import { BOT_ACCOUNT_FIELDS } from '../../credentials/WorkplaceBotOAuth2Api.credentials';

import { runBotCredentialTest } from '../shared/botCredentialTest';
import type { ApiDefinition, RequestContext, WorkplaceRequest, WorkplaceResponse } from '../shared/transport';
import { workplaceRequest } from '../shared/transport';

/** The bot API (v1, v2 and image retrieval) under {base_url}, signed with the bot's OAuth token. */
export const BOT_API: ApiDefinition = {
	credentialType: 'workplaceBotOAuth2Api',
	baseUrl: (credentials) => String(credentials.baseUrl ?? ''),
	// One token per process and bot account, fetched by n8n through the credential's preAuthentication.
	expirableToken: { property: 'accessToken', identityFields: BOT_ACCOUNT_FIELDS },
};

export async function botRequest<T = IDataObject>(
	ctx: RequestContext,
	request: WorkplaceRequest,
	itemIndex = 0,
): Promise<WorkplaceResponse<T>> {
	return await workplaceRequest<T>(ctx, BOT_API, request, itemIndex);
}

/** The bot credential's "Test" button (named by `testedBy` in Workplace Bot and Workplace Trigger). */
export async function testBotCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	return await runBotCredentialTest(this.helpers, credential.data);
}
