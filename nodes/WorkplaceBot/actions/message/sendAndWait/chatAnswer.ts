/**
 * An in-chat answer reaching the waiting node: the Workplace Trigger received a tap on one of the
 * message's postback buttons and posted the delivery, as the platform signed it, to the resume
 * URL the button's token stands for (../../../../shared/inChatAnswer.ts). In order:
 * 1. n8n's signature of the URL (execution, node, nonce, answer), also checked by n8n itself;
 * 2. the platform's signature of the delivery, with this node's Workplace Webhook API secret,
 *    so someone who learns the URL cannot answer as someone else;
 * 3. a postback event in the delivery carrying this very token;
 * 4. who tapped: an allowed approver, else a reply for the chat and no resume;
 * 5. the first answer wins (in this process; n8n refuses a second resume of one execution).
 * The answer to the trigger is JSON: the outcome and a text for the bot to post (a confirmation,
 * or why nothing changed). On a resume n8n sends it, after it has taken the resume (n8n 2).
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { Answerer, AnswerOutcome, AnswerReply } from '../../../../shared/inChatAnswer';
import { answererOf, encodeAnswerToken, fillUser, readForwardedDelivery } from '../../../../shared/inChatAnswer';
import { checkSignature } from '../../../../shared/signature';
import { isPlainObject } from '../../../../shared/validation';
import { parseDelivery } from '../../../../shared/delivery';
import { DEFAULT_CHAT_TEXTS } from './description';

function respond(ctx: IWebhookFunctions, status: number, outcome: AnswerOutcome, message: string, reply = ''): IWebhookResponseData {
	const body: AnswerReply = { outcome, message, reply };
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

function text(value: unknown, fallback: string): string {
	return typeof value === 'string' ? value : fallback;
}

function sameName(a: string, b: string): boolean {
	return a.replace(/^@/, '').toLowerCase() === b.replace(/^@/, '').toLowerCase();
}

/**
 * Whether this person may answer: one of Allowed Approvers (IDs or usernames); without a list,
 * the recipient of a direct chat, or anyone in a group (only its members see the message).
 */
export function mayAnswer(ctx: IWebhookFunctions, user: Answerer): boolean {
	const list = String(ctx.getNodeParameter('allowedApprovers', '') ?? '')
		.split(/[\s,]+/)
		.map((entry) => entry.trim())
		.filter(Boolean);
	const named = (entry: string) => entry === user.userId || (user.username !== '' && sameName(entry, user.username));
	if (list.length > 0) return list.some(named);
	if (ctx.getNodeParameter('sendTo', 'user') === 'group') return true;
	const recipient = ctx.getNodeParameter('userId', '') as unknown;
	if (isPlainObject(recipient)) {
		const value = String(recipient.value ?? '').trim();
		if (recipient.mode === 'username') return user.username !== '' && sameName(value, user.username);
		return value === user.userId;
	}
	return String(recipient ?? '').trim() === user.userId;
}

function answeredAt(event: IDataObject): string {
	const at = typeof event.timestamp === 'string' ? Date.parse(event.timestamp) : NaN;
	return new Date(Number.isFinite(at) ? at : Date.now()).toISOString();
}

export async function chatAnswerWebhook(
	ctx: IWebhookFunctions,
	query: Record<string, string>,
	claimAnswer: (key: string) => boolean,
): Promise<IWebhookResponseData> {
	const forwarded = readForwardedDelivery(ctx.getBodyData());
	if (!forwarded) return respond(ctx, 400, 'invalid', 'Expected {delivery, signature}: a delivery of the platform as the Workplace Trigger received it');

	let secret: string | undefined;
	try {
		const credential = await ctx.getCredentials<{ secret?: string }>('workplaceWebhookApi');
		secret = typeof credential.secret === 'string' && credential.secret !== '' ? credential.secret : undefined;
	} catch {
		secret = undefined;
	}
	if (!secret) {
		return respond(
			ctx,
			500,
			'misconfigured',
			'Send and Wait cannot verify in-chat answers: select a Workplace Webhook API credential with the webhook secret in the Workplace Bot node',
		);
	}
	if (checkSignature(secret, forwarded.raw, forwarded.signature) !== 'valid') {
		return respond(ctx, 401, 'invalid', "The delivery's X-Service-Signature does not match the webhook secret of the Send and Wait node");
	}

	const delivery = parseDelivery(forwarded.raw, undefined);
	const node = ctx.getNode();
	const executionId = String(ctx.getExecutionId());
	const expected = encodeAnswerToken({
		executionId,
		nodeId: node.id,
		nonce: query.nonce,
		answer: query.answer === 'a' ? 'a' : 'd',
		signature: query.signature,
	});
	const event =
		delivery.kind === 'bot'
			? delivery.events.find((e) => e.type === 'postback' && isPlainObject(e.postback) && e.postback.data === expected)
			: undefined;
	if (!event) return respond(ctx, 401, 'invalid', "The delivery holds no tap on this message's buttons");

	const user = answererOf(event);
	const options = (ctx.getNodeParameter('options', {}) as IDataObject) ?? {};
	if (user.userId === '' && user.username === '') return respond(ctx, 400, 'invalid', 'The postback event names no user');
	if (!mayAnswer(ctx, user)) {
		return respond(ctx, 200, 'notAllowed', `${user.username || user.userId} is not an allowed approver`, fillUser(text(options.notAllowedReply, DEFAULT_CHAT_TEXTS.notAllowed), user));
	}
	if (!claimAnswer(`${executionId}:${node.id}:${query.nonce}`)) {
		return respond(ctx, 200, 'alreadyAnswered', 'An answer was already recorded', fillUser(text(options.alreadyAnsweredReply, DEFAULT_CHAT_TEXTS.alreadyAnswered), user));
	}

	const approved = query.answer === 'a';
	const data: IDataObject = { approved, answeredBy: { ...user }, answeredAt: answeredAt(event), via: 'chat' };
	const confirmation =
		options.postConfirmation === false
			? ''
			: fillUser(approved ? text(options.approvedConfirmation, DEFAULT_CHAT_TEXTS.approved) : text(options.declinedConfirmation, DEFAULT_CHAT_TEXTS.declined), user);
	const reply: AnswerReply = { outcome: 'resumed', message: approved ? 'Approved' : 'Declined', reply: confirmation };
	return { workflowData: [[{ json: { data }, pairedItem: { item: 0 } }]], webhookResponse: reply };
}
