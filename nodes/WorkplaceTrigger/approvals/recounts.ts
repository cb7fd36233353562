/**
 * Bringing together the counted taps of one question that different n8n processes received (queue
 * mode: taps reach whichever webhook process the proxy picks). Two simultaneous taps each reach the
 * waiting node with only what their own process held, so neither sees the other: "1 of 2" twice.
 * Each is kept in the trigger's static data, but n8n saves that whole, so the later save drops the
 * earlier tap there (votesStore.ts).
 *
 * So after a counted tap the process that handed it on posts a recount to the trigger's own URL
 * (ownUrl.ts) at RECHECK_DELAYS_MS (the last after any request that could still save an older copy
 * has ended). A recount is signed like a delivery, with the trigger's webhook secret, and reaches
 * any process, which reads the stored copy afresh: taps it holds that the recount lacks go to the
 * waiting node with all the others (which decides once they do), and taps the recount brings that
 * the stored copy lacks are written back and checked again, up to MAX_RECOUNT_ROUNDS.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { Recount } from '../../shared/approvals/ownMessages';
import type { AnswerToken, Ballot } from '../../shared/approvals/tapProtocol';
import { decodeAnswerToken } from '../../shared/approvals/tapProtocol';
import { MAX_RECOUNT_ROUNDS } from '../../shared/approvals/timing';
import { parseDelivery } from '../../shared/delivery';
import { isPlainObject } from '../../shared/validation';
import { logTrigger } from '../log';
import type { Handed } from './handOn';
import { handOn, postReply } from './handOn';
import type { QuestionEvent } from './questionLife';
import { eventOf, learned } from './questionLife';
import { postLater } from './ownUrl';
import type { QuestionStore } from './questionStore';
import { addsTo, ballotId, finishedAs, heldBallots, isHeld, keepBallots, noteUnreachable, unionOf } from './questionStore';

/** The tap event and token of one of the question's taps (its chat and resume URL). */
function questionOf(ballots: Ballot[], request: string): { event: IDataObject; token: AnswerToken } | undefined {
	for (const ballot of ballots) {
		const delivery = parseDelivery(Buffer.from(ballot.delivery, 'base64'), undefined);
		if (delivery.kind !== 'bot') continue;
		for (const event of delivery.events) {
			const data = isPlainObject(event.postback) ? event.postback.data : undefined;
			const token = typeof data === 'string' ? decodeAnswerToken(data) : undefined;
			if (token && `${token.executionId}:${token.nodeId}:${token.nonce}` === request) return { event, token };
		}
	}
	return undefined;
}

/**
 * Whether this process hands on the taps when it and the recount's sender each hold taps the other
 * lacks: their recounts may cross, each reaching the other at the same moment, and n8n 1 would
 * resume twice; the side whose own taps hold the lowest ID does, the other leaves them to it.
 */
function handsOnWhenCrossed(held: Ballot[], sent: Ballot[]): boolean {
	const lowest = (list: Ballot[]) => list.map(ballotId).sort()[0] ?? '';
	return lowest(held.filter((ballot) => !sent.some((other) => ballotId(other) === ballotId(ballot)))) < lowest(sent.filter((ballot) => !held.some((other) => ballotId(other) === ballotId(ballot))));
}

/**
 * One recount reaching the trigger: merges what it brings with what is held here and in the
 * stored copy; the waiting node counts again when that adds to what the recount's sender counted.
 */
