/**
 * In-chat answers of Send and Wait for Response: what Workplace Bot and Workplace Trigger agree on.
 *
 * A postback button's `data` is an answer token (`wpa1.<execution>.<node>.<nonce>.<answer>.<signature>`;
 * the answer `a` approve, `d` decline, `A` and `D` the same on the buttons an escalation posts).
 * The signature is n8n's own signature of the resume URL of that execution, node, nonce and
 * answer (getSignedResumeUrl), so the token cannot be forged or moved to another execution or
 * answer without n8n's secret. The trigger that receives the tap rebuilds that signed URL from
 * the token alone and posts the delivery to it as the platform signed it; the waiting node checks
 * n8n's signature, the platform's signature (with the webhook secret), that the delivery holds
 * this very token, and who tapped.
 */
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../validation';

export const ANSWER_TOKEN_PREFIX = 'wpa1.';

/** Approve or decline; upper case on the buttons an escalation posts, where backup approvers count. */
export type AnswerCode = 'a' | 'd' | 'A' | 'D';

const ANSWER_CODES: readonly string[] = ['a', 'd', 'A', 'D'];

/** Whether an answer code approves. */
export function approves(answer: AnswerCode): boolean {
	return answer === 'a' || answer === 'A';
}

/** Whether an answer code is on the buttons an escalation posted. */
export function onEscalation(answer: AnswerCode): boolean {
	return answer === 'A' || answer === 'D';
}

/**
 * The longest answer token the platform is assumed to keep whole in a postback's `data`
 * (docs/assumptions.md); Send and Wait refuses a longer one before sending.
 */
export const MAX_ANSWER_TOKEN_LENGTH = 100;

export interface AnswerToken {
	executionId: string;
	nodeId: string;
	nonce: string;
	answer: AnswerCode;
	/** n8n's resume URL signature (64 hex digits). */
	signature: string;
}

