/**
 * Bringing together the counted taps of one question that different n8n processes received (queue
 * mode: taps reach whichever webhook process the proxy picks). Two simultaneous taps each reach the
 * waiting node with only what their own process held, so neither sees the other: "1 of 2" twice.
 * Each is kept in the trigger's static data, but n8n saves that whole, so the later save drops the
 * earlier tap there (ballots.ts).
 *
 * So after a counted tap the process that handed it on posts a recount to the trigger's own URL,
 * twice: after RECHECK_DELAYS_MS (the second after any delivery that could still save an older copy
 * has ended). A recount is signed like a delivery, with the trigger's webhook secret, and reaches
 * any process, which reads the stored copy afresh: taps it holds that the recount lacks go to the
 * waiting node with all the others (which decides once they do), and taps the recount brings that
 * the stored copy lacks are written back and checked again, up to MAX_RECOUNT_ROUNDS.
 */
import type { IHttpRequestOptions, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { createHmac } from 'crypto';

import type { Ballot } from '../shared/inChatAnswer';
import { isBallot } from '../shared/inChatAnswer';
import { isPlainObject } from '../shared/validation';
import type { BallotStore } from './ballots';
import { finishBallots, isHeld } from './ballots';
import { MAX_RECOUNT_ROUNDS, OWN_URL_TIMEOUT_MS, RECHECK_DELAYS_MS } from '../shared/approvals/timing';
import { logTrigger } from './log';
import { signingSecret } from './secret';

/** The body field that makes a delivery a recount. */
export const RECOUNT_FIELD = 'workplaceRecount';


export interface Recount {
	/** execution:node:nonce of the question. */
	request: string;
	ballots: Ballot[];
	round: number;
	/** false: the sender left these taps for another process to hand on (recount.ts), so they were not counted together. */
	handed?: boolean;
}

/** The recount a delivery's body is, or undefined for a delivery of the platform. */
export function readRecount(body: Buffer): Recount | undefined {
	if (!body.includes(RECOUNT_FIELD)) return undefined;
	let parsed: unknown;
	try {
		parsed = JSON.parse(body.toString('utf8'));
	} catch {
		return undefined;
	}
	const recount = isPlainObject(parsed) ? parsed[RECOUNT_FIELD] : undefined;
	if (!isPlainObject(recount) || typeof recount.request !== 'string' || !Array.isArray(recount.ballots)) return undefined;
	const ballots = recount.ballots.filter(isBallot);
	const read: Recount = { request: recount.request, ballots, round: typeof recount.round === 'number' ? recount.round : 0 };
	if (recount.handed === false) read.handed = false;
	return read;
}

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
	message: object,
	purpose: string,
	timeoutMs = OWN_URL_TIMEOUT_MS,
): Promise<unknown> {
	const body = JSON.stringify(message);
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

/** The outcomes of a recount after which the question needs no more: decided, or no longer waiting. */
const SETTLED = /: (resumed|alreadyAnswered|notWaiting|done)$/;

/** Whether n8n's answer to a recount says the question is settled. */
function isSettled(answer: unknown): boolean {
	return isPlainObject(answer) && typeof answer.message === 'string' && SETTLED.test(answer.message);
}

/**
 * After the delivery was answered, posts a message to the trigger's own URL at each of
 * RECHECK_DELAYS_MS from now, while `goOn` (asked before each post) allows; `stopAfter` reads n8n's answer
 * and says whether that was the last. Runs on its own; a failure is logged as `failed` says.
 */
export function postLater(
	ctx: IWebhookFunctions,
	resumeBaseUrl: unknown,
	post: { purpose: string; message: object; goOn?: () => boolean; stopAfter?: (answer: unknown) => boolean; failed: string },
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

/**
 * The recounts of a counted tap (see the top of the file): posted unless this process saw the
 * question decided meanwhile; settled elsewhere, this process lets go of its taps (else it would
 * write them back).
 */
export function scheduleRechecks(ctx: IWebhookFunctions, recount: Recount, resumeBaseUrl: unknown, store: BallotStore): void {
	if (recount.round >= MAX_RECOUNT_ROUNDS) return;
	postLater(ctx, resumeBaseUrl, {
		purpose: 'recount',
		message: { [RECOUNT_FIELD]: recount },
		goOn: () => isHeld(store, recount.request),
		stopAfter: (answer) => {
			if (!isSettled(answer)) return false;
			finishBallots({ scope: store.scope }, recount.request);
			return true;
		},
		failed: 'a recount of in-chat votes could not be posted; a vote counted at the same moment by another n8n process is then counted only when a later tap or recount brings it',
	});
}