export async function answerRecount(ctx: IWebhookFunctions, recount: Recount, store: QuestionStore, resumeBaseUrl: unknown): Promise<string> {
	if (finishedAs(store, recount.request)) return 'done';
	const held = heldBallots(store, recount.request);
	const merged = unionOf(held, recount.ballots);
	const next: Recount = { request: recount.request, ballots: merged, round: recount.round + 1 };
	const newHere = addsTo(recount.ballots, merged);
	const newToHere = addsTo(held, merged);
	if (held.length > 0 && !newHere && recount.handed !== false) {
		// Nothing here is new to the sender; taps the recount brings are written back and checked again.
		if (newToHere) {
			keepBallots(store, recount.request, merged);
			scheduleRechecks(ctx, next, resumeBaseUrl, store);
		}
		return 'nothing new';
	}
	if (held.length > 0 && newHere && newToHere && !handsOnWhenCrossed(held, recount.ballots)) {
		keepBallots(store, recount.request, merged);
		scheduleRechecks(ctx, { ...next, handed: false }, resumeBaseUrl, store);
		return 'left to the other process';
	}
	// New taps for the count, or a question this process no longer knows (its taps dropped from
	// the stored copy): the waiting node counts them, or says it no longer waits.
	const question = questionOf(merged, recount.request);
	if (!question) return 'no tap of the question';
	const handed = await handOn(ctx, question.token, { ballots: merged }, resumeBaseUrl);
	if (handed.outcome === 'counted' && addsTo(held, merged)) scheduleRechecks(ctx, next, resumeBaseUrl, store);
	return await afterCount(ctx, store, recount.request, question, handed, merged);
}

/** What a count without a new tap leads to: the question moves on, and a decision's confirmation is posted (nobody else would). */
async function afterCount(ctx: IWebhookFunctions, store: QuestionStore, request: string, question: { event: IDataObject }, handed: Handed, ballots: Ballot[]): Promise<string> {
	learned(ctx, store, request, eventOf(handed.outcome), ballots);
	if (handed.outcome === 'resumed' && handed.reply.trim() !== '' && ctx.getNodeParameter('useBotCredential', false) === true) {
		await postReply(ctx, question.event, handed.reply);
	}
	return handed.outcome;
}

/**
 * The clock's question to a waiting node whose votes changed nothing for a while (votesStore.ts,
 * idleQuestions): its votes counted again. Decided, or no longer waiting (stopped, timed out): the
 * question is done and its votes go; no answer: asked again later, given up after a while.
 */
export async function askWhetherWaiting(ctx: IWebhookFunctions, store: QuestionStore, request: string, ballots: Ballot[], resumeBaseUrl: unknown): Promise<string> {
	const question = questionOf(ballots, request);
	if (!question) return 'no tap of the question';
	const handed = await handOn(ctx, question.token, { ballots }, resumeBaseUrl);
	if (handed.outcome === 'failed' || handed.outcome === 'refused' || handed.outcome === 'invalid' || handed.outcome === 'misconfigured') {
		if (noteUnreachable(store, request)) {
			learned(ctx, store, request, 'givenUp');
			logTrigger(ctx, 'warn', `the votes of the in-chat approval of execution ${question.token.executionId} were given up: its waiting node has not answered for an hour (last: ${handed.outcome}). Its approvers' taps from now on are handed on afresh.`);
		}
		return handed.outcome;
	}
	return await afterCount(ctx, store, request, question, handed, ballots);
}

/** What n8n's answer to a recount tells of the question when it needs no more: decided, or no longer waiting. */
function settledBy(answer: unknown): QuestionEvent | undefined {
	const outcome = isPlainObject(answer) && typeof answer.message === 'string' ? /: (\w+)$/.exec(answer.message)?.[1] : undefined;
	if (outcome === 'done') return 'ended';
	const event = outcome === undefined ? undefined : eventOf(outcome);
	return event === 'decided' || event === 'ended' ? event : undefined;
}

/**
 * The recounts of a counted tap (see the top of the file): posted unless this process saw the
 * question decided meanwhile; settled elsewhere, this process lets go of its taps (else it would
 * write them back).
 */
export function scheduleRechecks(ctx: IWebhookFunctions, recount: Recount, resumeBaseUrl: unknown, store: QuestionStore): void {
	if (recount.round >= MAX_RECOUNT_ROUNDS) return;
	postLater(ctx, resumeBaseUrl, {
		purpose: 'recount',
		message: { kind: 'recount', recount },
		goOn: () => isHeld(store, recount.request),
		stopAfter: (answer) => {
			const settled = settledBy(answer);
			if (!settled) return false;
			// Settled by another process: this one lets go of the question (its memory only).
			learned(ctx, { scope: store.scope, key: store.key }, recount.request, settled);
			return true;
		},
		failed: 'a recount of in-chat votes could not be posted; a vote counted at the same moment by another n8n process is then counted only when a later tap or recount brings it',
	});
}
