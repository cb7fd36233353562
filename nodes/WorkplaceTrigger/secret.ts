import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { processMap } from '../shared/processMemory';
import { logTrigger, webhookCredentialName } from './log';

/**
 * Why a trigger verifying signatures cannot run: worded without "activate" or "publish" (n8n 1
 * activates workflows, n8n 2 publishes them) and naming the credential as the node shows it.
 */
export const MISSING_WEBHOOK_CREDENTIAL =
	'Signature Verification is "Webhook Secret" but no Workplace Webhook API credential is selected in the Workplace Trigger. Select the credential holding the secret configured on the platform, or set Signature Verification to "None".';

/** Answered when the selected credential cannot be read (e.g. it was deleted); no detail that could hold a secret. */
export const UNREADABLE_WEBHOOK_CREDENTIAL =
	'The Workplace Webhook API credential selected in the Workplace Trigger cannot be read (was it deleted?); no delivery can be verified. Select the credential holding the secret configured on the platform, or set Signature Verification to "None".';

/** Whether the trigger can verify signatures: verification is off, or a webhook credential is selected. */
export function hasWebhookCredential(ctx: IHookFunctions | IWebhookFunctions): boolean {
	if (ctx.getNodeParameter('verification', 'secret') !== 'secret') return true;
	return Boolean(ctx.getNode().credentials?.workplaceWebhookApi);
}

/** Refuses to register the webhook of a trigger that verifies signatures without a credential. */
export function assertWebhookCredential(ctx: IHookFunctions): void {
	if (!hasWebhookCredential(ctx)) throw new NodeOperationError(ctx.getNode(), MISSING_WEBHOOK_CREDENTIAL);
}

/**
 * How long this process reuses a signing secret it read. n8n reads a credential from the database
 * and decrypts it on every call, which cost the trigger 15% of its deliveries per second (bench
 * (c)); once a second per credential is enough. A delivery that fails the check with a reused
 * secret is checked again with a fresh read, so a new secret applies at once; the old one is still
 * accepted for at most this long after it was changed.
 */
export const SECRET_REUSE_MS = 1000;

const MAX_HELD = 500;

const held = processMap<string, { secret: string | undefined; readAt: number }>();

/**
 * The trigger's signing secret; `fresh` reads it from n8n even when one is held. A read that finds
 * another secret than the one held is logged (without either value).
 */
export async function signingSecret(ctx: IWebhookFunctions, fresh = false): Promise<string | undefined> {
	const id = ctx.getNode().credentials?.workplaceWebhookApi?.id;
	const entry = id ? held.get(id) : undefined;
	if (!fresh && entry && Date.now() - entry.readAt < SECRET_REUSE_MS) return entry.secret;
	const { secret } = await ctx.getCredentials<{ secret?: string }>('workplaceWebhookApi');
	const value = typeof secret === 'string' ? secret : undefined;
	if (entry && entry.secret !== value) {
		logTrigger(
			ctx,
			'info',
			`the secret of the Workplace Webhook API credential ${webhookCredentialName(ctx)} changed; deliveries are now verified with the new one.`,
		);
	}
	if (id) {
		held.delete(id);
		held.set(id, { secret: value, readAt: Date.now() });
		while (held.size > MAX_HELD) held.delete(held.keys().next().value as string);
	}
	return value;
}
