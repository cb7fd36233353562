/**
 * Reminders and escalation of an in-chat approval (Options > Remind Approvers, Options > Escalate):
 * 1. before the question is sent, registerWithClock hands it to the clock of the workflow's
 *    Workplace Trigger (../../../../shared/approvals/clockProtocol.ts says why the clock is the trigger's);
 * 2. when something is due the trigger posts to the node's clock URL (`via=clock`), and
 *    clockWebhook posts what is due (a reminder naming who has not answered; the escalation with
 *    the question again) and answers the new progress. The execution keeps waiting.
 * Backup approvers' taps count on the buttons the escalation posts (chatAnswer.ts).
 */
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, INode, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isBallot, signedAnswerToken } from '../../../../shared/approvals/tapProtocol';
import type { ClockAddress, ClockEntry, ClockReply } from '../../../../shared/approvals/clockProtocol';
import { askedAtOf, clocksOf, signBody } from '../../../../shared/approvals/clockProtocol';
import { ownMessageBody } from '../../../../shared/approvals/ownMessages';
import { CLOCK_POST_TIMEOUT_S, REGISTER_TIMEOUT_MS } from '../../../../shared/approvals/timing';
import { warnOnce } from '../../../../shared/reliance';
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
import { ballotVotes, genuineOf, hasVoted } from './votes';


/** The query of the node's clock URL, signed by n8n like the answer buttons' URLs. */
export function clockQuery(nonce: string): Record<string, string> {
	return { [NONCE_PARAM]: nonce, via: 'clock' };
}

/** The Workplace Triggers of the workflow that keep a clock (webhook secret), from the execution's own copy of the workflow. */
function clockTriggers(ctx: IExecuteFunctions): INode[] | undefined {
	// n8n-core's node contexts hold the workflow they run in (`workflow`, not in IExecuteFunctions): reliance 13.
	const nodes = (ctx as unknown as { workflow?: { nodes?: unknown } }).workflow?.nodes;
	if (!isPlainObject(nodes)) return undefined;
	return (Object.values(nodes) as INode[]).filter(
		(node) => node.type?.endsWith('.workplaceTrigger') && node.disabled !== true && typeof node.webhookId === 'string' && (node.parameters?.verification ?? 'secret') === 'secret',
	);
}

/**
 * A trigger's production URL as the trigger itself works it out (WorkplaceTrigger/approvals/ownUrl.ts,
 * ownUrl): under the host of n8n's resume URLs, with n8n's default endpoint names
 * (`/webhook-waiting` there, `/webhook/<webhookId>/webhook` here), on the origin of the trigger's
 * Resume Base URL when that is set.
 */
function addressOf(trigger: INode, resumeUrl: string): ClockAddress {
	const resume = new URL(resumeUrl);
	const base = resume.pathname.split('/').slice(0, -3).join('/');
	const path = `${base}/webhook/${trigger.webhookId}/webhook`;
	const options: IDataObject = isPlainObject(trigger.parameters?.options) ? (trigger.parameters.options as IDataObject) : {};
	const given = options.resumeBaseUrl;
	const override = typeof given === 'string' && !given.startsWith('=') ? given.trim() : '';
	if (override === '') return { url: `${resume.origin}${path}` };
	try {
		const origin = new URL(override);
		return origin.host === resume.host ? { url: `${origin.origin}${path}` } : { url: `${origin.origin}${path}`, host: resume.host };
	} catch {
		return { url: `${resume.origin}${path}` };
	}
}

/**
 * Where the workflow's Workplace Trigger listens: as the trigger wrote it in the static data when
 * n8n registered it (exact, but n8n 2 gives a queue-mode worker no static data with a new
 * execution), else worked out from the trigger node in the execution's workflow.
 */
function findClock(ctx: IExecuteFunctions, resumeUrl: string): ClockAddress | undefined {
	let written: Record<string, ClockAddress> = {};
	try {
		written = clocksOf(ctx.getWorkflowStaticData('global'));
	} catch {
		written = {};
	}
	const triggers = clockTriggers(ctx);
	if (triggers === undefined) {
		warnOnce(ctx.logger, 'workflowOfContext', 'Send and Wait finds no workflow in its node context (n8n-core\'s `workflow`): reminders and escalation use the address the Workplace Trigger wrote in the static data, which n8n 2 does not hand to queue-mode workers.');
		return Object.values(written)[0];
	}
	const trigger = triggers[0];
	if (!trigger) return Object.values(written)[0];
	return written[trigger.webhookId!] ?? addressOf(trigger, resumeUrl);
}

