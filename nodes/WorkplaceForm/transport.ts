import type { IDataObject } from 'n8n-workflow';

import { credentialText, madeUpCredential } from '../shared/credentialTests/probe';
import { credentialTestMethod, postBelowBaseUrl, refusedCreate } from '../shared/credentialTests/testMethod';
import { apiAt, requestTo } from '../shared/transport';

/**
 * The form API under {base_url}. Creating a form is a POST without an idempotency key, so the
 * shared transport retries it only after a 429 (not processed), never after a 5xx.
 */
export const FORM_API = apiAt('workplaceFormApi', 'baseUrl', [
	'the API key lacks the right to create forms',
	'the user or session of the API token may not create forms, or may not send them to these receivers',
]);

export const formRequest = requestTo(FORM_API);

/**
 * The body of the credential test's POST /v1/forms. The form API has no read-only call, so the
 * test sends a create request that cannot be a form by the spec: none of the six required fields
 * (name, subject, senderUserId, receiverUserIds, data, status), a due date that is not
 * YYYY-MM-DD, and a response tier below the spec's limits (tier 1 to 100; duration and minimum
 * weight at least 0) without `responseType: hierarchy`. Even a platform that one day filled in
 * missing fields would have to ignore every documented limit to create a form from it.
 */
export const FORM_TEST_BODY: IDataObject = {
	dueDate: 'n8n credential test, not a date',
	responseTiers: [{ tier: 0, duration: -1, minimumWeight: -1 }],
};

/**
 * The credential's "Test" button: POST /v1/forms with FORM_TEST_BODY. With the right key and
 * token the platform refuses the body (400 or 422); the same request with a made-up key and token
 * must then be refused with 401 or 403, which shows the platform checks them before the body.
 */
export const testFormCredential = credentialTestMethod((data) => {
	const apiKey = credentialText(data, 'apiKey');
	const token = credentialText(data, 'token');
	if (apiKey.trim() === '') return 'Enter the API key in the "API Key" field';
	if (token.trim() === '') return 'Enter the token in the "User or Session Token" field';
	const json = { accept: 'application/json', 'content-type': 'application/json' };
	return {
		api: 'form API',
		...postBelowBaseUrl(data),
		urlHint: "It is the platform's address without /v1, e.g. https://workplace.example.com.",
		path: '/v1/forms',
		headers: { 'X-API-Key': apiKey, 'X-API-Token': token, ...json },
		body: FORM_TEST_BODY,
		secretName: 'API key and token',
		rejectedSecret: 'API key or the token',
		secretFields: 'the "API Key" and "User or Session Token" fields',
		forbiddenHint: 'the API key or token may not create forms',
		secrets: [apiKey, token],
		invalidBody: refusedCreate('the test form, which is invalid on purpose', {
			'X-API-Key': madeUpCredential(),
			'X-API-Token': madeUpCredential(),
		}),
	};
});
