import type { IDataObject, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { RememberEvents } from './dedupe';
import { claimEventKeys, learnDirectChats } from './dedupe';
import type { BotDelivery, Delivery, MalformedDelivery } from '../shared/delivery';
import { parseDelivery } from '../shared/delivery';
import type { SignatureCheck } from '../shared/signature';
import { checkSignature } from '../shared/signature';
import { PICTURE_TIMEOUT_SECONDS } from './description';
import { CLOCK_STOPPED_AFTER_MS, MAX_PICTURE_TIMEOUT_S, TAPS_START_WITHIN_MS } from '../shared/approvals/timing';
import { logTrigger, logTriggerOnce, webhookCredentialName } from './log';
import type { AnswerResult } from './approvals/handOn';
import { handleAnswer, isAnswerEvent } from './approvals/taps';
import type { BallotStore } from './approvals/votesStore';
import { writeBack } from './approvals/votesStore';
import { answerRecount } from './approvals/recounts';
import { answerClock } from './approvals/clockTicks';
import { mostOverdue } from './approvals/remindersStore';
import type { OwnMessage } from '../shared/approvals/ownMessages';
import { readOwnMessage } from '../shared/approvals/ownMessages';
import { answerWhenRunStarts } from './pacing';
import { processId } from '../shared/processMemory';
import { downloadWithinLimit, pictureError } from './picture';
import {
	hasWebhookCredential,
	MISSING_WEBHOOK_CREDENTIAL,
	signingSecret,
	UNREADABLE_WEBHOOK_CREDENTIAL,
} from './secret';
import {
	botEventKey,
	chatOf,
	isSelected,
	splitIds,
	userEventKey,
	userEventValue,
	withConversationKey,
} from './eventFields';

const RECENT_EVENTS_FIELD = 'recentEventKeys';

const MISSING_BOT_CREDENTIAL =
	'Download Images is on but no Workplace Bot credential is selected in the Workplace Trigger; select one under "Use Bot Credential", or turn Download Images off';
const DIRECT_CHATS_FIELD = 'directChatGroupIds';

interface TriggerOptions {
	resumeBaseUrl?: string;
	groupIds?: string;
	topicIds?: string;
	passEventsWithoutTopic?: boolean;
	directChatsOnly?: boolean;
	rememberEvents?: RememberEvents;
}

/** An event of the delivery that may start the run: its output, its duplicate key, its picture and the picture's name. */
interface Candidate {
	json: IDataObject;
	key: string;
	pictureId?: string;
	fileName?: unknown;
}

/** Received events are saved on every delivery unless "Remember Received Events" says Batched. */
const DEFAULT_REMEMBER_EVENTS: RememberEvents = 'everyDelivery';

/**
 * A delivery the platform should send again is answered 503 with this Retry-After (seconds): the
 * redelivery of an event whose first delivery is still being worked on (which may yet fail, and
 * then only a redelivery runs it), or of a tap that could not be handed to its waiting execution.
 */
const RETRY_AFTER_S = 10;

/** Answers a delivery that starts no run: 200 for one accepted but ignored, 4xx when refused, 5xx when misconfigured or busy. */
function reply(ctx: IWebhookFunctions, status: number, message: string): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(status < 300 ? { received: 0, message } : { message });
	return { noWebhookResponse: true };
}

/** 503 with Retry-After: the platform is asked to send the delivery again. */
function askAgainLater(ctx: IWebhookFunctions, message: string): IWebhookResponseData {
	ctx.getResponseObject().setHeader('Retry-After', String(RETRY_AFTER_S));
	return reply(ctx, 503, message);
}

/** Where a production trigger remembers received events (not in test mode, where each delivery is listened for on purpose). */
interface Dedupe {
	scope: string;
	staticData: IDataObject;
	rememberEvents: RememberEvents;
}

/**
 * Hands each new tap to its waiting execution. A tap that could not be handed on is forgotten, so
 * its redelivery is handed on; one still being handed on makes the delivery 'inProgress'.
 */
