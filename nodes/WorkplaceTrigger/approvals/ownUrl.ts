/**
 * Posting to the Workplace Trigger's own production URL (ownMessages.ts says what is posted): n8n
 * loads and saves the static data per request there, and any process may answer it, so this is
 * how a process hands what it changed to whichever holds the stored copy next. postLater posts
 * again at RECHECK_DELAYS_MS, the last after any request that loaded an older copy has saved it.
 */
import type { IHttpRequestOptions, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { createHmac } from 'crypto';

import type { OwnMessage } from '../../shared/approvals/ownMessages';
import { ownMessageBody } from '../../shared/approvals/ownMessages';
import { OWN_URL_TIMEOUT_MS, RECHECK_DELAYS_MS } from '../../shared/approvals/timing';
import { logTrigger } from '../log';
import { signingSecret } from '../secret';

/** The trigger's own production URL, on the Resume Base URL's host when that option is set. */
export function ownUrl(ctx: Pick<IWebhookFunctions, 'getNodeWebhookUrl'>, resumeBaseUrl: unknown): { url: string; host?: string } | undefined {
	const own = ctx.getNodeWebhookUrl('default');
	if (!own) return undefined;
	if (typeof resumeBaseUrl !== 'string' || resumeBaseUrl.trim() === '') return { url: own };
	try {
		const base = new URL(resumeBaseUrl.trim());
		const public_ = new URL(own);
		return { url: `${base.origin}${public_.pathname}`, host: base.host !== public_.host ? public_.host : undefined };
	} catch {
		return { url: own };
	}
}

/** Posts a message to the trigger's own URL, signed like a delivery with its secret; n8n's answer, parsed when JSON. */
export async function postToOwnUrl(
	ctx: { helpers: { httpRequest(options: IHttpRequestOptions): Promise<unknown> } },
	target: { url: string; host?: string },
	secret: string,
	message: OwnMessage,
	purpose: string,
	timeoutMs = OWN_URL_TIMEOUT_MS,
): Promise<unknown> {
	const body = ownMessageBody(message);
	const request: IHttpRequestOptions = {
		method: 'POST',
		url: target.url,
		body,
		json: false,
		timeout: timeoutMs,
		ignoreHttpStatusErrors: true,
		headers: {
			'content-type': 'application/json',
			'x-service-signature': createHmac('sha256', secret).update(body).digest('hex'),
			'user-agent': `n8n-nodes-workplace (Workplace Trigger ${purpose})`,
			...(target.host ? { host: target.host } : {}),
		},
	};
	const answer: unknown = await ctx.helpers.httpRequest(request);
	try {
		return typeof answer === 'string' ? JSON.parse(answer) : answer;
	} catch {
		return undefined;
	}
}

/**
 * After the delivery was answered, posts a message to the trigger's own URL at each of
 * RECHECK_DELAYS_MS from now, while `goOn` (asked before each post) allows; `stopAfter` reads n8n's answer
 * and says whether that was the last. Runs on its own; a failure is logged as `failed` says.
 */
export function postLater(
	ctx: IWebhookFunctions,
	resumeBaseUrl: unknown,
	post: { purpose: string; message: OwnMessage; goOn?: () => boolean; stopAfter?: (answer: unknown) => boolean; failed: string },
): void {
	const target = ownUrl(ctx, resumeBaseUrl);
	if (!target) return;
	void (async () => {
		const secret = await signingSecret(ctx);
		if (!secret) return;
		let waited = 0;
		for (const at of RECHECK_DELAYS_MS) {
			await sleep(at - waited);
			waited = at;
			if (post.goOn && !post.goOn()) return;
			const answer = await postToOwnUrl(ctx, target, secret, post.message, post.purpose);
			if (post.stopAfter?.(answer)) return;
		}
	})().catch((error: Error) => logTrigger(ctx, 'warn', `${post.failed}: ${error.message}`));
}
