/**
 * Taps on the postback buttons of Send and Wait for Response (in-chat answers): the trigger starts
 * no run for them. Each tap goes, with the earlier counted taps of its question, to its waiting
 * execution (handOn.ts: n8n's waiting-webhook route, so it reaches whichever process serves
 * waiting executions, also in queue mode), one tap at a time per question and process, and the
 * bot posts in the chat what the waiting node answers: a confirmation, or why the tap changed
 * nothing, once per person and kind.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { Ballot } from '../../shared/approvals/tapProtocol';
import { answererOf, decodeAnswerToken, fillUser, isAnswerData } from '../../shared/approvals/tapProtocol';
import { processMap } from '../../shared/processMemory';
import { isPlainObject } from '../../shared/validation';
import { logTrigger } from '../log';
import type { AnswerResult, Handed } from './handOn';
import { handOn, postReply } from './handOn';
import { eventOf, learned } from './questionLife';
import { scheduleRechecks } from './recounts';
import type { QuestionStore } from './questionStore';
import { heldBallots, unionOf } from './questionStore';

/** Whether a bot event is a tap on an in-chat answer button. */
export function isAnswerEvent(event: IDataObject): boolean {
	return event.type === 'postback' && isPlainObject(event.postback) && isAnswerData(event.postback.data);
}

/**
 * Replies of one kind a person was given per request: the ones that can repeat with every tap are
 * posted once, so a member cannot make the bot post the same text as often as they tap.
 */
const REPEATABLE_REPLIES: Partial<Record<AnswerResult['outcome'], string>> = {
	notAllowed: 'notAllowed',
	alreadyAnswered: 'late',
	alreadyVoted: 'alreadyVoted',
	notWaiting: 'late',
	failed: 'failed',
};

const MAX_REPLIES_HELD = 10_000;

const repliesGiven = processMap<string, true>();

/** Whether this person has not yet been given this kind of reply for this request (and records it). */
function firstReplyOfItsKind(request: string, outcome: AnswerResult['outcome'], event: IDataObject): boolean {
	const kind = REPEATABLE_REPLIES[outcome];
	if (!kind) return true;
	const { userId, username } = answererOf(event);
	const key = `${request}|${kind}|${userId || username}`;
	if (repliesGiven.has(key)) return false;
	repliesGiven.set(key, true);
	while (repliesGiven.size > MAX_REPLIES_HELD) repliesGiven.delete(repliesGiven.keys().next().value as string);
	return true;
}

/** Posts the reply a tap needs, unless this person was already given a reply of its kind for this request. */
async function replyOnce(ctx: IWebhookFunctions, event: IDataObject, request: string, { outcome, reply }: Handed): Promise<void> {
	if (ctx.getNodeParameter('useBotCredential', false) !== true || !ctx.getNode().credentials?.workplaceBotOAuth2Api) {
		// Only a reply the waiting node asked for is worth a line: "not recorded" is the trigger's own.
		if (outcome !== 'failed') {
			logTrigger(ctx, 'warn', `an in-chat answer needed a reply ("${reply}") but the trigger has no Workplace Bot credential ("Use Bot Credential"), so none was posted.`);
		}
		return;
	}
	if (!firstReplyOfItsKind(request, outcome, event)) {
		logTrigger(ctx, 'info', `a repeated tap on an in-chat answer button (${outcome}, request ${request}) got no reply: this person was already given one.`);
		return;
	}
	await postReply(ctx, event, fillUser(reply, answererOf(event)));
}

/** One tap at a time per message (execution, node, nonce) in this process: the first answer wins, and its confirmation is posted before any reply to a later tap. */
const queues = processMap<string, Promise<unknown>>();

async function oneAtATime<T>(request: string, work: () => Promise<T>): Promise<T> {
	const before = queues.get(request) ?? Promise.resolve();
	const turn = before.then(work);
	const settled = turn.catch(() => undefined);
	queues.set(request, settled);
	void settled.then(() => {
		if (queues.get(request) === settled) queues.delete(request);
	});
	return await turn;
}

/**
 * Hands one tap to its waiting execution, with the earlier counted taps of the same question, and
 * posts what the bot should say. A counted tap is kept; in production, recounts.ts checks later
 * that no other process counted taps this one did not see.
 */
export async function handleAnswer(
	ctx: IWebhookFunctions,
	event: IDataObject,
	tap: Ballot & { event: number },
	resumeBaseUrl: unknown,
	store: QuestionStore,
): Promise<AnswerResult> {
	const token = decodeAnswerToken((event.postback as IDataObject).data as string);
	if (!token) {
		logTrigger(ctx, 'warn', 'a tap on an in-chat answer button carried a malformed answer token; nothing was resumed.');
		return { outcome: 'malformed' };
	}
	const request = `${token.executionId}:${token.nodeId}:${token.nonce}`;
	return await oneAtATime(request, async () => {
		const earlier = heldBallots(store, request).filter((ballot) => ballot.delivery !== tap.delivery);
		const handed = await handOn(ctx, token, earlier.length ? { ...tap, ballots: earlier } : { ...tap }, resumeBaseUrl);
		const counted = unionOf(earlier, [{ delivery: tap.delivery, signature: tap.signature }]);
		learned(ctx, store, request, eventOf(handed.outcome), counted);
		if (handed.outcome === 'counted' && store.staticData) scheduleRechecks(ctx, { request, ballots: counted, round: 0 }, resumeBaseUrl, store);
		if (handed.reply.trim() !== '') await replyOnce(ctx, event, request, handed);
		return { outcome: handed.outcome };
	});
}