async function handTapsOn(
	ctx: IWebhookFunctions,
	taps: Array<{ event: IDataObject; index: number }>,
	body: Buffer,
	signature: string,
	resumeBaseUrl: unknown,
	dedupe: Dedupe | undefined,
	store: BallotStore,
): Promise<AnswerResult[] | 'inProgress'> {
	const keys = taps.map((tap) => botEventKey(tap.event));
	const claim = dedupe && claimEventKeys(dedupe.scope, dedupe.staticData, RECENT_EVENTS_FIELD, keys, dedupe.rememberEvents);
	const fresh = claim ? taps.filter((_, i) => claim.fresh[i]) : taps;
	if (claim && !fresh.length && claim.inProgress) return 'inProgress';
	await claim?.settle();
	const results: AnswerResult[] = [];
	const ballot = { delivery: body.toString('base64'), signature };
	const arrivedAt = Date.now();
	// In the delivery's order: a later tap on the same question counts the earlier ones of its delivery.
	for (const { event, index } of fresh) {
		// A delivery of many taps ends in time (LONGEST_DELIVERY_MS): the rest come again.
		if (Date.now() - arrivedAt > TAPS_START_WITHIN_MS) results.push({ outcome: 'failed' });
		else results.push(await handleAnswer(ctx, event, { ...ballot, event: index }, resumeBaseUrl, store));
	}
	claim?.release(fresh.filter((_, i) => results[i].outcome === 'failed').map((tap) => botEventKey(tap.event)));
	claim?.answered();
	return results;
}

/** The events of a bot delivery that are selected and pass the group, topic and direct-chat filters, each with its conversation key. */
function selectBotEvents(
	delivery: BotDelivery,
	selected: string[],
	options: TriggerOptions,
	knownDirectChats: Set<string>,
): Candidate[] {
	const candidates: Candidate[] = [];
	const groupIds = splitIds(options.groupIds);
	const topicIds = splitIds(options.topicIds);
	for (const event of delivery.events) {
		if (!isSelected(selected, String(event.type))) continue;
		const chat = chatOf(event);
		if (groupIds.length && !(chat.groupId && groupIds.includes(chat.groupId))) continue;
		if (topicIds.length && !(chat.topicId ? topicIds.includes(chat.topicId) : options.passEventsWithoutTopic)) {
			continue;
		}
		if (options.directChatsOnly) {
			const source = (event.source ?? {}) as IDataObject;
			const direct =
				source.type === 'direct_chat' || (chat.groupId !== undefined && knownDirectChats.has(chat.groupId));
			if (!direct) continue;
		}
		const message = (event.message ?? {}) as IDataObject;
		const pictureId =
			event.type === 'message' && typeof message.pictureId === 'string' && message.pictureId !== ''
				? message.pictureId
				: undefined;
		candidates.push({ json: withConversationKey(event, knownDirectChats), key: botEventKey(event), pictureId, fileName: message.fileName });
	}
	return candidates;
}

/** Puts the picture of each message event carrying one into the items; `release` forgets the events on failure. */
async function attachPictures(
	ctx: IWebhookFunctions,
	fresh: Candidate[],
	items: INodeExecutionData[],
	release: () => void,
): Promise<void> {
	const size = ctx.getNodeParameter('imageSize', 'medium') as string;
	const property = ctx.getNodeParameter('binaryPropertyName', 'data') as string;
	// The platform waits for the answer meanwhile: the delivery's pictures, retries included, within this limit.
	const timeoutSeconds = Math.min(ctx.getNodeParameter('imageTimeout', PICTURE_TIMEOUT_SECONDS) as number, MAX_PICTURE_TIMEOUT_S);
	const deadline = Date.now() + timeoutSeconds * 1000;
	for (const [i, candidate] of fresh.entries()) {
		if (!candidate.pictureId) continue;
		const names = { fileName: candidate.fileName, fallbackFileName: candidate.pictureId };
		const got = await downloadWithinLimit(ctx, candidate.pictureId, size, names, Math.max(1, deadline - Date.now()));
		if ('binary' in got) {
			items[i].binary = { [property]: got.binary };
			continue;
		}
		// No run starts: forget the events so a redelivery can start one.
		release();
		const { reason, failure } = pictureError(ctx, got, timeoutSeconds);
		logTrigger(
			ctx,
			'warn',
			`a delivery was answered 500 and started no run (a redelivery of the event runs) because the picture of a message event could not be downloaded: ${reason}`,
		);
		throw failure;
	}
}

