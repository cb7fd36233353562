/**
 * Reminders and escalation of an in-chat approval (Options > Remind Approvers, Options > Escalate):
 * 1. before the question is sent, registerWithClock hands it to the clock of the workflow's
 *    Workplace Trigger (../../../../shared/inChatClock.ts says why the clock is the trigger's);
 * 2. when something is due the trigger posts to the node's clock URL (`via=clock`), and
 *    clockWebhook posts what is due (a reminder naming who has not answered; the escalation with
 *    the question again) and answers the new progress. The execution keeps waiting.
 * Backup approvers' taps count from the escalation's time on (chatAnswer.ts).
 */
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isBallot, signedAnswerToken } from '../../../../shared/inChatAnswer';
import type { ClockAddress, ClockEntry, ClockReply } from '../../../../shared/inChatClock';
import { CLOCK_FIELD, askedAtOf, clocksOf, signBody } from '../../../../shared/inChatClock';
import { checkSignature } from '../../../../shared/signature';
import { botRequest } from '../../../../shared/transport/botApi';
import { isPlainObject } from '../../../../shared/validation';
import { textParameter, waitingMessage } from './answerData';
import { isNamed } from './chatAnswer';
import type { SentButton } from './body';
import { NONCE_PARAM, approvalButtons, pushMessages } from './body';
import type { ClockAction, Escalation, Schedule } from './schedule';
import { actionsOf, dueActions, firstActionAt, readSchedule, splitNames } from './schedule';
import type { Vote } from './votes';
import { ballotVotes, hasVoted } from './votes';

/** The time limit of the registration with the trigger. */
const REGISTER_TIMEOUT_MS = 15_000;

/** The time limit of one post of a reminder or an escalation; neither is ever sent twice. */
const POST_TIMEOUT_SECONDS = 15;

/** The query of the node's clock URL, signed by n8n like the answer buttons' URLs. */
export function clockQuery(nonce: string): Record<string, string> {
	return { [NONCE_PARAM]: nonce, via: 'clock' };
}

/** The address of a Workplace Trigger of this workflow, as it wrote it in the static data when n8n registered it. */
function findClock(ctx: IExecuteFunctions): ClockAddress | undefined {
	let clocks: Record<string, ClockAddress> = {};
	try {
		clocks = clocksOf(ctx.getWorkflowStaticData('global'));
	} catch {
		return undefined;
	}
	return Object.values(clocks)[0];
}

const NO_CLOCK =
	'Remind Approvers and Escalate need an active Workplace Trigger in this workflow: its clock sends them, and it says where it listens when the workflow is activated. Activate (publish) the workflow with its Workplace Trigger, or remove these options';

/** Said in a manual run that finds no clock: n8n 1.x starts those from the editor's copy of the workflow, without its static data. */
const NO_CLOCK_IN_MANUAL_RUN =
	'Reminders and escalation are not sent in this manual run: the workflow data it started from names no active Workplace Trigger (n8n 1.x starts manual runs from the editor\'s copy). Production executions of the active workflow send them.';

/**
 * Hands the question to the trigger's clock before it is sent, so that no question waits without
 * its reminders: a refusal fails the item before anything is posted.
 */
export async function registerWithClock(ctx: IExecuteFunctions, itemIndex: number, schedule: Schedule, nonce: string, askedAt: number, secret: string): Promise<void> {
	const clock = findClock(ctx);
	if (!clock && ctx.getMode() === 'manual') {
		ctx.addExecutionHints?.({ message: NO_CLOCK_IN_MANUAL_RUN, type: 'warning', location: 'outputPane' });
		return;
	}
	if (!clock) throw new NodeOperationError(ctx.getNode(), NO_CLOCK, { itemIndex });
	const nextAt = firstActionAt(schedule, askedAt);
	const entry: ClockEntry = { url: ctx.getSignedResumeUrl(clockQuery(nonce)), step: 0, nextAt: nextAt === null ? null : new Date(nextAt).toISOString() };
	const body = JSON.stringify({ [CLOCK_FIELD]: { register: entry } });
	const request: IHttpRequestOptions = {
		method: 'POST',
		url: clock.url,
		body,
		json: false,
		timeout: REGISTER_TIMEOUT_MS,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		headers: {
			'content-type': 'application/json',
			'x-service-signature': signBody(secret, body),
			'user-agent': 'n8n-nodes-workplace (Send and Wait reminders)',
			...(clock.host ? { host: clock.host } : {}),
		},
	};
	let status: number;
	try {
		status = ((await ctx.helpers.httpRequest(request)) as { statusCode: number }).statusCode;
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), `The Workplace Trigger's clock could not be reached at ${clock.url}: ${(error as Error).message}. Nothing was sent.`, { itemIndex });
	}
	if (status !== 200) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Workplace Trigger's clock refused the reminders (HTTP ${status}). Nothing was sent. Is the workflow active, and does this node's Workplace Webhook API credential hold the trigger's secret?`,
			{ itemIndex },
		);
	}
}

function respond(ctx: IWebhookFunctions, status: number, body: ClockReply | { outcome: 'invalid' | 'misconfigured'; message: string; reply: string }): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

/** What {question} stands for: the title, else the message, shortened. */
function questionName(ctx: IWebhookFunctions): string {
	const name = textParameter(ctx, 'title') || textParameter(ctx, 'message');
	return name.length > 80 ? `${name.slice(0, 79)}…` : name;
}

