/**
 * Several approvers in the chat: the taps on one question's buttons are counted here, by the
 * waiting node, from the deliveries the platform signed. The Workplace Trigger keeps the earlier
 * taps of a question (../../../../WorkplaceTrigger/approvals/votesStore.ts) and sends them with each new one,
 * because n8n gives a waiting node no place of its own between two webhook calls (the waiting
 * route saves no static data, and a resumed node cannot wait again: docs/ARCHITECTURE.md).
 * Each earlier tap is verified again (the platform's signature, n8n's signature of its token),
 * so a trigger cannot make up a vote.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { Answerer, AnswerCode, Ballot } from '../../../../shared/approvals/tapProtocol';
import { answererOf, approves, decodeAnswerToken, onEscalation, signedAnswerToken } from '../../../../shared/approvals/tapProtocol';
import { parseDelivery } from '../../../../shared/delivery';
import { checkSignature } from '../../../../shared/signature';
import { isPlainObject } from '../../../../shared/validation';

/** What a decline does when several approvals are required. */
export type DeclineRule = 'oneDeclines' | 'countDeclines';

/** One person's answer, as a tap on the question's buttons gave it. */
export interface Vote {
	user: Answerer;
	approved: boolean;
	/** The tap's time as the platform sent it (ms), else when it was counted. */
	at: number;
	/** On the buttons an escalation posted (where backup approvers count). */
	onEscalation: boolean;
}

/** The question the taps must be on: this execution, this node, this message (nonce). */
export interface Question {
	executionId: string;
	nodeId: string;
	nonce: string;
}

export interface Tally {
	/** The first vote of each person, in time order. */
	counted: Vote[];
	approvals: number;
	declines: number;
	/** Set once the votes decide: the answer and the vote that decided it. */
	decision?: { approved: boolean; by: Vote };
}

/** The tap's time as the platform sent it (ms), else now. */
export function timeOf(event: IDataObject): number {
	const at = typeof event.timestamp === 'string' ? Date.parse(event.timestamp) : NaN;
	return Number.isFinite(at) ? at : Date.now();
}

/** The token n8n's signature makes for this question and answer (what a genuine button carries). */
function genuineToken(ctx: IWebhookFunctions, question: Question, answer: AnswerCode): string | undefined {
	try {
		return signedAnswerToken((query) => ctx.getSignedResumeUrl(query), question, answer);
	} catch {
		return undefined;
	}
}

/** The vote of one event when it is a genuine tap on this question's buttons (`genuine`: the tokens n8n signs). */
export function voteOf(event: IDataObject, genuine: Partial<Record<AnswerCode, string>>): Vote | undefined {
	if (event.type !== 'postback' || !isPlainObject(event.postback) || typeof event.postback.data !== 'string') return undefined;
	const token = decodeAnswerToken(event.postback.data);
	if (!token || event.postback.data !== genuine[token.answer]) return undefined;
	const user = answererOf(event);
	if (user.userId === '' && user.username === '') return undefined;
	return { user, approved: approves(token.answer), at: timeOf(event), onEscalation: onEscalation(token.answer) };
}

/** The tokens of every genuine button of this question (n8n's signatures, made again). */
export function genuineTokens(ctx: IWebhookFunctions, question: Question): Partial<Record<AnswerCode, string>> {
	return { a: genuineToken(ctx, question, 'a'), d: genuineToken(ctx, question, 'd'), A: genuineToken(ctx, question, 'A'), D: genuineToken(ctx, question, 'D') };
}

/** The tokens n8n signs for this question and the webhook secret: what a genuine tap carries, and what signs its delivery. */
export interface Genuine {
	secret: string;
	tokens: Partial<Record<AnswerCode, string>>;
}

export function genuineOf(ctx: IWebhookFunctions, secret: string, question: Question): Genuine {
	return { secret, tokens: genuineTokens(ctx, question) };
}

/**
 * The taps on this question in one signed delivery (those before its event `before` when given:
 * the earlier taps of a delivery carrying several); none when the platform's signature does not hold.
 */
export function votesOf(genuine: Genuine, raw: Buffer, signature: string, before?: number): Vote[] {
	if (checkSignature(genuine.secret, raw, signature) !== 'valid') return [];
	const delivery = parseDelivery(raw, undefined);
	if (delivery.kind !== 'bot') return [];
	const events = before === undefined ? delivery.events : delivery.events.slice(0, before);
	return events.flatMap((event) => voteOf(event, genuine.tokens) ?? []);
}

/** The earlier taps a forward carried, each verified again. */
export function ballotVotes(genuine: Genuine, ballots: Ballot[]): Vote[] {
	return ballots.flatMap((ballot) => votesOf(genuine, Buffer.from(ballot.delivery, 'base64'), ballot.signature));
}

/** One key per person: the platform's user ID, else the username. */
export function personOf(user: Answerer): string {
	return user.userId !== '' ? user.userId : `@${user.username.replace(/^@/, '').toLowerCase()}`;
}

/** Whether the person already has a vote among these. */
export function hasVoted(votes: Vote[], user: Answerer): boolean {
	const person = personOf(user);
	return votes.some((vote) => personOf(vote.user) === person);
}

/**
 * Counts the first vote of each allowed person, in time order, and whether the votes decide:
 * `required` approvals approve; a decline declines at once (oneDeclines) or once `required`
 * people declined (countDeclines). Later votes are listed but change no decision.
 */
export function tally(votes: Vote[], required: number, rule: DeclineRule, mayVote: (vote: Vote) => boolean): Tally {
	const seen = new Set<string>();
	const result: Tally = { counted: [], approvals: 0, declines: 0 };
	const ordered = votes.map((vote, index) => ({ vote, index })).sort((a, b) => a.vote.at - b.vote.at || a.index - b.index);
	for (const { vote } of ordered) {
		const person = personOf(vote.user);
		if (seen.has(person) || !mayVote(vote)) continue;
		seen.add(person);
		result.counted.push(vote);
		if (vote.approved) result.approvals++;
		else result.declines++;
		if (result.decision) continue;
		if (vote.approved && result.approvals >= required) result.decision = { approved: true, by: vote };
		const declinesNeeded = rule === 'oneDeclines' ? 1 : required;
		if (!vote.approved && result.declines >= declinesNeeded) result.decision = { approved: false, by: vote };
	}
	return result;
}
