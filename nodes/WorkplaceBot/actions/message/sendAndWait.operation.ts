/**
 * Message > Send and Wait for Response: sends one buttons message (from the first input item)
 * to a user's direct chat or a group thread, then puts the execution to wait until the node's
 * webhook (./sendAndWait/resumeWebhook.ts) gets the answer or the wait time runs out.
 *
 * Outputs after the wait (./sendAndWait/answerData.ts): approval `{data: {approved, responder,
 * respondedAt, messageId, groupId, threadId}}`, free text `{data: {text, …}}`, custom form
 * `{data: {<label>: value, …}}`; timed out: the input item with `data: {timedOut: true, messageId,
 * groupId, threadId}` (plus `approved: false` for an approval). n8n resumes a timed-out execution
 * by passing the waiting node's stack input through, so that input is replaced by the timed-out
 * item once the message was sent. It keeps the input's fields because the webhook evaluates the
 * node's parameters (the question of a form page, the allowed approvers) against that same stack
 * input, and its `data` keeps the question's message for the answer.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, SEND_AND_WAIT_OPERATION, updateDisplayOptions } from 'n8n-workflow';
import { randomBytes } from 'crypto';

import type { AnswerCode } from '../../../shared/approvals/tapProtocol';
import { MAX_ANSWER_TOKEN_LENGTH, signedAnswerToken } from '../../../shared/approvals/tapProtocol';
import { apiPath } from '../../../shared/transport/apiPath';
import { botRequest } from '../../../shared/transport/botApi';
import { invalidInput, nameField, requireString, violationsError } from '../../../shared/validation';
import { groupRecipient } from '../recipients';
import type { UserReference } from '../users';
import { readUser, resolveUser } from '../users';
import type { SentMessage } from './sendAndWait/answerData';
import { sentMessageOf } from './sendAndWait/answerData';
import type { ResponseType, SentButton } from './sendAndWait/body';
import { buttonSpecs, checkMessages, pushMessages, resumeUrlSigner } from './sendAndWait/body';
import { MAX_APPROVALS_REQUIRED, sendAndWaitFields } from './sendAndWait/description';
import { customFormFields } from './sendAndWait/form';
import { readWaitTill } from './sendAndWait/waitTill';
import { registerWithClock } from './sendAndWait/reminderPosts';
import type { Schedule } from './sendAndWait/schedule';
import { isScheduled, readSchedule } from './sendAndWait/schedule';
import { timedNonce } from '../../../shared/approvals/clockProtocol';
import { nodeParameter } from '../../../shared/parameters';

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: [SEND_AND_WAIT_OPERATION] } },
	sendAndWaitFields,
);

const RESPONSE_TYPES: readonly string[] = ['approval', 'freeText', 'customForm'];

/** The item the execution goes on with when the wait time ran out: the input's fields and `data` (with the question's message). */
export function timedOutItem(responseType: ResponseType, input: IDataObject = {}, message: SentMessage = {}): INodeExecutionData {
	const data: IDataObject = responseType === 'approval' ? { approved: false, timedOut: true, ...message } : { timedOut: true, ...message };
	return { json: { ...input, data }, pairedItem: { item: 0 } };
}

/**
 * The token a postback button carries: n8n's signature of this wait's resume URL for that answer.
 * Refused before anything is sent when it is longer than the platform is assumed to keep.
 */
function answerToken(ctx: IExecuteFunctions, itemIndex: number, nonce: string, answer: AnswerCode): string {
	const executionId = String(ctx.getExecutionId());
	const token = signedAnswerToken((query) => ctx.getSignedResumeUrl(query), { executionId, nodeId: ctx.getNode().id, nonce }, answer);
	if (token.length <= MAX_ANSWER_TOKEN_LENGTH) return token;
	throw new NodeOperationError(
		ctx.getNode(),
		`Answer In "Chat" needs an answer token of at most ${MAX_ANSWER_TOKEN_LENGTH} characters in each button's postback data, got ${token.length} (execution ID "${executionId}", ${executionId.length} characters; node ID "${ctx.getNode().id}"). Nothing was sent. Use Answer In "Link", or a node ID that is a UUID (n8n's default).`,
		{ itemIndex },
	);
}

type Recipient = UserReference | { gid: string; tid: string };

/** Who gets the message, read and checked before anything is sent. */
function readRecipient(ctx: IExecuteFunctions, itemIndex: number): Recipient {
	if (nodeParameter(ctx, 'sendTo', itemIndex, 'user') === 'group') {
		const { gid, tid = '' } = groupRecipient(ctx, itemIndex, { topic: true });
		return { gid, tid };
	}
	return readUser(ctx, itemIndex);
}

/** The thread to push to: a group's, or the user's direct chat with the bot (looked up, as is a username). */
async function thread(ctx: IExecuteFunctions, itemIndex: number, recipient: Recipient): Promise<{ gid: string; tid: string }> {
	if ('gid' in recipient) return recipient;
	const uid = await resolveUser(ctx, itemIndex, recipient);
	const { body } = await botRequest<IDataObject>(
		ctx,
		{ method: 'GET', path: apiPath`/bot/v2/groups/users/${uid}` },
		itemIndex,
	);
	return { gid: String(body?.gid ?? ''), tid: String(body?.tid ?? '') };
}

/**
 * Approvals Required, checked before anything is sent: a whole number within the limit that the
 * people who may answer can reach (Allowed Approvers, or the one recipient of a direct chat).
 */