/**
 * The content types n8n's webhook server parses (and so reads the raw body of) for a node of a
 * version above 1 (`parseRequestBody` in n8n's webhook-helpers); other bodies are left to the node.
 */
function n8nParsesBodyOf(contentType: unknown): boolean {
	const type = typeof contentType === 'string' ? contentType.toLowerCase() : '';
	return ['application/json', 'text/plain', 'application/x-www-form-urlencoded'].some((t) => type.startsWith(t)) || /[/+]xml\b/.test(type);
}

/**
 * The delivery's bytes as they came, for its signature: n8n reads them into `req.rawBody` before
 * it calls webhook() (its body parser, for the content types it parses). Where it has not, they are
 * read here with the request's `readRawBody()` (n8n's, declared on the request by n8n-workflow); for
 * a content type n8n parses the admin is told once; undefined when there are none to read (the
 * delivery is then refused).
 */
async function rawBodyOf(ctx: IWebhookFunctions): Promise<Buffer | undefined> {
	const req = ctx.getRequestObject();
	const given: unknown = req.rawBody;
	if (Buffer.isBuffer(given)) return given;
	const reader: unknown = req.readRawBody;
	let failure = 'the request has no readRawBody() either';
	if (typeof reader === 'function') {
		try {
			await req.readRawBody();
			const read: unknown = req.rawBody;
			if (Buffer.isBuffer(read)) {
				if (!n8nParsesBodyOf(req.headers['content-type'])) return read;
				logTriggerOnce(
					ctx,
					'rawBody',
					'n8n had not read the raw body of a delivery (req.rawBody) before calling the trigger; the trigger read it itself with req.readRawBody() to check its signature, and goes on doing so. Nothing is lost.',
				);
				return read;
			}
			failure = 'req.readRawBody() left no raw body';
		} catch (error) {
			failure = `req.readRawBody() failed: ${(error as Error).message}`;
		}
	}
	logTriggerOnce(
		ctx,
		'rawBody',
		`n8n gave the trigger no raw body of a delivery (req.rawBody) and ${failure}, so no signature can be checked: deliveries are answered 401 (or 400 without Signature Verification) and start no run. Report it with your n8n version.`,
	);
	return undefined;
}

/** Step 1: the delivery's signature, before anything is read from its body; the refusal, or undefined when it holds. */
export async function verifySignature(ctx: IWebhookFunctions, body: Buffer | undefined, signature: unknown): Promise<IWebhookResponseData | undefined> {
	if (ctx.getNodeParameter('verification', 'secret') !== 'secret') return undefined;
	// Activation refuses a trigger without the credential; one saved before that check
	// (or whose credential was deleted) is answered here rather than with n8n's internal error.
	if (!hasWebhookCredential(ctx)) {
		logTrigger(ctx, 'error', `a delivery was answered 500: ${MISSING_WEBHOOK_CREDENTIAL}`);
		return reply(ctx, 500, MISSING_WEBHOOK_CREDENTIAL);
	}
	let secret: string | undefined;
	try {
		// Held for up to a second, also after a failed check: a forged delivery costs no read.
		secret = await signingSecret(ctx);
	} catch (error) {
		// n8n's reason (e.g. a deleted credential, or one encrypted with another key) names no value.
		logTrigger(
			ctx,
			'error',
			`a delivery was answered 500: the Workplace Webhook API credential ${webhookCredentialName(ctx)} cannot be read (${(error as Error).message}), so no delivery can be verified. Select the credential holding the secret configured on the platform, or set Signature Verification to "None".`,
		);
		return reply(ctx, 500, UNREADABLE_WEBHOOK_CREDENTIAL);
	}
	if (!secret) {
		logTrigger(
			ctx,
			'warn',
			`a delivery was answered 401: the secret of the Workplace Webhook API credential ${webhookCredentialName(ctx)} is empty, so no delivery can be verified. Enter the secret configured for the webhook on the platform.`,
		);
		return reply(ctx, 401, 'The webhook secret of this trigger is empty; no delivery can be verified');
	}
	const check: SignatureCheck = body ? checkSignature(secret, body, signature) : signature ? 'invalid' : 'missing';
	if (check === 'missing') return reply(ctx, 401, 'Missing X-Service-Signature header');
	if (check === 'invalid') return reply(ctx, 401, 'Invalid X-Service-Signature');
	return undefined;
}

