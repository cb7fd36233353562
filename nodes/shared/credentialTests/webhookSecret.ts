import type { ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';

/**
 * The Workplace Webhook API credential's "Test" button (named by `testedBy` in Workplace Trigger
 * and Workplace Bot). The secret is never sent anywhere, so there is no request to test it with:
 * the secret is present and usable as an HMAC key, and each delivery is verified when it arrives.
 */
export async function workplaceWebhookSecretTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const secret = credential.data?.secret;
	if (typeof secret !== 'string' || secret === '') {
		return { status: 'Error', message: 'Enter the secret configured for the webhook on the platform' };
	}
	if (secret.trim() !== secret) {
		return {
			status: 'Error',
			message: 'The secret starts or ends with white space; signatures would not match',
		};
	}
	return {
		status: 'OK',
		message: 'Secret saved. The platform offers no way to check it: each delivery is verified when it arrives.',
	};
}
