import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { addressProperty, secretProperty } from './properties';

/**
 * The knowledge API: a key in the x-api-key header. Its "Test" button is the Workplace Knowledge
 * node's `testKnowledgeCredential` (nodes/WorkplaceKnowledge/transport.ts): GET /knowledge with
 * one record, judged by the HTTP status on n8n 1.x and 2.x alike.
 */
export class WorkplaceKnowledgeApi implements ICredentialType {
	name = 'workplaceKnowledgeApi';

	displayName = 'Workplace Knowledge API';

	icon: Icon = { light: 'file:icons/workplace.svg', dark: 'file:icons/workplace.dark.svg' };

	documentationUrl = 'https://github.com/workplace-n8n/n8n-nodes-workplace#credentials';

	properties: INodeProperties[] = [
		addressProperty(
			'Knowledge URL',
			'knowledgeUrl',
			'https://workplace.example.com/api/v1',
			'Address of the knowledge API, including its /api/v1 path prefix',
		),
		secretProperty(
			'API Key',
			'apiKey',
			'Key sent in the x-api-key header. The platform also checks that n8n calls from an allowed address.',
		),
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { 'x-api-key': '={{$credentials.apiKey}}' } },
	};
}