/** What one delivery works with besides its body: the trigger's options, where it remembers things, whether it is a production call. */
export interface Receipt {
	options: TriggerOptions;
	staticData: IDataObject;
	scope: string;
	production: boolean;
	/** Counted in-chat votes (approvals/votesStore.ts), kept in production only. */
	ballots: BallotStore;
}

function receiptOf(ctx: IWebhookFunctions): Receipt {
	const node = ctx.getNode();
	const staticData = ctx.getWorkflowStaticData('node');
	const scope = `${ctx.getWorkflow().id ?? ''}:${node.id ?? node.name}`;
	const production = ctx.getMode() !== 'manual';
	return {
		options: ctx.getNodeParameter('options', {}) as TriggerOptions,
		staticData,
		scope,
		production,
		ballots: { scope, staticData: production ? staticData : undefined },
	};
}

/**
 * Step 3: in-chat answers to Send and Wait go to their waiting executions, whatever the Events and
 * filters; they leave the delivery. The results, or the answer asking the platform to send it again.
 */
async function handOnAnswers(ctx: IWebhookFunctions, delivery: BotDelivery, body: Buffer, signature: string, receipt: Receipt): Promise<AnswerResult[] | IWebhookResponseData> {
	if (!delivery.events.some(isAnswerEvent)) return [];
	// Each tap with its place among the delivery's events as the platform signed them.
	const taps = delivery.events.map((event, index) => ({ event, index })).filter(({ event }) => isAnswerEvent(event));
	delivery.events = delivery.events.filter((event) => !isAnswerEvent(event));
	const { scope, staticData, production, options } = receipt;
	const dedupe = production ? { scope, staticData, rememberEvents: options.rememberEvents ?? DEFAULT_REMEMBER_EVENTS } : undefined;
	const handed = await handTapsOn(ctx, taps, body, signature, options.resumeBaseUrl, dedupe, receipt.ballots);
	if (handed === 'inProgress') return askAgainLater(ctx, 'The first delivery of this tap is still being handed on; retry later');
	if (handed.some((a) => a.outcome === 'failed')) {
		// Nothing else of the delivery is claimed yet: its redelivery brings the tap and any event again.
		return askAgainLater(ctx, 'An in-chat answer could not be handed to its waiting execution; send the delivery again');
	}
	return handed;
}

/** Step 4: the selected events that pass the filters, as items to be. */
export function selectEvents(ctx: IWebhookFunctions, delivery: Exclude<Delivery, MalformedDelivery>, body: Buffer, receipt: Receipt): Candidate[] {
	const selected = ctx.getNodeParameter('events', []) as string[];
	if (delivery.kind === 'unknown') return [];
	if (delivery.kind === 'user') {
		return isSelected(selected, userEventValue(delivery.action)) ? [{ json: delivery.body, key: userEventKey(delivery, body) }] : [];
	}
	// The direct chats join events named: the Direct Chats Only filter, and the conversation key of
	// their messages (eventFields.ts, conversationKeyOf).
	const joined = delivery.events
		.filter((e) => e.type === 'join')
		.map((e) => chatOf(e).groupId)
		.filter((g): g is string => Boolean(g));
	const knownDirectChats = learnDirectChats(receipt.scope, receipt.staticData, DIRECT_CHATS_FIELD, joined);
	return selectBotEvents(delivery, selected, receipt.options, knownDirectChats);
}

