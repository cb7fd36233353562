/**
 * An in-chat answer reaching the waiting node: the Workplace Trigger received a tap on one of the
 * message's postback buttons and posted the delivery, as the platform signed it, to the resume
 * URL the button's token stands for (../../../../shared/approvals/tapProtocol.ts). In order:
 * 1. n8n's signature of the URL (execution, node, nonce, answer), also checked by n8n itself;
 * 2. the platform's signature of the delivery, with this node's Workplace Webhook API secret,
 *    so someone who learns the URL cannot answer as someone else;
 * 3. the postback event the trigger names in the delivery (`event`: a delivery may carry several
 *    taps) carries this very token; the delivery's taps before it count as earlier ones;
 * 4. who tapped: an allowed approver, else a reply for the chat and no resume;
 *    Backup approvers (Options > Escalate) count on the buttons the escalation posted only, so
 *    nobody decides before the chat was told they may;
 * 5. the votes: with Approvals Required above 1, the earlier taps the trigger sent along
 *    (./votes.ts) and this one are counted, a person's second tap is not; until they decide, the
 *    tap is confirmed ("2 of 3 approvals") and the execution keeps waiting;
 * 6. the first decision wins (in this process; n8n refuses a second resume of one execution).
 * A recount (earlier taps, no new one) comes from a trigger that learned of taps another n8n
 * process counted: it resumes when they decide, and posts nothing otherwise.
 * The answer to the trigger is JSON: the outcome and a text for the bot to post (a confirmation,
 * or why nothing changed). On a resume n8n sends it, after it has taken the resume (n8n 2).
 * The execution goes on with `{data: {approved, responder: {id, username, source: 'chat'},
 * respondedAt, messageId, groupId, threadId}}` (./answerData.ts): `responder` is who decided; with
 * Approvals Required above 1 `responders` lists every counted person with their answer and time.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { Answerer, AnswerOutcome, AnswerReply, ForwardedTap } from '../../../../shared/approvals/tapProtocol';
import { ALREADY_ANSWERED_REPLY, ALREADY_VOTED_REPLY, fillUser, readForwardedDelivery } from '../../../../shared/approvals/tapProtocol';
import { checkSignature } from '../../../../shared/signature';
import { isPlainObject } from '../../../../shared/validation';
import { parseDelivery } from '../../../../shared/delivery';
import type { Responder } from './answerData';
import { answerData, waitingMessage } from './answerData';
import { DEFAULT_CHAT_TEXTS } from './description';
import { readSchedule } from './schedule';
import type { DeclineRule, Genuine, Question, Tally, Vote } from './votes';
import { ballotVotes, genuineOf, hasVoted, tally, voteOf, votesOf } from './votes';

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

/** Whether an entry of a list of people (an ID or a username, `@` optional) names this person. */
export function isNamed(entry: string, user: Answerer): boolean {
	return entry === user.userId || (user.username !== '' && sameName(entry, user.username));
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
	if (list.length > 0) return list.some((entry) => isNamed(entry, user));
	if (ctx.getNodeParameter('sendTo', 'user') === 'group') return true;
	const recipient = ctx.getNodeParameter('userId', '') as unknown;
	if (isPlainObject(recipient)) {
		const value = String(recipient.value ?? '').trim();
		if (recipient.mode === 'username') return user.username !== '' && sameName(value, user.username);
		return value === user.userId;
	}
	return String(recipient ?? '').trim() === user.userId;
}

function iso(ms: number): string {
	return new Date(ms).toISOString();
}

/**
 * Whose vote counts: mayAnswer's, and on the buttons the escalation posted (Options > Escalate)
 * its backup approvers': those buttons exist only once the chat was told they may answer.
 */
function countsVote(ctx: IWebhookFunctions, options: IDataObject): (vote: Vote) => boolean {
	const schedule = readSchedule(options);
	const backups = 'rule' in schedule ? [] : (schedule.escalation?.backups ?? []);
	return (vote) => mayAnswer(ctx, vote.user) || (vote.onEscalation && backups.some((entry) => isNamed(entry, vote.user)));
}

/** Who answered, as n8n names a responder: the postback names an ID and a username, no display name. */
function responderOf(user: Answerer): Responder {
	return user.username === '' ? { id: user.userId, source: 'chat' } : { id: user.userId, username: user.username, source: 'chat' };
}

/** How many distinct allowed approvers must approve (1: the first answer decides), and what a decline does. */
function approvalRule(ctx: IWebhookFunctions): { required: number; rule: DeclineRule } {
	const required = Number(ctx.getNodeParameter('approvalsRequired', '1'));
	const rule = ctx.getNodeParameter('declineRule', 'oneDeclines') === 'countDeclines' ? 'countDeclines' : 'oneDeclines';
	return { required: Number.isInteger(required) && required > 1 ? required : 1, rule };
}

