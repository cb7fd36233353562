import type { IAuthenticateGeneric, ICredentialDataDecryptedObject, ICredentialType, IDataObject, IHttpRequestHelper, INodeProperties } from 'n8n-workflow';

import { baseUrlProperty as baseUrl } from './harness-shared';

// TEST-ONLY credential type for test/engine/harness.test.ts (not part of the package).
/** preAuthentication: an expirable session token fetched from /token, sent as Bearer. */
export class HarnessSessionApi implements ICredentialType {
	name = 'harnessSessionApi';

	displayName = 'Harness Session API';

	properties: INodeProperties[] = [
		baseUrl,
		{
			displayName: 'Username',
			name: 'username',
			type: 'string',
			default: '',
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{
			displayName: 'Session Token',
			name: 'sessionToken',
			type: 'hidden',
			typeOptions: { expirable: true },
			default: '',
		},
	];

	async preAuthentication(
		this: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
	): Promise<IDataObject> {
		const response = (await this.helpers.httpRequest({
			method: 'POST',
			url: `${String(credentials.baseUrl)}/token`,
			body: { username: credentials.username, password: credentials.password },
			json: true,
		})) as { token: string };
		return { sessionToken: response.token };
	}

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.sessionToken}}',
			},
		},
	};
}
