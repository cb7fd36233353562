import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

import { secretProperty } from './properties';

/**
 * The secret the platform signs webhook deliveries with (X-Service-Signature, HMAC-SHA256 of
 * the raw body). It is never sent anywhere, so there is no request to test it with: the
 * Workplace Trigger tests it through its `testedBy` function (the secret is present and
 * usable as an HMAC key), and every delivery is checked when it arrives.
 */
export class WorkplaceWebhookApi implements ICredentialType {
	name = 'workplaceWebhookApi';

	displayName = 'Workplace Webhook API';

	icon: Icon = { light: 'file:icons/workplace.svg', dark: 'file:icons/workplace.dark.svg' };

	documentationUrl = 'https://github.com/workplace-n8n/n8n-nodes-workplace#workplace-webhook-api';

	properties: INodeProperties[] = [
		secretProperty(
			'Secret',
			'secret',
			"The secret configured for the webhook in the platform's bot or webhook settings. Deliveries whose X-Service-Signature does not match it are refused (HTTP 401).",
		),
	];
}
