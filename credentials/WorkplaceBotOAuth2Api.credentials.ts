import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	INodeProperties,
} from 'n8n-workflow';

import { BOT_BASE_URL_HINT, botTokenFailureMessage } from '../nodes/shared/credentialTests/botTest';
import { displayUrl, platformMessage, redactSecrets } from '../nodes/shared/credentialTests/probe';
import { BOT_TOKEN } from '../nodes/shared/transport/botToken';
import { isClientTimeout, secondsText } from '../nodes/shared/transport/timeLimit';
import { noteTokenRequestFailure, tokenRequestWatch } from '../nodes/shared/transport/token';

import { baseUrlProperty, secretProperty } from './properties';

/**
 * OAuth 2.0 client credentials for the bot API. Despite its name (saved in workflows, so it stays)
 * it does not extend n8n's generic `oAuth2Api`: there is no Connect button and no token URL field,
 * because the platform issues tokens with the client credentials grant only. The token is
 * fetched by preAuthentication and saved with the credential (an expirable property), so it is
 * reused across items and executions; n8n fetches a new one when it is empty or after a 401. The
 * "Test" button is the Workplace Bot node's `testBotCredential` (named by `testedBy`), so that
 * n8n 1.x and 2.x show the same message for every failure of the token request and of the lookup
 * after it.
 */
export class WorkplaceBotOAuth2Api implements ICredentialType {
	name = 'workplaceBotOAuth2Api';

	displayName = 'Workplace Bot OAuth2 API';

	icon: Icon = { light: 'file:icons/workplace.svg', dark: 'file:icons/workplace.dark.svg' };

	documentationUrl = 'https://github.com/workplace-n8n/n8n-nodes-workplace#workplace-bot-oauth2-api';

	properties: INodeProperties[] = [
		baseUrlProperty('Address of the platform; the token comes from {Base URL}/oauth/token'),
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: "The bot profile's client ID",
		},
		secretProperty('Client Secret', 'clientSecret', "The bot profile's client secret"),
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'hidden',
			default: 'bot profile',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const baseUrl = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
		const tokenUrl = `${baseUrl}/oauth/token`;
		// The time limit of the call that waits for the token (not counted in its own time; timeLimit.ts).
		const watch = tokenRequestWatch(credentials, BOT_TOKEN.identityFields);
		let accessToken = '';
		watch.started();
		try {
			const response = (await this.helpers.httpRequest({
				method: 'POST',
				url: tokenUrl,
				headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
				auth: { username: String(credentials.clientId ?? ''), password: String(credentials.clientSecret ?? '') },
				body: { grant_type: 'client_credentials', scope: String(credentials.scope || 'bot profile') },
				timeout: watch.timeoutMs,
			})) as IDataObject;
			accessToken = typeof response?.access_token === 'string' ? response.access_token : '';
		} catch (error) {
			// Decided by the status; only the platform's answer goes into the message (the request carried the secret).
			const response = (error as { response?: { status?: number; data?: unknown; headers?: IDataObject } }).response;
			const status = response?.status;
			// Lets the nodes tell a refused secret from a throttled or failing token endpoint.
			noteTokenRequestFailure(credentials, BOT_TOKEN.identityFields, { status, retryAfter: response?.headers?.['retry-after'] });
			if (status === undefined && isClientTimeout(error)) {
				throw new Error(
					`POST ${displayUrl(tokenUrl)} (the bot's access token request) timed out after ${secondsText(watch.timeoutMs)} without an answer. Nothing was sent with the token yet.`,
				);
			}
			const platform = status ? platformMessage(status, response?.data) : '';
			throw new Error(redactSecrets(botTokenFailureMessage(status, tokenUrl, error, platform), [credentials.clientSecret]));
		} finally {
			watch.ended(accessToken || undefined);
		}
		if (accessToken === '') {
			throw new Error(`The token endpoint ${displayUrl(tokenUrl)} answered without an access_token: check the "Base URL" field. ${BOT_BASE_URL_HINT}`);
		}
		return { accessToken };
	}

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.accessToken}}' } },
	};
}