/** The webhook secret of the node's Workplace Webhook API credential; undefined when there is none. */
export async function webhookSecret(ctx: IWebhookFunctions): Promise<string | undefined> {
	try {
		const credential = await ctx.getCredentials<{ secret?: string }>('workplaceWebhookApi');
		return typeof credential.secret === 'string' && credential.secret !== '' ? credential.secret : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The new tap of a forward: the event the trigger names, when it is a genuine tap on this message's
 * button of the resume URL's answer; else the refusal.
 */
function readTap(ctx: IWebhookFunctions, genuine: Genuine, query: Record<string, string>, tap: ForwardedTap): Vote | IWebhookResponseData {
	if (checkSignature(genuine.secret, tap.raw, tap.signature) !== 'valid') {
		return respond(ctx, 401, 'invalid', "The delivery's X-Service-Signature does not match the webhook secret of the Send and Wait node");
	}
	const delivery = parseDelivery(tap.raw, undefined);
	const event = delivery.kind === 'bot' ? delivery.events[tap.event] : undefined;
	const tokens = genuine.tokens;
	const vote = event && (event.postback as IDataObject | undefined)?.data === tokens[query.answer as keyof typeof tokens] ? voteOf(event, tokens) : undefined;
	if (!vote) return respond(ctx, 401, 'invalid', "The delivery's event named by the trigger is no tap on this message's buttons by a named user");
	return vote;
}

/** The text posted for a counted vote that did not decide: Vote Counted Reply with its placeholders filled. */
function countedReply(options: IDataObject, vote: Vote, counts: Tally, required: number): string {
	return fillUser(text(options.voteCountedReply, DEFAULT_CHAT_TEXTS.counted), vote.user)
		.replace(/\{answer\}/g, vote.approved ? 'approved' : 'declined')
		.replace(/\{approvals\}/g, String(counts.approvals))
		.replace(/\{declines\}/g, String(counts.declines))
		.replace(/\{required\}/g, String(required));
}

/** The confirmation of a decision, unless Post Confirmation is off. */
function confirmation(options: IDataObject, approved: boolean, user: Answerer): string {
	if (options.postConfirmation === false) return '';
	return fillUser(approved ? text(options.approvedConfirmation, DEFAULT_CHAT_TEXTS.approved) : text(options.declinedConfirmation, DEFAULT_CHAT_TEXTS.declined), user);
}

/** Resumes with the decision: who decided, when, and (several approvers) every counted person with their answer. */
function resumeWith(ctx: IWebhookFunctions, counts: Tally, options: IDataObject, required: number): IWebhookResponseData {
	const { approved, by } = counts.decision!;
	const data = answerData({ approved }, responderOf(by.user), iso(by.at), waitingMessage(ctx));
	if (required > 1) data.responders = counts.counted.map((vote) => ({ ...responderOf(vote.user), approved: vote.approved, respondedAt: iso(vote.at) }));
	const reply: AnswerReply = { outcome: 'resumed', message: approved ? 'Approved' : 'Declined', reply: confirmation(options, approved, by.user) };
	return { workflowData: [[{ json: { data }, pairedItem: { item: 0 } }]], webhookResponse: reply };
}

/** The answers this process recorded (resumeWebhook.ts): whether one is, and recording one (false when it already was). */
export interface AnswerClaims {
	isAnswered: (key: string) => boolean;
	claimAnswer: (key: string) => boolean;
}

export async function chatAnswerWebhook(ctx: IWebhookFunctions, query: Record<string, string>, claims: AnswerClaims): Promise<IWebhookResponseData> {
	const forwarded = readForwardedDelivery(ctx.getBodyData());
	if (!forwarded) return respond(ctx, 400, 'invalid', 'Expected {delivery, signature, ballots?}: a delivery of the platform as the Workplace Trigger received it');
	const secret = await webhookSecret(ctx);
	if (!secret) {
		return respond(ctx, 500, 'misconfigured', 'Send and Wait cannot verify in-chat answers: select a Workplace Webhook API credential with the webhook secret in the Workplace Bot node');
	}
	const question: Question = { executionId: String(ctx.getExecutionId()), nodeId: ctx.getNode().id, nonce: query.nonce };
	const options = (ctx.getNodeParameter('options', {}) as IDataObject) ?? {};
	const allowed = countsVote(ctx, options);
	const genuine = genuineOf(ctx, secret, question);

	let tapped: Vote | undefined;
	if (forwarded.tap) {
		const read = readTap(ctx, genuine, query, forwarded.tap);
		if (!('user' in read)) return read;
		tapped = read;
		if (!allowed(tapped)) {
			const who = tapped.user.username || tapped.user.userId;
			return respond(ctx, 200, 'notAllowed', `${who} is not an allowed approver`, fillUser(text(options.notAllowedReply, DEFAULT_CHAT_TEXTS.notAllowed), tapped.user));
		}
	}
	const key = `${question.executionId}:${question.nodeId}:${question.nonce}`;
	const alreadyAnswered = () => respond(ctx, 200, 'alreadyAnswered', 'An answer was already recorded', tapped ? ALREADY_ANSWERED_REPLY : '');
	if (claims.isAnswered(key)) return alreadyAnswered();

	const { required, rule } = approvalRule(ctx);
	// The earlier taps: those the trigger holds, and those before this one in its own delivery.
	const inDelivery = forwarded.tap ? votesOf(genuine, forwarded.tap.raw, forwarded.tap.signature, forwarded.tap.event) : [];
	const earlier = [...ballotVotes(genuine, forwarded.ballots), ...inDelivery];
	const counts = tally(tapped ? [...earlier, tapped] : earlier, required, rule, allowed);
	if (counts.decision) return claims.claimAnswer(key) ? resumeWith(ctx, counts, options, required) : alreadyAnswered();
	const status = `${counts.approvals} of ${required} approvals, ${counts.declines} declined`;
	if (!tapped) return respond(ctx, 200, 'counted', status);
	if (hasVoted(earlier.filter(allowed), tapped.user)) {
		return respond(ctx, 200, 'alreadyVoted', 'This person already voted', fillUser(ALREADY_VOTED_REPLY, tapped.user));
	}
	return respond(ctx, 200, 'counted', status, countedReply(options, tapped, counts, required));
}