const NO_CLOCK =
	'Remind Approvers and Escalate need an active Workplace Trigger in this workflow, with Signature Verification "Webhook Secret": its clock sends them. Add one and activate (publish) the workflow, or remove these options';

/** Said in a manual run that finds no clock: n8n 1.x starts those from the editor's copy of the workflow, without its static data. */
const NO_CLOCK_IN_MANUAL_RUN =
	'Reminders and escalation are not sent in this manual run: the workflow has no Workplace Trigger with Signature Verification "Webhook Secret". Production executions of the active workflow, with such a trigger, send them.';

/**
 * Hands the question to the trigger's clock before it is sent, so that no question waits without
 * its reminders: a refusal fails the item before anything is posted.
 */
export async function registerWithClock(ctx: IExecuteFunctions, itemIndex: number, schedule: Schedule, nonce: string, askedAt: number, secret: string): Promise<void> {
	const clockUrl = ctx.getSignedResumeUrl(clockQuery(nonce));
	const clock = findClock(ctx, clockUrl);
	if (!clock && ctx.getMode() === 'manual') {
		ctx.addExecutionHints?.({ message: NO_CLOCK_IN_MANUAL_RUN, type: 'warning', location: 'outputPane' });
		return;
	}
	if (!clock) throw new NodeOperationError(ctx.getNode(), NO_CLOCK, { itemIndex });
	const nextAt = firstActionAt(schedule, askedAt);
	const entry: ClockEntry = { url: clockUrl, step: 0, nextAt: nextAt === null ? null : new Date(nextAt).toISOString() };
	const body = ownMessageBody({ kind: 'register', entry });
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

/** The question's buttons again, with the escalation's answer codes (A, D): backup approvers count on these. */
function questionMessages(ctx: IWebhookFunctions, nonce: string): IDataObject[] {
	const question = { executionId: String(ctx.getExecutionId()), nodeId: ctx.getNode().id, nonce };
	const buttons = approvalButtons((ctx.getNodeParameter('approvalOptions.values', {}) as IDataObject) ?? {}).map(
		(button): SentButton => ({ ...button, data: signedAnswerToken((query) => ctx.getSignedResumeUrl(query), question, button.answer === 'a' ? 'A' : 'D') }),
	);
	return pushMessages({ title: textParameter(ctx, 'title'), text: textParameter(ctx, 'message'), buttons });
}

async function post(ctx: IWebhookFunctions, gid: string, tid: string, messages: IDataObject[]): Promise<string> {
	try {
		await botRequest(ctx, {
			method: 'POST',
			path: '/bot/v2/message/push',
			body: { gid, tid, messages },
			policy: { maxRateLimitRetries: 2, maxRetryWaitSeconds: 10, maxServerErrorRetries: 0, timeoutSeconds: CLOCK_POST_TIMEOUT_S },
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
function readTick(secret: string, body: unknown): { step: number; ballots: unknown[]; skipDue: boolean } | undefined {
	if (!isPlainObject(body) || typeof body.payload !== 'string') return undefined;
	if (checkSignature(secret, Buffer.from(body.payload, 'utf8'), body.signature) !== 'valid') return undefined;
	let tick: unknown;
	try {
		tick = JSON.parse(body.payload);
	} catch {
		return undefined;
	}
	if (!isPlainObject(tick) || typeof tick.step !== 'number' || !Array.isArray(tick.ballots)) return undefined;
	return { step: tick.step, ballots: tick.ballots, skipDue: tick.skipDue === true };
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
	const votes = ballotVotes(genuineOf(ctx, secret, question), tick.ballots.filter(isBallot));
	const counted = votes.filter((vote, index) => !hasVoted(votes.slice(0, index), vote.user));
	const done: string[] = [];
	// The last hand-over may have posted these already (its answer was lost): skipped, never posted twice.
	if (tick.skipDue) done.push(...due.map((action) => `${action.kind} skipped`));
	else for (const action of due) done.push(await perform(ctx, action, schedule, counted, nonce, askedAt));
	return respond(ctx, 200, { outcome: 'clock', step, nextAt: nextAt === null ? null : new Date(nextAt).toISOString(), message: done.join(', ') || 'nothing due' });
}
