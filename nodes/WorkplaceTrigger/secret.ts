import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * How long this process reuses a signing secret it read. n8n reads a credential from the database
 * and decrypts it on every call, which cost the trigger 15% of its deliveries per second (bench
 * (c)); once a second per credential is enough. A delivery that fails the check with a reused
 * secret is checked again with a fresh read, so a new secret applies at once; the old one is still
 * accepted for at most this long after it was changed.
 */
export const SECRET_REUSE_MS = 1000;

const MAX_HELD = 500;

const held = new Map<string, { secret: string | undefined; readAt: number }>();

/** The trigger's signing secret; `fresh` reads it from n8n even when one is held. */
export async function signingSecret(ctx: IWebhookFunctions, fresh = false): Promise<string | undefined> {
	const id = ctx.getNode().credentials?.workplaceWebhookApi?.id;
	const entry = id ? held.get(id) : undefined;
	if (!fresh && entry && Date.now() - entry.readAt < SECRET_REUSE_MS) return entry.secret;
	const { secret } = await ctx.getCredentials<{ secret?: string }>('workplaceWebhookApi');
	const value = typeof secret === 'string' ? secret : undefined;
	if (id) {
		held.delete(id);
		held.set(id, { secret: value, readAt: Date.now() });
		while (held.size > MAX_HELD) held.delete(held.keys().next().value as string);
	}
	return value;
}

/** For tests: forget every secret held (as after a restart). */
export function resetSigningSecrets(): void {
	held.clear();
}