/** The events not received before, and what to do with their keys as the delivery goes on. */
export interface Fresh {
	fresh: Candidate[];
	/** Forgets the keys (no run started: a redelivery may start one). */
	release: () => void;
	/** The platform got its answer: the keys may be written in a batch. */
	answered: () => void;
	/** Writes the keys into the static data n8n saves after the answer. */
	settle: () => Promise<void>;
}

/**
 * Step 5: duplicates. A redelivered event starts no second run (not in test mode, where each
 * delivery is listened for on purpose). The fresh events, else a delivery with none: the answer
 * asking for it again, or `repeated` (answered 200 once the stored copy is written again).
 * Synchronous on purpose: the keys are written before another delivery claims its own
 * (dedupe.ts, "Batched").
 */
export function deduplicate(ctx: IWebhookFunctions, candidates: Candidate[], receipt: Receipt): Fresh | { repeated: Fresh['settle'] } | IWebhookResponseData {
	if (!receipt.production) return { fresh: candidates, release: () => {}, answered: () => {}, settle: async () => {} };
	const rememberEvents = receipt.options.rememberEvents ?? DEFAULT_REMEMBER_EVENTS;
	const claim = claimEventKeys(receipt.scope, receipt.staticData, RECENT_EVENTS_FIELD, candidates.map((c) => c.key), rememberEvents);
	const fresh = candidates.filter((_, i) => claim.fresh[i]);
	if (!fresh.length && claim.inProgress) return askAgainLater(ctx, 'The first delivery of this event is still being received; retry later');
	// The stored copy may lack keys this process holds: it is written again.
	if (!fresh.length) return { repeated: claim.settle };
	return { fresh, release: claim.release, answered: claim.answered, settle: claim.settle };
}

/**
 * Steps 7 and 8: the run starts with the items and the platform gets its answer. The answer is
 * the node's (noWebhookResponse), so n8n saves the static data before it starts the run: on n8n 2,
 * an answer left to n8n comes after the run is started, and starting it re-wraps the same static
 * data object, which clears n8n's "changed" flag, so the keys were never saved. Where runs cost an
 * isolate the answer waits for the run (pacing.ts).
 */
async function startRun(ctx: IWebhookFunctions, items: INodeExecutionData[], keys: Fresh, production: boolean): Promise<IWebhookResponseData> {
	await keys.settle();
	const answer = () => {
		keys.answered();
		ctx.getResponseObject().status(200).json({ received: items.length });
	};
	if (production) answerWhenRunStarts(ctx, items, answer);
	else answer();
	return { noWebhookResponse: true, workflowData: [items] };
}

/**
 * n8n runs the trigger's clock (trigger()) for an active workflow: an action stored for long past
 * its time says it does not (reliance 12), once per process.
 */
function warnIfClockStopped(ctx: IWebhookFunctions, staticData: IDataObject): void {
	const late = mostOverdue(staticData);
	if (late < CLOCK_STOPPED_AFTER_MS) return;
	logTriggerOnce(ctx, 'triggerClock', `a reminder of an in-chat approval is ${Math.round(late / 60_000)} minutes overdue: n8n does not run this trigger's clock (trigger()), or its ticks do not reach the waiting executions (see the warnings before). Reminders and escalation wait until a tick gets through; deactivate and activate the workflow.`);
}

