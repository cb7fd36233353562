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
 * (c)); once a second per credential is enough. Deliveries with a wrong signature get no read of
 * their own either (anyone who knows the URL can send them): a changed secret applies once the
 * held one is this old, and the old one is accepted for at most this long after the change.
 */
export const SECRET_REUSE_MS = 1000;

const MAX_HELD = 500;

const held = processMap<string, { secret: string | undefined; readAt: number }>();

/** Reads under way, per credential: deliveries arriving together share one. */
const reading = processMap<string, Promise<string | undefined>>();

/**
 * The trigger's signing secret: the one held for its credential while younger than
 * SECRET_REUSE_MS, else read from n8n, one read at a time per credential. A read that finds
 * another secret than the one held is logged (without either value).
 */
export async function signingSecret(ctx: IWebhookFunctions): Promise<string | undefined> {
	const id = ctx.getNode().credentials?.workplaceWebhookApi?.id;
	if (!id) return await readSecret(ctx);
	const entry = held.get(id);
	if (entry && Date.now() - entry.readAt < SECRET_REUSE_MS) return entry.secret;
	let read = reading.get(id);
	if (!read) {
		read = readAndHold(ctx, id);
		reading.set(id, read);
		// A failed read is not held: the next delivery reads again (and reports its own error).
		const done = () => {
			if (reading.get(id) === read) reading.delete(id);
		};
		read.then(done, done);
	}
	return await read;
}

async function readSecret(ctx: IWebhookFunctions): Promise<string | undefined> {
	const { secret } = await ctx.getCredentials<{ secret?: string }>('workplaceWebhookApi');
	return typeof secret === 'string' ? secret : undefined;
}

async function readAndHold(ctx: IWebhookFunctions, id: string): Promise<string | undefined> {
	// Held from when the read began: a secret changed after that is not in it.
	const readAt = Date.now();
	const value = await readSecret(ctx);
	const entry = held.get(id);
	if (entry && entry.secret !== value) {
		logTrigger(
			ctx,
			'info',
			`the secret of the Workplace Webhook API credential ${webhookCredentialName(ctx)} changed; deliveries are now verified with the new one.`,
		);
	}
	held.delete(id);
	held.set(id, { secret: value, readAt });
	while (held.size > MAX_HELD) held.delete(held.keys().next().value as string);
	return value;
}
