import type { IBinaryData, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { networkErrorCode } from '../shared/transport/attempt';
import { downloadPicture } from '../shared/transport/botApi';
import { backoffMs } from '../shared/transport/retryPolicy';

/** A retry is started only if at least this much of the time limit is left for it after its wait. */
const MIN_ATTEMPT_MS = 200;

/** Codes of attempts that ran out of time: the time limit is then used up, nothing is tried again. */
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT']);

/** The picture, or the last attempt's error and how many attempts were made. */
export type PictureResult = { binary: IBinaryData } | { error: NodeApiError; attempts: number };

/**
 * How long to wait before the picture is asked for again after `error`, or undefined when the
 * failure is final: a 429 or a 5xx (after the platform's Retry-After, else a back-off) and an
 * answer that never came (a refused or reset connection) are tried again; any other 4xx is not.
 */
function retryDelayMs(error: unknown, failures: number): number | undefined {
	const httpCode = String((error as NodeApiError).httpCode ?? '');
	if (httpCode === '429' || /^5\d\d$/.test(httpCode)) {
		const asked = (error as NodeApiError).context?.retryAfterMs;
		return typeof asked === 'number' ? asked : backoffMs(failures);
	}
	const code = /^E[A-Z_]+$/.test(httpCode) ? httpCode : networkErrorCode(error);
	return code && !TIMEOUT_CODES.has(code) ? backoffMs(failures) : undefined;
}

/**
 * The picture of a message event, tried again within `limitMs`: the platform waits for the
 * delivery's answer meanwhile, so the limit bounds the whole download, waits between attempts
 * included. Each attempt gets the time left (without a byte, as for every download) and no retries
 * of the transport's own; a wait that would leave less than MIN_ATTEMPT_MS ends the tries.
 */
export async function downloadWithinLimit(
	ctx: IWebhookFunctions,
	pictureId: string,
	size: string,
	names: { fileName?: unknown; fallbackFileName: string },
	limitMs: number,
): Promise<PictureResult> {
	const deadline = performance.now() + limitMs;
	for (let attempts = 1; ; attempts++) {
		const leftMs = Math.max(1, deadline - performance.now());
		const policy = { maxRateLimitRetries: 0, maxRetryWaitSeconds: 0, maxServerErrorRetries: 0, timeoutSeconds: leftMs / 1000 };
		try {
			return { binary: await downloadPicture(ctx, pictureId, size, names, 0, policy) };
		} catch (error) {
			const waitMs = retryDelayMs(error, attempts - 1);
			if (waitMs === undefined || performance.now() + waitMs + MIN_ATTEMPT_MS > deadline) {
				return { error: error as NodeApiError, attempts };
			}
			await sleep(waitMs);
		}
	}
}

/**
 * The error of a delivery whose picture could not be had within `timeoutSeconds`, and the reason
 * for n8n's log: the platform's words (no request details), with the attempts made.
 */
export function pictureError(
	ctx: IWebhookFunctions,
	{ error, attempts }: { error: NodeApiError; attempts: number },
	timeoutSeconds: number,
): { reason: string; failure: NodeApiError } {
	const reason = `${error.message}${attempts > 1 ? ` (${attempts} attempts within ${timeoutSeconds} s)` : ''}`;
	const message = `Could not download the picture of a message event: ${reason}`;
	const httpCode = error.httpCode ?? undefined;
	const limit = `"Image Download Timeout" of the Workplace Trigger (${timeoutSeconds} s for the picture, retries included)`;
	const description =
		httpCode === 'ETIMEDOUT'
			? `Time limit: ${limit}: the last attempt got no byte in the time left. No run started; a redelivery of the event runs.`
			: httpCode === '429'
				? `HTTP status 429 (Rate limit exceeded): still rate limited when the ${limit} ran out, or asked to wait longer than the time left. No run started; a redelivery of the event runs.`
				: (error.description ?? undefined);
	const failure = new NodeApiError(ctx.getNode(), { message: reason }, { message, httpCode, description });
	// NodeApiError puts its own text in place of the message for some codes (e.g. ETIMEDOUT).
	failure.message = message;
	return { reason, failure };
}
