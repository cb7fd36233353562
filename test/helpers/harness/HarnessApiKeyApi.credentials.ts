import type {
	IAuthenticateGeneric,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProperty as baseUrl } from './harness-shared';

// TEST-ONLY credential type for test/engine/harness.test.ts (not part of the package).
/** Generic authentication: header, query string and a templated header from credential values. */
export class HarnessApiKeyApi implements ICredentialType {
	name = 'harnessApiKeyApi';

	displayName = 'Harness API Key API';

	properties: INodeProperties[] = [
		baseUrl,
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{
			displayName: 'Tenant',
			name: 'tenant',
			type: 'string',
			default: 'default-tenant',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'x-api-key': '={{$credentials.apiKey}}',
				'x-client': '=harness/{{$credentials.tenant}}',
			},
			qs: {
				tenant: '={{$credentials.tenant}}',
			},
		},
	};
}
