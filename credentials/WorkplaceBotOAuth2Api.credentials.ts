import type {
	IAuthenticateGeneric,
	IAuthenticateRuleResponseCode,
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	INodeProperties,
} from 'n8n-workflow';

import { displayUrl, hostOf, networkReason, platformMessage, redactSecrets, TIMEOUT_MS } from '../nodes/shared/credentialTest';
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
		const tokenUrl = `${baseUrl}/oauth/token`;
		const shown = `POST ${displayUrl(tokenUrl)}`;
		let response: IDataObject;
		try {
			response = (await this.helpers.httpRequest({
				method: 'POST',
				url: tokenUrl,
				headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
				auth: { username: String(credentials.clientId ?? ''), password: String(credentials.clientSecret ?? '') },
				body: { grant_type: 'client_credentials', scope: String(credentials.scope || 'bot profile') },
				timeout: TIMEOUT_MS,
			})) as IDataObject;
		} catch (error) {
			// Decided by the status; only the platform's answer goes into the message (the request carried the secret).
			const response = (error as { response?: { status?: number; data?: unknown; headers?: IDataObject } }).response;
			const status = response?.status;
			// Lets the nodes tell a refused secret from a throttled or failing token endpoint.
			noteTokenRequestFailure(credentials, BOT_ACCOUNT_FIELDS, { status, retryAfter: response?.headers?.['retry-after'] });
			const platform = status ? platformMessage(status, response?.data) : '';
			throw new Error(redactSecrets(tokenFailureMessage(status, shown, tokenUrl, error, platform), [credentials.clientSecret]));
		}
		const accessToken = typeof response?.access_token === 'string' ? response.access_token : '';
		if (accessToken === '') {
			throw new Error(`The token endpoint ${displayUrl(tokenUrl)} answered without an access_token: check the "Base URL" field. ${BASE_URL_HINT}`);
		}
		return { accessToken };
	}

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.accessToken}}' } },
	};

	/**
	 * The "Test" button: n8n runs preAuthentication (the token request, whose failures carry the
	 * messages of tokenFailureMessage on both majors), then looks up a user by name, which changes
	 * nothing and proves the token carries the "bot" scope. The rules name the lookup's failures;
	 * n8n 2.x applies them, n8n 1.x shows its own text for the status instead (its routing errors
	 * do not carry the response the rules are matched against).
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/bot/v1/users',
			qs: { username: 'n8n-credential-test' },
			timeout: TIMEOUT_MS,
		},
		rules: [
			lookupRule(401, 'The platform issued a token but refused it for GET /bot/v1/users (HTTP 401): check the "Base URL" field, the token endpoint and the bot API must be the same platform'),
			lookupRule(403, 'The platform issued a token without the "bot" scope (HTTP 403 from GET /bot/v1/users): the bot profile may not look up users, ask the platform admin to grant it the scope "bot profile"'),
			lookupRule(404, `The token endpoint answered, but there is no bot API at this address (HTTP 404 from GET /bot/v1/users): check the "Base URL" field. ${BASE_URL_HINT}`),
			lookupRule(405, `The token endpoint answered, but there is no bot API at this address (HTTP 405 from GET /bot/v1/users): check the "Base URL" field. ${BASE_URL_HINT}`),
			lookupRule(429, 'The bot API is limiting requests (HTTP 429 from GET /bot/v1/users): the credential could not be checked, try again later'),
			...[500, 502, 503, 504].map((status) =>
				lookupRule(status, `The bot API failed to answer (HTTP ${status} from GET /bot/v1/users): the token was issued, the bot API could not be checked, try again later`),
			),
		],
	};
}

const BASE_URL_HINT = "It is the platform's address without a path, e.g. https://workplace.example.com.";

function lookupRule(status: number, message: string): IAuthenticateRuleResponseCode {
	return { type: 'responseCode', properties: { value: status, message } };
}

/** Why the token request failed, decided by its HTTP status (or its absence). */
function tokenFailureMessage(status: number | undefined, shown: string, tokenUrl: string, error: unknown, platform: string): string {
	if (status === undefined) {
		return `Could not reach ${displayUrl(tokenUrl)}: ${networkReason(error)}. Check the "Base URL" field: ${hostOf(tokenUrl)} must be reachable from n8n.`;
	}
	if (status === 401) {
		return `The platform refused the bot's client ID or secret (HTTP 401 from ${shown}): check the "Client ID" and "Client Secret" fields.${platform}`;
	}
	if (status === 400) {
		return `The token endpoint refused the token request (HTTP 400 from ${shown}): check the "Client ID" and "Client Secret" fields.${platform}`;
	}
	if (status === 403) {
		return `The platform refused the bot a token (HTTP 403 from ${shown}): the bot profile may not use the client credentials grant with the scope "bot profile".${platform}`;
	}
	if (status === 404 || status === 405) {
		return `There is no token endpoint at this address (HTTP ${status} from ${shown}): check the "Base URL" field. ${BASE_URL_HINT}${platform}`;
	}
	if (status === 429) {
		return `The token endpoint is limiting requests (HTTP 429 from ${shown}): try again later.${platform}`;
	}
	if (status >= 500) {
		return `The token endpoint failed to answer (HTTP ${status} from ${shown}): the client ID and secret could not be checked, try again later.${platform}`;
	}
	return `Could not get a bot access token (HTTP ${status} from ${shown}).${platform}`;
}