function checkApprovalsRequired(ctx: IExecuteFunctions, itemIndex: number): void {
	const required = nodeParameter(ctx, 'approvalsRequired', itemIndex, 1) as unknown;
	if (typeof required !== 'number' || !Number.isInteger(required) || required < 1 || required > MAX_APPROVALS_REQUIRED) {
		throw invalidInput(ctx, itemIndex, 'Approvals Required', `must be a whole number from 1 to ${MAX_APPROVALS_REQUIRED}`, required);
	}
	if (required === 1) return;
	const approvers = String(nodeParameter(ctx, 'allowedApprovers', itemIndex, '') ?? '')
		.split(/[\s,]+/)
		.filter(Boolean);
	if (approvers.length > 0 && approvers.length < required) {
		throw invalidInput(ctx, itemIndex, 'Approvals Required', `must not exceed the ${approvers.length} Allowed Approvers`, required);
	}
	if (approvers.length === 0 && nodeParameter(ctx, 'sendTo', itemIndex, 'user') !== 'group') {
		throw invalidInput(ctx, itemIndex, 'Approvals Required', 'must be 1 in a direct chat without Allowed Approvers (only the recipient may answer)', required);
	}
}

/** Remind Approvers and Escalate, checked before anything is sent; undefined when neither is set. */
function readClockSchedule(ctx: IExecuteFunctions, itemIndex: number): Schedule | undefined {
	const schedule = readSchedule((nodeParameter(ctx, 'options', itemIndex, {}) as IDataObject) ?? {});
	if ('rule' in schedule) throw invalidInput(ctx, itemIndex, schedule.field, schedule.rule, schedule.actual);
	return isScheduled(schedule) ? schedule : undefined;
}

/** The secret of the node's Workplace Webhook API credential, which signs its registration with the trigger's clock. */
async function clockSecret(ctx: IExecuteFunctions, itemIndex: number): Promise<string> {
	const credential = await ctx.getCredentials<{ secret?: string }>('workplaceWebhookApi', itemIndex);
	if (typeof credential.secret === 'string' && credential.secret !== '') return credential.secret;
	throw new NodeOperationError(ctx.getNode(), 'Remind Approvers and Escalate need the webhook secret in the Workplace Webhook API credential: the trigger\'s clock only takes signed questions', { itemIndex });
}

/**
 * One message per execution: the first item sends and waits, the others add nothing. Output
 * while waiting: `{ gid, tid, results, waitTill }`.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	if (itemIndex > 0) return [];
	const responseType = nodeParameter(this, 'responseType', itemIndex, 'approval') as ResponseType;
	if (!RESPONSE_TYPES.includes(responseType)) {
		throw invalidInput(this, itemIndex, 'Response Type', 'must be "approval", "freeText" or "customForm"', responseType);
	}
	const recipient = readRecipient(this, itemIndex);
	const text = requireString(this, itemIndex, 'message', 'Message');
	const title = String(nodeParameter(this, 'title', itemIndex, '') ?? '').trim();
	const waitTill = readWaitTill(this, itemIndex);
	if (responseType === 'customForm') {
		const entries = nodeParameter(this, 'formFields.values', itemIndex, []);
		const { violations } = customFormFields(entries);
		if (violations.length > 0) {
			const names = { entries: { 'Form Fields': 'field' } };
			throw violationsError(this, itemIndex, violations, { name: (path) => nameField(undefined, path, names, { 'Form Fields': entries }) });
		}
	}

	const inChat = responseType === 'approval' && nodeParameter(this, 'answerIn', itemIndex, 'link') === 'chat';
	if (inChat && !this.getNode().credentials?.workplaceWebhookApi) {
		throw new NodeOperationError(
			this.getNode(),
			'Answer In is "Chat" but no Workplace Webhook API credential is selected: select the one holding the secret the platform signs the bot\'s webhook deliveries with (the Workplace Trigger\'s), so that answers can be verified',
			{ itemIndex },
		);
	}
	if (inChat) checkApprovalsRequired(this, itemIndex);
	const schedule = inChat ? readClockSchedule(this, itemIndex) : undefined;
	// With reminders the nonce carries the question's time (signed with it by n8n): the clock's actions count from it.
	const { nonce, askedAt } = schedule ? timedNonce(randomBytes(6).toString('base64url'), Date.now()) : { nonce: randomBytes(6).toString('base64url'), askedAt: Date.now() };
	// Also checks that n8n signs resume URLs (the tokens are made of its signatures).
	const sign = resumeUrlSigner(this, itemIndex, nonce);
	const buttons = buttonSpecs(this, itemIndex, responseType).map(
		(button): SentButton =>
			inChat && button.answer
				? { ...button, data: answerToken(this, itemIndex, nonce, button.answer) }
				: { ...button, linkUri: sign(button.query) },
	);
	const message = { title, text, buttons };
	const messages = pushMessages(message);
	checkMessages(this, itemIndex, message, messages);

	if (schedule) await registerWithClock(this, itemIndex, schedule, nonce, askedAt, await clockSecret(this, itemIndex));
	const { gid, tid } = await thread(this, itemIndex, recipient);
	const { body } = await botRequest<unknown>(
		this,
		{ method: 'POST', path: '/bot/v2/message/push', body: { gid, tid, messages } },
		itemIndex,
	);
	await this.putExecutionToWait(waitTill);
	const results = (Array.isArray(body) ? body : [body]) as IDataObject[];
	// The waiting execution keeps this stack item: the webhook reads the question's message from it.
	const executeData = this.getExecuteData();
	const input = this.getInputData()[0]?.json ?? {};
	executeData.data = { ...executeData.data, main: [[timedOutItem(responseType, input, sentMessageOf(results, gid, tid))]] };
	return [{ gid, tid, results, waitTill: waitTill.toISOString() }];
}