/** The query of an in-chat answer's resume URL, in the order n8n signs it. */
export function chatAnswerQuery(nonce: string, answer: AnswerCode): Record<string, string> {
	return { nonce, answer, via: 'chat' };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const B64URL = /^[A-Za-z0-9_-]+$/;

/** A node ID in the token: a UUID as its 16 bytes (22 characters), any other ID as `~` + its UTF-8. */
function encodeNodeId(nodeId: string): string {
	if (UUID.test(nodeId)) return Buffer.from(nodeId.replace(/-/g, ''), 'hex').toString('base64url');
	return `~${Buffer.from(nodeId, 'utf8').toString('base64url')}`;
}

function decodeNodeId(text: string): string | undefined {
	if (text.startsWith('~')) {
		const rest = text.slice(1);
		return B64URL.test(rest) ? Buffer.from(rest, 'base64url').toString('utf8') : undefined;
	}
	if (text.length !== 22 || !B64URL.test(text)) return undefined;
	const hex = Buffer.from(text, 'base64url').toString('hex');
	if (hex.length !== 32) return undefined;
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function encodeAnswerToken(token: AnswerToken): string {
	const signature = Buffer.from(token.signature, 'hex').toString('base64url');
	return `${ANSWER_TOKEN_PREFIX}${token.executionId}.${encodeNodeId(token.nodeId)}.${token.nonce}.${token.answer}.${signature}`;
}

/**
 * The token of a genuine button of this question and answer: n8n's signature of the resume URL
 * (`sign` is the node context's getSignedResumeUrl), in the token.
 */
export function signedAnswerToken(
	sign: (query: Record<string, string>) => string,
	question: Pick<AnswerToken, 'executionId' | 'nodeId' | 'nonce'>,
	answer: AnswerCode,
): string {
	const signature = new URL(sign(chatAnswerQuery(question.nonce, answer))).searchParams.get('signature') ?? '';
	return encodeAnswerToken({ ...question, answer, signature });
}

/** Whether a postback's data is meant as an in-chat answer (well formed or not). */
export function isAnswerData(data: unknown): data is string {
	return typeof data === 'string' && data.startsWith(ANSWER_TOKEN_PREFIX);
}

/** The token of a postback's data, or undefined when it is not a well-formed answer token. */
export function decodeAnswerToken(data: string): AnswerToken | undefined {
	if (!isAnswerData(data) || data.length > 400) return undefined;
	const parts = data.slice(ANSWER_TOKEN_PREFIX.length).split('.');
	if (parts.length !== 5) return undefined;
	const [executionId, node, nonce, answer, signature] = parts;
	if (!/^[A-Za-z0-9_-]{1,64}$/.test(executionId) || !/^[A-Za-z0-9_-]{4,32}$/.test(nonce)) return undefined;
	if (!ANSWER_CODES.includes(answer)) return undefined;
	if (signature.length !== 43 || !B64URL.test(signature)) return undefined;
	const nodeId = decodeNodeId(node);
	if (nodeId === undefined || nodeId === '') return undefined;
	return { executionId, nodeId, nonce, answer: answer as AnswerCode, signature: Buffer.from(signature, 'base64url').toString('hex') };
}

/**
 * The signed resume URL a token stands for, under n8n's base URL for waiting executions, exactly
 * as getSignedResumeUrl built it when the message was sent.
 */
export function resumeUrlOf(waitingBaseUrl: string, token: AnswerToken): string {
	const url = new URL(`${waitingBaseUrl.replace(/\/+$/, '')}/${token.executionId}/${encodeURIComponent(token.nodeId)}`);
	for (const [key, value] of Object.entries(chatAnswerQuery(token.nonce, token.answer))) url.searchParams.set(key, value);
	url.searchParams.set('signature', token.signature);
	return url.toString();
}

/** One signed tap as the platform delivered it: the delivery's bytes (base64) and its X-Service-Signature. */
export interface Ballot {
	delivery: string;
	signature: string;
}

/**
 * What the trigger posts to the resume URL: the tap's delivery, which of its events is the tap
 * (`event`: a delivery may carry several taps), and, for a request that needs several approvers,
 * the earlier taps on the same message it holds (each signed by the platform, so the waiting node
 * counts them without trusting the trigger). A recount carries no new tap.
 */
export interface ForwardedDelivery extends Partial<Ballot> {
	event?: number;
	ballots?: Ballot[];
}

/** The tap of a forward: its delivery's bytes and signature, and the position of the tap among the delivery's events. */
export interface ForwardedTap {
	raw: Buffer;
	signature: string;
	event: number;
}

/** The most earlier taps one forward carries. */
export const MAX_BALLOTS = 100;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether a value is a ballot: a delivery in base64 and its signature (forwards, recounts, the trigger's stored copy). */
export function isBallot(value: unknown): value is Ballot {
	return isPlainObject(value) && typeof value.delivery === 'string' && typeof value.signature === 'string' && BASE64.test(value.delivery);
}

/** The new tap (absent in a recount) and the earlier taps of a forward; undefined when malformed. */
export function readForwardedDelivery(body: unknown): { tap?: ForwardedTap; ballots: Ballot[] } | undefined {
	if (!isPlainObject(body)) return undefined;
	const ballots = body.ballots === undefined ? [] : body.ballots;
	if (!Array.isArray(ballots) || ballots.length > MAX_BALLOTS || !ballots.every(isBallot)) return undefined;
	if (body.delivery === undefined && body.signature === undefined) return ballots.length > 0 ? { ballots } : undefined;
	const tap = { delivery: body.delivery, signature: body.signature };
	const event = body.event;
	if (!isBallot(tap) || typeof event !== 'number' || !Number.isInteger(event) || event < 0) return undefined;
	return { tap: { raw: Buffer.from(tap.delivery, 'base64'), signature: tap.signature, event }, ballots };
}

/**
 * What the waiting node answers the trigger (JSON): whether the execution resumed, and a text the
 * bot should post in the chat the tap came from (a confirmation, or why the tap changed nothing).
 */
export type AnswerOutcome = 'resumed' | 'counted' | 'alreadyVoted' | 'notAllowed' | 'alreadyAnswered' | 'invalid' | 'misconfigured';

const OUTCOMES: readonly string[] = ['resumed', 'counted', 'alreadyVoted', 'notAllowed', 'alreadyAnswered', 'invalid', 'misconfigured'];

export interface AnswerReply extends IDataObject {
	outcome: AnswerOutcome;
	/** Posted in the chat when not empty. */
	reply: string;
	message: string;
}

export function readAnswerReply(body: unknown): AnswerReply | undefined {
	if (!isPlainObject(body) || typeof body.outcome !== 'string') return undefined;
	if (!OUTCOMES.includes(body.outcome)) return undefined;
	return {
		outcome: body.outcome as AnswerOutcome,
		reply: typeof body.reply === 'string' ? body.reply : '',
		message: typeof body.message === 'string' ? body.message : '',
	};
}

/** What the waiting node answers a tap that comes after the answer it recorded (a fixed text). */
export const ALREADY_ANSWERED_REPLY = 'This request was already answered.';

/** What the waiting node answers a second tap of someone whose vote was counted (a fixed text). */
export const ALREADY_VOTED_REPLY = '{user}, your vote was already counted.';

/**
 * What the trigger posts to a tap n8n itself refused because the execution no longer waits
 * (answered, timed out or stopped): the node does not run then, so the text is fixed.
 */
export const NOT_WAITING_REPLY = 'This request is no longer waiting for an answer.';

/** Who tapped, as the postback event's source names them. */
export interface Answerer {
	userId: string;
	username: string;
}

/** Who tapped: the postback event's `source` ('' where it names none). */
export function answererOf(event: IDataObject): Answerer {
	const source = isPlainObject(event.source) ? event.source : {};
	return {
		userId: typeof source.userId === 'string' ? source.userId : '',
		username: typeof source.username === 'string' ? source.username : '',
	};
}

/** A reply text with `{user}` replaced by the answerer's username (else their ID). */
export function fillUser(text: string, user: Answerer): string {
	return text.replace(/\{user\}/g, user.username || user.userId);
}
