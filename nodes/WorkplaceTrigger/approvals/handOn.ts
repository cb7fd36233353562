/**
 * Handing a tap (or a recount of earlier taps) to its waiting execution: the resume URL its answer
 * token stands for, under n8n's base URL of waiting executions, and what the waiting node answered
 * (questionLife.ts says what that does to the question).
 */
import type { IDataObject, IHttpRequestOptions, IWebhookFunctions } from 'n8n-workflow';

import type { AnswerReply, AnswerToken, ForwardedDelivery } from '../../shared/approvals/tapProtocol';
import { NOT_WAITING_REPLY, readAnswerReply, resumeUrlOf } from '../../shared/approvals/tapProtocol';
import { FORWARD_TIMEOUT_MS, REPLY_TIMEOUT_S } from '../../shared/approvals/timing';
import { botRequest } from '../../shared/transport/botApi';
import { chatOf } from '../eventFields';
import { logTrigger } from '../log';

/** Posted to a tap n8n itself refused: the execution is no longer waiting (answered, timed out or stopped). */
export { NOT_WAITING_REPLY };

/** Posted to a tap that could not be handed on; the platform is asked to send it again meanwhile. */
export const NOT_RECORDED_REPLY = '{user}, your answer could not be recorded just now. If no confirmation follows, please tap again.';

/** What the waiting base needs of a node context: the webhook's, or the hook's at activation. */
type UrlContext = Pick<IWebhookFunctions, 'getNodeWebhookUrl' | 'getNode'>;

/** n8n's address of waiting executions, as the trigger derives it from its own webhook URL. */
function derivedWaitingBaseUrl(ctx: UrlContext): string | undefined {
	const own = ctx.getNodeWebhookUrl('default');
	if (!own) return undefined;
	const url = new URL(own);
	const webhookId = ctx.getNode().webhookId;
	let path = url.pathname;
	const suffix = `/${webhookId ?? ''}/webhook`;
	path = webhookId && path.endsWith(suffix) ? path.slice(0, -suffix.length) : path.replace(/\/[^/]*\/webhook$/, '');
	return `${url.origin}${path.replace(/\/[^/]*$/, '')}/webhook-waiting`;
}

/**
 * Where to post a tap: n8n's base URL of waiting executions, i.e. the trigger option, else this
 * trigger's own webhook URL with its last part (`/webhook/<id>/webhook`, or `/webhook-test/...`)
 * made `/webhook-waiting`. With the option set, `host` is the public host n8n's URLs carry: n8n
 * 1.x signs resume URLs with it and checks the Host header of the request against it.
 */
export function waitingBase(ctx: UrlContext, override: unknown): { url: string; host?: string } | undefined {
	const derived = derivedWaitingBaseUrl(ctx);
	if (typeof override !== 'string' || override.trim() === '') return derived ? { url: derived } : undefined;
	const url = override.trim().replace(/\/+$/, '');
	let given: URL;
	try {
		given = new URL(url);
	} catch {
		return undefined;
	}
	const host = derived ? new URL(derived).host : undefined;
	return { url, host: host && host !== given.host ? host : undefined };
}

type Forwarded =
	| { kind: 'answered'; reply: AnswerReply }
	/** n8n answered instead of the node: the execution is running, finished or gone. */
	| { kind: 'notWaiting'; status: number }
	| { kind: 'refused'; status: number; message: string }
	| { kind: 'failed'; message: string };

async function forward(ctx: IWebhookFunctions, url: string, host: string | undefined, body: ForwardedDelivery): Promise<Forwarded> {
	const request: IHttpRequestOptions = {
		method: 'POST',
		url,
		body,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: FORWARD_TIMEOUT_MS,
		headers: { 'user-agent': 'n8n-nodes-workplace (Workplace Trigger)', ...(host ? { host } : {}) },
	};
	let response: { statusCode: number; body: unknown };
	try {
		response = (await ctx.helpers.httpRequest(request)) as { statusCode: number; body: unknown };
	} catch (error) {
		return { kind: 'failed', message: (error as Error).message };
	}
	const reply = readAnswerReply(response.body);
	if (reply) return { kind: 'answered', reply };
	const status = response.statusCode;
	if (status === 401 || status === 403) return { kind: 'refused', status, message: 'n8n refused the resume URL of the token' };
	if (status >= 500) return { kind: 'failed', message: `n8n answered ${status}` };
	return { kind: 'notWaiting', status };
}

/** Posts a reply in the tap's chat or topic. */
export async function postReply(ctx: IWebhookFunctions, event: IDataObject, text: string): Promise<void> {
	const { groupId, topicId } = chatOf(event);
	if (!groupId) return;
	try {
		await botRequest(ctx, {
			method: 'POST',
			path: '/bot/v2/message/push',
			body: { gid: groupId, tid: topicId ?? '', messages: [{ type: 'text', text }] },
			policy: { maxRateLimitRetries: 1, maxRetryWaitSeconds: 5, maxServerErrorRetries: 0, timeoutSeconds: REPLY_TIMEOUT_S },
		});
	} catch (error) {
		logTrigger(ctx, 'warn', `the reply to an in-chat answer could not be posted: ${(error as Error).message}`);
	}
}

/** What happened to one tap, for the delivery's answer and the tests. */
export interface AnswerResult {
	/** `failed`: not handed on (n8n unreachable, 5xx, out of time): the platform is asked to send it again. */
	outcome: AnswerReply['outcome'] | 'notWaiting' | 'refused' | 'failed' | 'malformed';
}

/** One tap's outcome and the text the bot should post for it ('' for none). */
export interface Handed extends AnswerResult {
	reply: string;
}

/** Hands a tap (or a recount: earlier taps only) to the resume URL of its token and reads what came back; logs what an admin should know. */
export async function handOn(ctx: IWebhookFunctions, token: AnswerToken, body: ForwardedDelivery, resumeBaseUrl: unknown): Promise<Handed> {
	const base = waitingBase(ctx, resumeBaseUrl);
	const result: Forwarded = base
		? await forward(ctx, resumeUrlOf(base.url, token), base.host, body)
		: { kind: 'failed', message: 'the option Resume Base URL is not a URL' };
	switch (result.kind) {
		case 'answered':
			if (result.reply.outcome === 'invalid' || result.reply.outcome === 'misconfigured') {
				// E.g. the Send and Wait node's webhook secret differs from the trigger's.
				logTrigger(ctx, 'warn', `a tap on an in-chat answer button was refused by the waiting Send and Wait of execution ${token.executionId} (${result.reply.outcome}): ${result.reply.message}`);
			}
			return { outcome: result.reply.outcome, reply: result.reply.reply };
		case 'notWaiting':
			return { outcome: 'notWaiting', reply: NOT_WAITING_REPLY };
		case 'refused':
			logTrigger(ctx, 'warn', `a tap on an in-chat answer button was refused (${result.status}): ${result.message}; nothing was resumed.`);
			return { outcome: 'refused', reply: '' };
		default:
			logTrigger(ctx, 'warn', `a tap on an in-chat answer button could not be handed to execution ${token.executionId}: ${result.message}. The delivery was answered 503 so that the platform sends it again.`);
			return { outcome: 'failed', reply: NOT_RECORDED_REPLY };
	}
}
