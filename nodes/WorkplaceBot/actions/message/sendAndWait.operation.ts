/**
 * Message > Send and Wait for Response: sends one buttons message (from the first input item)
 * to a user's direct chat or a group thread, then puts the execution to wait until the node's
 * webhook (./sendAndWait/webhook.ts) gets the answer or the wait time runs out.
 *
 * Outputs after the wait: approval `{data: {approved}}`, free text `{data: {text}}`, custom form
 * `{data: {<label>: value}}`; timed out `{data: {timedOut: true}}` (plus `approved: false` for
 * an approval). n8n resumes a timed-out execution by passing the waiting node's stack input
 * through, so that input is replaced by the timed-out item once the message was sent.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION, updateDisplayOptions } from 'n8n-workflow';
import { randomBytes } from 'crypto';

import { apiPath } from '../../../shared/transport/apiPath';
import { botRequest } from '../../../shared/transport/botApi';
import { invalidInput, nameField, requireString, violationsError } from '../../../shared/validation';
import { groupRecipient } from '../recipients';
import type { UserReference } from '../users';
import { readUser, resolveUser } from '../users';
import type { ResponseType } from './sendAndWait/body';
import { buttonSpecs, checkMessages, pushMessages, resumeUrlSigner } from './sendAndWait/body';
import { sendAndWaitFields } from './sendAndWait/description';
import { customFormFields } from './sendAndWait/form';
import { readWaitTill } from './sendAndWait/waitTill';

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: [SEND_AND_WAIT_OPERATION] } },
	sendAndWaitFields,
);

const RESPONSE_TYPES: readonly string[] = ['approval', 'freeText', 'customForm'];

/** The item the execution goes on with when the wait time ran out. */
export function timedOutItem(responseType: ResponseType): INodeExecutionData {
	const data: IDataObject = responseType === 'approval' ? { approved: false, timedOut: true } : { timedOut: true };
	return { json: { data }, pairedItem: { item: 0 } };
}

type Recipient = UserReference | { gid: string; tid: string };

/** Who gets the message, read and checked before anything is sent. */
function readRecipient(ctx: IExecuteFunctions, itemIndex: number): Recipient {
	if (ctx.getNodeParameter('sendTo', itemIndex, 'user') === 'group') {
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
 * One message per execution: the first item sends and waits, the others add nothing. Output
 * while waiting: `{ gid, tid, results, waitTill }`.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	if (itemIndex > 0) return [];
	const responseType = this.getNodeParameter('responseType', itemIndex, 'approval') as ResponseType;
	if (!RESPONSE_TYPES.includes(responseType)) {
		throw invalidInput(this, itemIndex, 'Response Type', 'must be "approval", "freeText" or "customForm"', responseType);
	}
	const recipient = readRecipient(this, itemIndex);
	const text = requireString(this, itemIndex, 'message', 'Message');
	const title = String(this.getNodeParameter('title', itemIndex, '') ?? '').trim();
	const waitTill = readWaitTill(this, itemIndex);
	if (responseType === 'customForm') {
		const entries = this.getNodeParameter('formFields.values', itemIndex, []);
		const { violations } = customFormFields(entries);
		if (violations.length > 0) {
			const names = { entries: { 'Form Fields': 'field' } };
			throw violationsError(this, itemIndex, violations, { name: (path) => nameField(undefined, path, names, { 'Form Fields': entries }) });
		}
	}

	const sign = resumeUrlSigner(this, itemIndex, randomBytes(8).toString('hex'));
	const message = {
		title,
		text,
		buttons: buttonSpecs(this, itemIndex, responseType).map((button) => ({ ...button, linkUri: sign(button.query) })),
	};
	const messages = pushMessages(message);
	checkMessages(this, itemIndex, message, messages);

	const { gid, tid } = await thread(this, itemIndex, recipient);
	const { body } = await botRequest<unknown>(
		this,
		{ method: 'POST', path: '/bot/v2/message/push', body: { gid, tid, messages } },
		itemIndex,
	);
	await this.putExecutionToWait(waitTill);
	const executeData = this.getExecuteData();
	executeData.data = { ...executeData.data, main: [[timedOutItem(responseType)]] };
	const results = (Array.isArray(body) ? body : [body]) as IDataObject[];
	return [{ gid, tid, results, waitTill: waitTill.toISOString() }];
}