/** A message to the trigger's clock (clockTicks.ts), answered with how many questions still wait and when the next tick is due. */
async function answerClockMessage(ctx: IWebhookFunctions, message: Exclude<OwnMessage, { kind: 'recount' }>, receipt: Receipt): Promise<IWebhookResponseData> {
	const where = { scope: receipt.scope, staticData: receipt.staticData, ballots: receipt.ballots, resumeBaseUrl: receipt.options.resumeBaseUrl };
	const { text, waiting, nextDueAt } = await answerClock(ctx, message, where);
	ctx.getResponseObject().status(200).json({ received: 0, message: `Clock of reminders: ${text}`, waiting, nextDueAt: nextDueAt ?? null, answeredBy: processId() });
	return { noWebhookResponse: true };
}

/**
 * One delivery posted to the trigger's URL, in the order its request meets the steps: verify
 * the signature, parse, hand in-chat answers on (and recounts of their votes), select the events,
 * drop duplicates, attach pictures, start the run and answer the platform.
 */
export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const headers = this.getHeaderData();
	const body = await rawBodyOf(this);
	const refused = await verifySignature(this, body, headers['x-service-signature']);
	if (refused) return refused;

	// 2. Parse. Counted in-chat votes this process holds are written back when a request starts and
	// when it ends (approvals/votesStore.ts): n8n saves the copy of the end, however long the request took.
	if (!body || body.length === 0) return reply(this, 400, 'Expected a JSON body');
	const receipt = receiptOf(this);
	writeBack(receipt.ballots);
	try {
		return await answerDelivery(this, body, headers, receipt);
	} finally {
		writeBack(receipt.ballots);
	}
}

/** Steps 2 to 8 of a verified delivery (receiveDelivery). */
async function answerDelivery(ctx: IWebhookFunctions, body: Buffer, headers: IDataObject, receipt: Receipt): Promise<IWebhookResponseData> {
	if (receipt.production) warnIfClockStopped(ctx, receipt.staticData);
	// The trigger's own messages (ownMessages.ts), signed like deliveries: recounts, and in production the clock's.
	const own = ctx.getNodeParameter('verification', 'secret') === 'secret' ? readOwnMessage(body) : undefined;
	if (own?.kind === 'recount') return reply(ctx, 200, `Recount of in-chat votes: ${await answerRecount(ctx, own.recount, receipt.ballots, receipt.options.resumeBaseUrl)}`);
	if (own && receipt.production) return await answerClockMessage(ctx, own, receipt);
	const delivery = parseDelivery(body, headers['x-service-event']);
	if (delivery.kind === 'malformed') return reply(ctx, 400, `Malformed delivery: ${delivery.reason}`);

	const answers = delivery.kind === 'bot' ? await handOnAnswers(ctx, delivery, body, String(headers['x-service-signature'] ?? ''), receipt) : [];
	if (!Array.isArray(answers)) return answers;
	const candidates = selectEvents(ctx, delivery, body, receipt);
	if (!candidates.length) {
		if (!answers.length) return reply(ctx, 200, 'No selected event in this delivery; no run started');
		return reply(ctx, 200, `In-chat answers handed to their waiting executions (${answers.map((a) => a.outcome).join(', ')}); no run started`);
	}
	const keys = deduplicate(ctx, candidates, receipt);
	if ('repeated' in keys) {
		const repeated = reply(ctx, 200, 'Already received; no run started');
		await keys.repeated();
		return repeated;
	}
	if (!('fresh' in keys)) return keys;

	// 6. Pictures.
	const items: INodeExecutionData[] = keys.fresh.map((c) => ({ json: c.json }));
	if (ctx.getNodeParameter('downloadImages', false) && keys.fresh.some((c) => c.pictureId)) {
		if (!ctx.getNode().credentials?.workplaceBotOAuth2Api) {
			keys.release();
			logTrigger(ctx, 'error', `a delivery was answered 500: ${MISSING_BOT_CREDENTIAL}`);
			return reply(ctx, 500, MISSING_BOT_CREDENTIAL);
		}
		await attachPictures(ctx, keys.fresh, items, keys.release);
	}
	return await startRun(ctx, items, keys, receipt.production);
}
