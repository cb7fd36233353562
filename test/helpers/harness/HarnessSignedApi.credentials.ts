import { createHmac } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProperty as baseUrl } from './harness-shared';

// TEST-ONLY credential type for test/engine/harness.test.ts (not part of the package).
/** Function-style authenticate: signs the request URL with an HMAC of the secret. */
export class HarnessSignedApi implements ICredentialType {
	name = 'harnessSignedApi';

	displayName = 'Harness Signed API';

	properties: INodeProperties[] = [
		baseUrl,
		{
			displayName: 'Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const signature = createHmac('sha256', String(credentials.secret))
			.update(String(requestOptions.url))
			.digest('hex');
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, 'x-signature': signature },
		};
	}
}
