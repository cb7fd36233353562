/**
 * Taps on the postback buttons of Send and Wait for Response (in-chat answers): the trigger starts
 * no run for them. It posts each delivery, as the platform signed it, to the resume URL the
 * answer token stands for (n8n's waiting-webhook route, so it reaches whichever process serves
 * waiting executions, also in queue mode), and posts in the chat what the waiting node answers:
 * a confirmation, or why the tap changed nothing.
 */
import type { IDataObject, IHttpRequestOptions, IWebhookFunctions } from 'n8n-workflow';

import type { AnswerReply } from '../shared/inChatAnswer';
import { decodeAnswerToken, isAnswerData, readAnswerReply, resumeUrlOf } from '../shared/inChatAnswer';
import { processMap } from '../shared/processMemory';
import { botRequest } from '../shared/transport/botApi';
import { handRetryPolicy } from '../shared/transport/retryPolicy';
import { isPlainObject } from '../shared/validation';
import { chatOf } from './delivery';
import { logTrigger } from './log';

/** How long the waiting node may take to answer a forwarded tap. */
const FORWARD_TIMEOUT_MS = 15_000;

/** The time limit of a reply the bot posts; a reply is never sent twice. */
const REPLY_TIMEOUT_SECONDS = 10;

/** Posted to a tap n8n itself refused: the execution is no longer waiting (answered, timed out or stopped). */
export const NOT_WAITING_REPLY = 'This request is no longer waiting for an answer.';

/** Whether a bot event is a tap on an in-chat answer button. */
export function isAnswerEvent(event: IDataObject): boolean {
	return event.type === 'postback' && isPlainObject(event.postback) && isAnswerData(event.postback.data);
}

/** n8n's address of waiting executions, as the trigger derives it from its own webhook URL. */
function derivedWaitingBaseUrl(ctx: IWebhookFunctions): string | undefined {
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
export function waitingBase(ctx: IWebhookFunctions, override: unknown): { url: string; host?: string } | undefined {
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

/** One forward at a time per message (execution, node, nonce) in this process: the first answer wins. */
const queues = processMap<string, Promise<unknown>>();

async function forward(ctx: IWebhookFunctions, url: string, host: string | undefined, raw: Buffer, signature: string): Promise<Forwarded> {
	const request: IHttpRequestOptions = {
		method: 'POST',
		url,
		body: { delivery: raw.toString('base64'), signature },
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

async function postReply(ctx: IWebhookFunctions, event: IDataObject, text: string): Promise<void> {
	if (text.trim() === '') return;
	if (ctx.getNodeParameter('useBotCredential', false) !== true || !ctx.getNode().credentials?.workplaceBotOAuth2Api) {
		logTrigger(ctx, 'warn', `an in-chat answer needed a reply ("${text}") but the trigger has no Workplace Bot credential ("Use Bot Credential"), so none was posted.`);
		return;
	}
	const { groupId, topicId } = chatOf(event);
	if (!groupId) return;
	handRetryPolicy(ctx, 0, { maxRateLimitRetries: 1, maxRetryWaitSeconds: 5, maxServerErrorRetries: 0, timeoutSeconds: REPLY_TIMEOUT_SECONDS });
	try {
		await botRequest(ctx, {
			method: 'POST',
			path: '/bot/v2/message/push',
			body: { gid: groupId, tid: topicId ?? '', messages: [{ type: 'text', text }] },
		});
	} catch (error) {
		logTrigger(ctx, 'warn', `the reply to an in-chat answer could not be posted: ${(error as Error).message}`);
	}
}

/** What happened to one tap, for the delivery's answer and the tests. */
export interface AnswerResult {
	outcome: AnswerReply['outcome'] | 'notWaiting' | 'refused' | 'failed' | 'malformed';
}

/** Hands one tap to its waiting execution and posts what the bot should say. */
export async function handleAnswer(
	ctx: IWebhookFunctions,
	event: IDataObject,
	raw: Buffer,
	signature: string,
	resumeBaseUrl: unknown,
): Promise<AnswerResult> {
	const data = (event.postback as IDataObject).data as string;
	const token = decodeAnswerToken(data);
	const base = waitingBase(ctx, resumeBaseUrl);
	if (!token) {
		logTrigger(ctx, 'warn', 'a tap on an in-chat answer button carried a malformed answer token; nothing was resumed.');
		return { outcome: 'malformed' };
	}
	if (!base) {
		logTrigger(ctx, 'error', `a tap on an in-chat answer button could not be handed to execution ${token.executionId}: the option Resume Base URL is not a URL.`);
		return { outcome: 'failed' };
	}
	const target = `${token.executionId}:${token.nodeId}:${token.nonce}`;
	const before = queues.get(target) ?? Promise.resolve();
	const turn = before.then(async () => await forward(ctx, resumeUrlOf(base.url, token), base.host, raw, signature));
	const settled = turn.catch(() => undefined);
	queues.set(target, settled);
	void settled.then(() => {
		if (queues.get(target) === settled) queues.delete(target);
	});
	const result = await turn;

	switch (result.kind) {
		case 'answered':
			if (result.reply.outcome === 'invalid' || result.reply.outcome === 'misconfigured') {
				// E.g. the Send and Wait node's webhook secret differs from the trigger's.
				logTrigger(ctx, 'warn', `a tap on an in-chat answer button was refused by the waiting Send and Wait of execution ${token.executionId} (${result.reply.outcome}): ${result.reply.message}`);
			}
			await postReply(ctx, event, result.reply.reply);
			return { outcome: result.reply.outcome };
		case 'notWaiting':
			await postReply(ctx, event, NOT_WAITING_REPLY);
			return { outcome: 'notWaiting' };
		case 'refused':
			logTrigger(ctx, 'warn', `a tap on an in-chat answer button was refused (${result.status}): ${result.message}; nothing was resumed.`);
			return { outcome: 'refused' };
		default:
			logTrigger(ctx, 'warn', `a tap on an in-chat answer button could not be handed to execution ${token.executionId}: ${result.message}`);
			return { outcome: 'failed' };
	}
}
