import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class WorkplaceKnowledgeApi implements ICredentialType {
	name = 'workplaceKnowledgeApi';

	displayName = 'Workplace Knowledge API';

	icon: Icon = { light: 'file:icons/workplace.svg', dark: 'file:icons/workplace.dark.svg' };

	documentationUrl = 'https://github.com/workplace-n8n/n8n-nodes-workplace#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Knowledge URL',
			name: 'knowledgeUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://workplace.example.com/api/v1',
			description: 'Address of the knowledge API, including its /api/v1 path prefix',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Key sent in the x-api-key header. The platform also checks that n8n calls from an allowed address.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { 'x-api-key': '={{$credentials.apiKey}}' } },
	};

	// Listing one knowledge base reads nothing sensitive and proves both the key and the address.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.knowledgeUrl.replace(/\\/+$/, "")}}',
			url: '/knowledge',
			qs: { page: 1, pageSize: 1 },
		},
	};
}
