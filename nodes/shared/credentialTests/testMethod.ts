import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import type { CredentialProbe } from './probe';
import { credentialText, runCredentialProbe } from './probe';

/**
 * A node's "Test" button for an API credential (its `methods.credentialTest` entry, named by
 * `testedBy`). `probeFor` reads the credential and gives the probe to send, or, when a field
 * the test needs is empty, the message saying which.
 */
export function credentialTestMethod(probeFor: (data: ICredentialDataDecryptedObject | undefined) => CredentialProbe | string) {
	return async function (
		this: ICredentialTestFunctions,
		credential: ICredentialsDecrypted,
	): Promise<INodeCredentialTestResult> {
		const probe = probeFor(credential.data);
		if (typeof probe === 'string') return { status: 'Error', message: probe };
		return await runCredentialProbe(this.helpers, probe);
	};
}

/**
 * For an API without a harmless call: its create call with a body the spec refuses (400 or 422)
 * proves the credential, once the same call with `controlHeaders` (made-up credentials) is
 * refused as unauthorized.
 */
export function refusedCreate(what: string, controlHeaders: CredentialProbe['headers']): CredentialProbe['invalidBody'] {
	return { statuses: [400, 422], what, controlHeaders };
}

/** Where the form and task tests send their create call: a POST below the credential's Base URL. */
export function postBelowBaseUrl(
	data: ICredentialDataDecryptedObject | undefined,
): Pick<CredentialProbe, 'method' | 'baseUrl' | 'urlField'> {
	return { method: 'POST', baseUrl: credentialText(data, 'baseUrl'), urlField: 'Base URL' };
}
