import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProperty, secretProperty, testNotice } from './properties';

/**
 * The form API: an API key (X-API-Key) plus a token naming the user or session (X-API-Token),
 * with JSON accept and content-type headers on every call. Its "Test" button is the Workplace
 * Form node's `testFormCredential` (nodes/WorkplaceForm/transport.ts), judged by the HTTP status.
 */
export class WorkplaceFormApi implements ICredentialType {
	name = 'workplaceFormApi';

	displayName = 'Workplace Form API';

	icon: Icon = { light: 'file:icons/workplace.svg', dark: 'file:icons/workplace.dark.svg' };

	documentationUrl = 'https://github.com/workplace-n8n/n8n-nodes-workplace#workplace-form-api';

	properties: INodeProperties[] = [
		testNotice(
			'The form API has no read-only call, so "Test" sends POST /v1/forms with a body that cannot be a form (no name, subject, sender, recipients, fields or status; values outside the documented limits). The platform refuses it and nothing is created; the same request with a made-up key and token must then get 401 or 403, which shows the key and token were checked.',
		),
		baseUrlProperty('Address of the platform; forms are created at {Base URL}/v1/forms'),
		secretProperty('API Key', 'apiKey', 'Sent in the X-API-Key header'),
		secretProperty(
			'User or Session Token',
			'token',
			'Sent in the X-API-Token header; identifies the user or session on whose behalf forms are created',
		),
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
}