/** The approvers who have not answered: Allowed Approvers (and after the escalation the backups) without a counted vote. */
function pendingNames(ctx: IWebhookFunctions, votes: Vote[], escalated: Escalation | undefined): string[] {
	const named = [...splitNames(ctx.getNodeParameter('allowedApprovers', '')), ...(escalated?.backups ?? [])];
	return [...new Set(named)].filter((entry) => !votes.some((vote) => isNamed(entry, vote.user)));
}

/** The question's buttons again, with the same answer tokens (n8n signs the same URLs again). */
function questionMessages(ctx: IWebhookFunctions, nonce: string): IDataObject[] {
	const question = { executionId: String(ctx.getExecutionId()), nodeId: ctx.getNode().id, nonce };
	const buttons = approvalButtons((ctx.getNodeParameter('approvalOptions.values', {}) as IDataObject) ?? {}).map(
		(button): SentButton => ({ ...button, data: signedAnswerToken((query) => ctx.getSignedResumeUrl(query), question, button.answer!) }),
	);
	return pushMessages({ title: textParameter(ctx, 'title'), text: textParameter(ctx, 'message'), buttons });
}

async function post(ctx: IWebhookFunctions, gid: string, tid: string, messages: IDataObject[]): Promise<string> {
	try {
		await botRequest(ctx, {
			method: 'POST',
			path: '/bot/v2/message/push',
			body: { gid, tid, messages },
			policy: { maxRateLimitRetries: 2, maxRetryWaitSeconds: 10, maxServerErrorRetries: 0, timeoutSeconds: POST_TIMEOUT_SECONDS },
		});
		return 'posted';
	} catch (error) {
		return `not posted (${(error as Error).message})`;
	}
}

/** Posts one due action; what became of it, for the trigger's log. */
async function perform(ctx: IWebhookFunctions, action: ClockAction, schedule: Schedule, votes: Vote[], nonce: string, askedAt: number): Promise<string> {
	const { groupId = '', threadId = '' } = waitingMessage(ctx);
	const question = questionName(ctx);
	if (action.kind === 'reminder') {
		const escalated = schedule.escalation && Date.now() >= askedAt + schedule.escalation.afterMs ? schedule.escalation : undefined;
		const pending = pendingNames(ctx, votes, escalated);
		const text = schedule.reminders!.text.replace(/\{question\}/g, question).replace(/\{pending\}/g, pending.length ? pending.join(', ') : 'an answer');
		return `reminder ${await post(ctx, groupId, threadId, [{ type: 'text', text }])}`;
	}
	const escalation = schedule.escalation!;
	const text = escalation.text.replace(/\{question\}/g, question).replace(/\{backups\}/g, escalation.backups.join(', ') || 'everyone here');
	const [gid, tid] = escalation.to.sameChat ? [groupId, threadId] : [escalation.to.groupId, escalation.to.topicId];
	return `escalation ${await post(ctx, gid, tid, [{ type: 'text', text }, ...questionMessages(ctx, nonce)])}`;
}

/** Reads the trigger's tick: the body is `{payload, signature}`, the payload the tick as JSON signed with the webhook secret. */
function readTick(secret: string, body: unknown): { step: number; ballots: unknown[] } | undefined {
	if (!isPlainObject(body) || typeof body.payload !== 'string') return undefined;
	if (checkSignature(secret, Buffer.from(body.payload, 'utf8'), body.signature) !== 'valid') return undefined;
	let tick: unknown;
	try {
		tick = JSON.parse(body.payload);
	} catch {
		return undefined;
	}
	if (!isPlainObject(tick) || typeof tick.step !== 'number' || !Array.isArray(tick.ballots)) return undefined;
	return { step: tick.step, ballots: tick.ballots };
}

/** The clock's call: posts what is due after `step` actions and answers the new progress; the execution keeps waiting. */
export async function clockWebhook(ctx: IWebhookFunctions, query: Record<string, string>, secret: string | undefined, isAnswered: (key: string) => boolean): Promise<IWebhookResponseData> {
	if (!secret) return respond(ctx, 500, { outcome: 'misconfigured', message: 'No Workplace Webhook API credential with a secret is selected', reply: '' });
	const tick = readTick(secret, ctx.getBodyData());
	if (!tick) return respond(ctx, 401, { outcome: 'invalid', message: 'Expected {payload, signature} signed with the webhook secret', reply: '' });
	const nonce = query[NONCE_PARAM] ?? '';
	const askedAt = askedAtOf(nonce);
	const schedule = readSchedule((ctx.getNodeParameter('options', {}) as IDataObject) ?? {});
	if (askedAt === undefined || 'rule' in schedule) return respond(ctx, 200, { outcome: 'clock', step: tick.step, nextAt: null, message: 'nothing scheduled' });
	const question = { executionId: String(ctx.getExecutionId()), nodeId: ctx.getNode().id, nonce };
	// Answered here already (n8n is taking the resume): nothing more is due.
	if (isAnswered(`${question.executionId}:${question.nodeId}:${nonce}`)) return respond(ctx, 200, { outcome: 'clock', step: tick.step, nextAt: null, message: 'answered' });
	const { due, step, nextAt } = dueActions(actionsOf(schedule, askedAt), tick.step, Date.now());
	const votes = ballotVotes(ctx, secret, question, tick.ballots.filter(isBallot));
	const counted = votes.filter((vote, index) => !hasVoted(votes.slice(0, index), vote.user));
	const done: string[] = [];
	for (const action of due) done.push(await perform(ctx, action, schedule, counted, nonce, askedAt));
	return respond(ctx, 200, { outcome: 'clock', step, nextAt: nextAt === null ? null : new Date(nextAt).toISOString(), message: done.join(', ') || 'nothing due' });
}
