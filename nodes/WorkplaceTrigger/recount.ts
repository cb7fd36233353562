/**
 * A recount reaching the trigger (./recheck.ts says when and why they are posted): what it brings
 * is merged with what is held here and in the stored copy, and the waiting node counts again when
 * that adds taps the recount's sender had not counted with.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { AnswerToken, Ballot } from '../shared/inChatAnswer';
import { decodeAnswerToken } from '../shared/inChatAnswer';
import { parseDelivery } from '../shared/delivery';
import { isPlainObject } from '../shared/validation';
import type { BallotStore } from './ballots';
import { addsTo, heldBallots, keepBallots, unionOf } from './ballots';
import { afterOutcome, handOn, postReply } from './answers';
import type { Recount } from './recheck';
import { scheduleRechecks } from './recheck';

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
 * One recount reaching the trigger: merges what it brings with what is held here and in the
 * stored copy; the waiting node counts again when that adds to what the recount's sender counted.
 */
export async function answerRecount(ctx: IWebhookFunctions, recount: Recount, store: BallotStore, resumeBaseUrl: unknown): Promise<string> {
	const held = heldBallots(store, recount.request);
	const merged = unionOf(held, recount.ballots);
	const next = { request: recount.request, ballots: merged, round: recount.round + 1 };
	if (held.length > 0 && !addsTo(recount.ballots, merged)) {
		// Nothing here is new to the sender; taps the recount brings are written back and checked again.
		if (addsTo(held, merged)) {
			keepBallots(store, recount.request, merged);
			scheduleRechecks(ctx, next, resumeBaseUrl, store);
		}
		return 'nothing new';
	}
	// New taps for the count, or a question this process no longer knows (decided here, or its
	// taps dropped from the stored copy): the waiting node counts them, or says it no longer waits.
	const question = questionOf(merged, recount.request);
	if (!question) return 'no tap of the question';
	const handed = await handOn(ctx, question.token, { ballots: merged }, resumeBaseUrl);
	afterOutcome(store, recount.request, handed.outcome, merged);
	if (handed.outcome === 'counted' && addsTo(held, merged)) scheduleRechecks(ctx, next, resumeBaseUrl, store);
	if (handed.outcome === 'resumed' && handed.reply.trim() !== '' && ctx.getNodeParameter('useBotCredential', false) === true) {
		await postReply(ctx, question.event, handed.reply);
	}
	return handed.outcome;
}
