import type {
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProperty as baseUrl } from './harness-shared';

// TEST-ONLY credential type for test/engine/harness.test.ts (not part of the package).
/** OAuth2 client credentials, extending the generic oAuth2Api type. */
export class HarnessOAuth2Api implements ICredentialType {
	name = 'harnessOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'Harness OAuth2 API';

	properties: INodeProperties[] = [
		baseUrl,
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'hidden',
			default: 'clientCredentials',
		},
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'hidden',
			default: '={{$self["baseUrl"]}}/oauth/token',
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'hidden',
			default: 'read write',
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'hidden',
			default: 'header',
		},
	];
}
