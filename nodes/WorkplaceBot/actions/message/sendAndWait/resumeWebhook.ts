/**
 * The node's webhook for Send and Wait for Response (GET and POST under n8n's resume URL of the
 * waiting execution). In order:
 * 1. link-preview and crawler user agents get a small page and resume nothing;
 * 2. the `signature` of the URL must be the one n8n's getSignedResumeUrl gives for this
 *    execution, node and query (n8n checks it too on 1.107+ when asked, and always on 2.x);
 * 3. an answer already recorded for this message (in this process) gets a page and resumes nothing;
 * 4. approval: resumes with `{data: {approved, responder: {source: 'link'}, respondedAt,
 *    messageId, groupId, threadId}}` (a link tells nobody's identity); free text and custom form:
 *    GET serves the form, POST checks the answers (the form again with the problems, or resume
 *    with them, `responder`, `respondedAt` and the message added).
 * In-chat answers (`via=chat` in the URL) come from the Workplace Trigger: ./chatAnswer.ts.
 * It answers every request itself (noWebhookResponse) and returns workflowData only to resume.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { timingSafeEqual } from 'crypto';

import { processMap } from '../../../../shared/processMemory';
import { answerData, textParameter, waitingMessage } from './answerData';
import type { ResponseType } from './body';
import { NONCE_PARAM } from './body';
import { chatAnswerWebhook, webhookSecret } from './chatAnswer';
import { clockWebhook } from './reminderPosts';
import { DEFAULT_LABELS } from './description';
import type { FormField } from './form';
import { FREE_TEXT_FIELDS, customFormFields, readAnswers } from './form';
import { PAGE_HEADERS, PAGES, formPage } from './pages';

/**
 * Link previews and crawlers (Slack, Facebook, Twitter/X, WhatsApp, Telegram, LinkedIn, Discord,
 * and any agent calling itself a bot, crawler, spider or preview; "Cubot" is a phone brand).
 */
const PREVIEW_AGENT =
	/slackbot|slack-imgproxy|facebookexternalhit|facebookcatalog|twitterbot|whatsapp|telegrambot|linkedinbot|discordbot|embedly|(?<!cu)bot\b|bot\/|crawler|spider|preview/i;

export function isPreviewAgent(userAgent: string): boolean {
	return PREVIEW_AGENT.test(userAgent);
}

const MAX_CLAIMS = 10_000;
const answered = processMap<string, number>();

/** Whether the answer of one message (execution, node, nonce) was recorded in this process. */
function isAnswered(key: string): boolean {
	return answered.has(key);
}

/** Records the answer of one message; false when it was already recorded in this process. */
export function claimAnswer(key: string): boolean {
	if (isAnswered(key)) return false;
	answered.set(key, Date.now());
	if (answered.size > MAX_CLAIMS) answered.delete(answered.keys().next().value as string);
	return true;
}

function send(ctx: IWebhookFunctions, status: number, html: string): void {
	const res = ctx.getResponseObject();
	for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
	res.status(status).send(html);
}

function answer(ctx: IWebhookFunctions, status: number, html: string): IWebhookResponseData {
	send(ctx, status, html);
	return { noWebhookResponse: true };
}

function stringQuery(ctx: IWebhookFunctions): Record<string, string> | undefined {
	const query = ctx.getQueryData() as Record<string, unknown>;
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(query)) {
		if (typeof value !== 'string') return undefined;
		out[key] = value;
	}
	return out;
}

/** Whether the URL's signature is the one n8n gives this execution, node and query. */
export function hasValidSignature(ctx: IWebhookFunctions, query: Record<string, string>): boolean {
	const provided = query.signature;
	if (typeof ctx.getSignedResumeUrl !== 'function' || !/^[0-9a-f]{64}$/.test(provided ?? '')) return false;
	const rest = Object.fromEntries(Object.entries(query).filter(([key]) => key !== 'signature'));
	let expected: string | null;
	try {
		expected = new URL(ctx.getSignedResumeUrl(rest)).searchParams.get('signature');
	} catch {
		return false;
	}
	if (expected === null || expected.length !== provided.length) return false;
	return timingSafeEqual(Buffer.from(provided), Buffer.from(expected));
}

function formFields(ctx: IWebhookFunctions, responseType: ResponseType): FormField[] {
	if (responseType === 'freeText') return FREE_TEXT_FIELDS;
	return customFormFields(ctx.getNodeParameter('formFields.values', []) as unknown).fields;
}

/** Resumes with a link's answer: who answered is not known, only that it came by link, and when. */
function resume(ctx: IWebhookFunctions, key: string, values: IDataObject): IWebhookResponseData {
	if (!claimAnswer(key)) return answer(ctx, 200, PAGES.alreadyRecorded());
	const data = answerData(values, { source: 'link' }, new Date().toISOString(), waitingMessage(ctx));
	send(ctx, 200, PAGES.recorded());
	return { noWebhookResponse: true, workflowData: [[{ json: { data }, pairedItem: { item: 0 } }]] };
}

export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const headers = this.getHeaderData();
	const userAgent = String(headers['user-agent'] ?? '');
	if (isPreviewAgent(userAgent)) return answer(this, 200, PAGES.preview());

	const query = stringQuery(this);
	if (query === undefined || !hasValidSignature(this, query)) return answer(this, 401, PAGES.invalidLink());

	const key = `${this.getExecutionId()}:${this.getNode().id}:${query[NONCE_PARAM] ?? ''}`;
	const responseType = this.getNodeParameter('responseType', 'approval') as ResponseType;
	if (query.via === 'clock') {
		// Only the Workplace Trigger's clock posts here (reminders and escalation, ./clock.ts).
		if (responseType !== 'approval' || this.getRequestObject().method !== 'POST') return answer(this, 401, PAGES.invalidLink());
		return await clockWebhook(this, query, await webhookSecret(this), isAnswered);
	}
	if (query.via === 'chat') {
		// Only the Workplace Trigger posts here; a person who opens such a URL gets the invalid-link page.
		if (responseType !== 'approval' || this.getRequestObject().method !== 'POST') return answer(this, 401, PAGES.invalidLink());
		return await chatAnswerWebhook(this, query, { isAnswered, claimAnswer });
	}
	if (responseType === 'approval') {
		if (query.approved !== 'true' && query.approved !== 'false') return answer(this, 401, PAGES.invalidLink());
		return resume(this, key, { approved: query.approved === 'true' });
	}

	const fields = formFields(this, responseType);
	const options = (this.getNodeParameter('options', {}) as IDataObject) ?? {};
	const pageOptions = {
		title: String(options.responseFormTitle ?? '').trim() || textParameter(this, 'title'),
		description: String(options.responseFormDescription ?? '').trim() || textParameter(this, 'message'),
		buttonLabel: String(options.responseFormButtonLabel ?? '').trim() || DEFAULT_LABELS.submit,
		fields,
	};
	const method = this.getRequestObject().method;
	if (method !== 'POST') {
		if (isAnswered(key)) return answer(this, 200, PAGES.alreadyRecorded());
		return answer(this, 200, formPage(pageOptions));
	}
	const { values, texts, errors } = readAnswers(fields, this.getBodyData());
	if (errors.some((error) => error !== undefined)) {
		return answer(this, 400, formPage({ ...pageOptions, texts, errors }));
	}
	return resume(this, key, values);
}
