import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	INodeProperties,
} from 'n8n-workflow';

import { noteTokenRequestFailure } from '../nodes/shared/token';

/** The fields that identify a bot account: one access token per account and n8n process. */
export const BOT_ACCOUNT_FIELDS = ['baseUrl', 'clientId', 'scope'];

/**
 * OAuth 2.0 client credentials for the bot API. The token is fetched by preAuthentication and
 * saved with the credential (an expirable property), so it is reused across items and
 * executions; n8n fetches a new one when it is empty or after a 401.
 */
export class WorkplaceBotOAuth2Api implements ICredentialType {
	name = 'workplaceBotOAuth2Api';

	displayName = 'Workplace Bot OAuth2 API';

	icon: Icon = { light: 'file:icons/workplace.svg', dark: 'file:icons/workplace.dark.svg' };

	documentationUrl = 'https://github.com/workplace-n8n/n8n-nodes-workplace#workplace-bot-oauth2-api';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://workplace.example.com',
			description: 'Address of the platform; the token comes from {Base URL}/oauth/token',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: "The bot profile's client ID",
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: "The bot profile's client secret",
		},
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
		let response: IDataObject;
		try {
			response = (await this.helpers.httpRequest({
				method: 'POST',
				url: `${baseUrl}/oauth/token`,
				headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
				auth: { username: String(credentials.clientId ?? ''), password: String(credentials.clientSecret ?? '') },
				body: { grant_type: 'client_credentials', scope: String(credentials.scope || 'bot profile') },
			})) as IDataObject;
		} catch (error) {
			// Only the platform's answer goes into the message: the request carried the secret.
			const response = (error as { response?: { status?: number; data?: IDataObject; headers?: IDataObject } }).response;
			const status = response?.status;
			const data = response?.data ?? {};
			const reason = [data.error, data.error_description].filter(Boolean).join(': ');
			// Lets the nodes tell a refused secret from a throttled or failing token endpoint.
			noteTokenRequestFailure(credentials, BOT_ACCOUNT_FIELDS, { status, retryAfter: response?.headers?.['retry-after'] });
			if (status === 401 || status === 400) {
				throw new Error(`The platform refused the bot's client ID or secret (HTTP ${status}${reason ? `, ${reason}` : ''})`);
			}
			throw new Error(
				`Could not get a bot access token from ${baseUrl}/oauth/token: ${status ? `HTTP ${status}${reason ? `, ${reason}` : ''}` : (error as Error).message}`,
			);
		}
		const accessToken = typeof response?.access_token === 'string' ? response.access_token : '';
		if (accessToken === '') {
			throw new Error(`The token endpoint ${baseUrl}/oauth/token answered without an access_token`);
		}
		return { accessToken };
	}

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.accessToken}}' } },
	};

	// Looking up a user by name changes nothing and proves the token carries the "bot" scope.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/bot/v1/users',
			qs: { username: 'n8n-credential-test' },
		},
	};
}
