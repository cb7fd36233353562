import type {
	IAuthenticateGeneric,
	IAuthenticateRuleResponseSuccessBody,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * The form API: an API key (X-API-Key) plus a token naming the user or session (X-API-Token),
 * with JSON accept and content-type headers on every call.
 */
export class WorkplaceFormApi implements ICredentialType {
	name = 'workplaceFormApi';

	displayName = 'Workplace Form API';

	icon: Icon = { light: 'file:icons/workplace.svg', dark: 'file:icons/workplace.dark.svg' };

	documentationUrl = 'https://github.com/workplace-n8n/n8n-nodes-workplace#workplace-form-api';

	properties: INodeProperties[] = [
		{
			displayName:
				'The form API has no read-only call, so "Test" sends POST /v1/forms with an empty body. The platform checks the key and token first and then rejects the empty form as invalid: nothing is created. Only a rejected key or token (or a wrong Base URL) fails the test.',
			name: 'testNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://workplace.example.com',
			description: 'Address of the platform; forms are created at {Base URL}/v1/forms',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Sent in the X-API-Key header',
		},
		{
			displayName: 'User or Session Token',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Sent in the X-API-Token header; identifies the user or session on whose behalf forms are created',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'X-API-Key': '={{$credentials.apiKey}}',
				'X-API-Token': '={{$credentials.token}}',
				accept: 'application/json',
				'content-type': 'application/json',
			},
		},
	};

	// No harmless read exists: a form without its required fields passes authentication and fails
	// validation (400), which proves the key and token without creating anything. With
	// ignoreHttpStatusErrors the answer's body decides: the platform's error codes, and the common
	// framework shapes ({statusCode}, {error: 'Not Found'}) for a wrong Base URL.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/v1/forms',
			method: 'POST',
			body: { name: 'n8n credential test: a form without fields or recipients, rejected by the platform' },
			ignoreHttpStatusErrors: true,
		},
		rules: [
			...[
				['code', 'unauthorized'],
				['statusCode', 401],
			].map(([key, value]) => rule(key, value, UNAUTHORIZED)),
			...[
				['code', 'forbidden'],
				['statusCode', 403],
			].map(([key, value]) => rule(key, value, FORBIDDEN)),
			...[
				['code', 'not_found'],
				['error', 'Not Found'],
				['statusCode', 404],
			].map(([key, value]) => rule(key, value, NOT_FOUND)),
		],
	};
}

const UNAUTHORIZED = 'The platform rejected the API key or the token (401)';
const FORBIDDEN = 'The API key or token may not create forms (403)';
const NOT_FOUND = 'No form API at this Base URL (404): use the platform address, without /v1';

function rule(key: string | number, value: string | number, message: string): IAuthenticateRuleResponseSuccessBody {
	return { type: 'responseSuccessBody', properties: { key: String(key), value, message } };
}
