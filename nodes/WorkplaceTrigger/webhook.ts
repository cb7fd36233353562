import type { IDataObject, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { RememberEvents } from './dedupe';
import { claimEventKeys, learnDirectChats } from './dedupe';
import type { BotDelivery } from '../shared/delivery';
import { parseDelivery } from '../shared/delivery';
import type { SignatureCheck } from '../shared/signature';
import { checkSignature } from '../shared/signature';
import { PICTURE_TIMEOUT_SECONDS } from './description';
import { logTrigger, logTriggerOnce, webhookCredentialName } from './log';
import type { AnswerResult } from './answers';
import { handleAnswer, isAnswerEvent } from './answers';
import type { BallotStore } from './ballots';
import { writeBack } from './ballots';
import { answerRecount } from './recount';
import { readRecount } from './recheck';
import { answerWhenRunStarts } from './pacing';
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
} from './delivery';

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
	taps: IDataObject[],
	body: Buffer,
	signature: string,
	resumeBaseUrl: unknown,
	dedupe: Dedupe | undefined,
	store: BallotStore,
): Promise<AnswerResult[] | 'inProgress'> {
	const keys = taps.map(botEventKey);
	const claim = dedupe && claimEventKeys(dedupe.scope, dedupe.staticData, RECENT_EVENTS_FIELD, keys, dedupe.rememberEvents);
	const fresh = claim ? taps.filter((_, i) => claim.fresh[i]) : taps;
	if (claim && !fresh.length && claim.inProgress) return 'inProgress';
	await claim?.settle();
	const results: AnswerResult[] = [];
	const tap = { delivery: body.toString('base64'), signature };
	for (const event of fresh) results.push(await handleAnswer(ctx, event, tap, resumeBaseUrl, store));
	claim?.release(fresh.filter((_, i) => results[i].outcome === 'failed').map(botEventKey));
	claim?.answered();
	return results;
}

/** The events of a bot delivery that are selected and pass the group, topic and direct-chat filters. */
function selectBotEvents(
	delivery: BotDelivery,
	selected: string[],
	options: TriggerOptions,
	directChats: Set<string> | undefined,
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
		if (directChats) {
			const source = (event.source ?? {}) as IDataObject;
			const direct =
				source.type === 'direct_chat' || (chat.groupId !== undefined && directChats.has(chat.groupId));
			if (!direct) continue;
		}
		const message = (event.message ?? {}) as IDataObject;
		const pictureId =
			event.type === 'message' && typeof message.pictureId === 'string' && message.pictureId !== ''
				? message.pictureId
				: undefined;
		candidates.push({ json: event, key: botEventKey(event), pictureId, fileName: message.fileName });
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
	// The platform waits for the answer meanwhile: each picture, retries included, within this limit.
	const timeoutSeconds = ctx.getNodeParameter('imageTimeout', PICTURE_TIMEOUT_SECONDS) as number;
	for (const [i, candidate] of fresh.entries()) {
		if (!candidate.pictureId) continue;
		const names = { fileName: candidate.fileName, fallbackFileName: candidate.pictureId };
		const got = await downloadWithinLimit(ctx, candidate.pictureId, size, names, timeoutSeconds * 1000);
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

/**
 * One delivery posted to the trigger's URL: signature, shape, selected events and filters,
 * duplicates, pictures; answers it and hands the items to the run.
 */
export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const headers = this.getHeaderData();
	const body = await rawBodyOf(this);

	// 1. Signature, before anything is read from the body.
	if (this.getNodeParameter('verification', 'secret') === 'secret') {
		const verify = (secret: string) =>
			body
				? checkSignature(secret, body, headers['x-service-signature'])
				: headers['x-service-signature']
					? 'invalid'
					: 'missing';
		// Activation refuses a trigger without the credential; one saved before that check
		// (or whose credential was deleted) is answered here rather than with n8n's internal error.
		if (!hasWebhookCredential(this)) {
			logTrigger(this, 'error', `a delivery was answered 500: ${MISSING_WEBHOOK_CREDENTIAL}`);
			return reply(this, 500, MISSING_WEBHOOK_CREDENTIAL);
		}
		let secret: string | undefined;
		let check: SignatureCheck;
		try {
			// Held for up to a second, also after a failed check: a forged delivery costs no read.
			secret = await signingSecret(this);
			check = secret ? verify(secret) : 'invalid';
		} catch (error) {
			// n8n's reason (e.g. a deleted credential, or one encrypted with another key) names no value.
			logTrigger(
				this,
				'error',
				`a delivery was answered 500: the Workplace Webhook API credential ${webhookCredentialName(this)} cannot be read (${(error as Error).message}), so no delivery can be verified. Select the credential holding the secret configured on the platform, or set Signature Verification to "None".`,
			);
			return reply(this, 500, UNREADABLE_WEBHOOK_CREDENTIAL);
		}
		if (!secret) {
			logTrigger(
				this,
				'warn',
				`a delivery was answered 401: the secret of the Workplace Webhook API credential ${webhookCredentialName(this)} is empty, so no delivery can be verified. Enter the secret configured for the webhook on the platform.`,
			);
			return reply(this, 401, 'The webhook secret of this trigger is empty; no delivery can be verified');
		}
		if (check === 'missing') return reply(this, 401, 'Missing X-Service-Signature header');
		if (check === 'invalid') return reply(this, 401, 'Invalid X-Service-Signature');
	}

	// 2. Shape.
	if (!body || body.length === 0) return reply(this, 400, 'Expected a JSON body');
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const staticData = this.getWorkflowStaticData('node');
	const node = this.getNode();
	const scope = `${this.getWorkflow().id ?? ''}:${node.id ?? node.name}`;
	const production = this.getMode() !== 'manual';
	// Counted in-chat votes this process holds are written back with every delivery (ballots.ts).
	const ballots: BallotStore = { scope, staticData: production ? staticData : undefined };
	writeBack(ballots);
	const recount = this.getNodeParameter('verification', 'secret') === 'secret' ? readRecount(body) : undefined;
	if (recount) return reply(this, 200, `Recount of in-chat votes: ${await answerRecount(this, recount, ballots, options.resumeBaseUrl)}`);
	const delivery = parseDelivery(body, headers['x-service-event']);
	if (delivery.kind === 'malformed') return reply(this, 400, `Malformed delivery: ${delivery.reason}`);

	// 3. Selected events and filters.
	const selected = this.getNodeParameter('events', []) as string[];
	let candidates: Candidate[] = [];

	// In-chat answers to Send and Wait go to their waiting executions, whatever the Events and filters.
	let answers: AnswerResult[] = [];
	if (delivery.kind === 'bot' && delivery.events.some(isAnswerEvent)) {
		const taps = delivery.events.filter(isAnswerEvent);
		delivery.events = delivery.events.filter((event) => !isAnswerEvent(event));
		const dedupe = production ? { scope, staticData, rememberEvents: options.rememberEvents ?? DEFAULT_REMEMBER_EVENTS } : undefined;
		const handed = await handTapsOn(this, taps, body, String(headers['x-service-signature'] ?? ''), options.resumeBaseUrl, dedupe, ballots);
		if (handed === 'inProgress') return askAgainLater(this, 'The first delivery of this tap is still being handed on; retry later');
		if (handed.some((a) => a.outcome === 'failed')) {
			// Nothing else of the delivery is claimed yet: its redelivery brings the tap and any event again.
			return askAgainLater(this, 'An in-chat answer could not be handed to its waiting execution; send the delivery again');
		}
		answers = handed;
	}

	if (delivery.kind === 'user') {
		if (isSelected(selected, userEventValue(delivery.action))) {
			candidates.push({ json: delivery.body, key: userEventKey(delivery, body) });
		}
	} else if (delivery.kind === 'bot') {
		let directChats: Set<string> | undefined;
		if (options.directChatsOnly) {
			const joined = delivery.events
				.filter((e) => e.type === 'join')
				.map((e) => chatOf(e).groupId)
				.filter((g): g is string => Boolean(g));
			directChats = learnDirectChats(scope, staticData, DIRECT_CHATS_FIELD, joined);
		}
		candidates = selectBotEvents(delivery, selected, options, directChats);
	}
	if (!candidates.length) {
		if (answers.length) {
			const outcomes = answers.map((a) => a.outcome).join(', ');
			return reply(this, 200, `In-chat answers handed to their waiting executions (${outcomes}); no run started`);
		}
		return reply(this, 200, 'No selected event in this delivery; no run started');
	}

	// 4. Duplicates: a redelivered event starts no second run (not in test mode, where each
	// delivery is listened for on purpose).
	let fresh = candidates;
	let release = () => {};
	let answered = () => {};
	let settle = async () => {};
	if (production) {
		const claim = claimEventKeys(
			scope,
			staticData,
			RECENT_EVENTS_FIELD,
			candidates.map((c) => c.key),
			options.rememberEvents ?? DEFAULT_REMEMBER_EVENTS,
		);
		fresh = candidates.filter((_, i) => claim.fresh[i]);
		release = claim.release;
		answered = claim.answered;
		settle = claim.settle;
		if (!fresh.length && claim.inProgress) {
			return askAgainLater(this, 'The first delivery of this event is still being received; retry later');
		}
		if (!fresh.length) {
			const repeated = reply(this, 200, 'Already received; no run started');
			// The stored copy may lack keys this process holds: it is written again.
			await settle();
			return repeated;
		}
	}

	// 5. Pictures.
	const items: INodeExecutionData[] = fresh.map((c) => ({ json: c.json }));
	if (this.getNodeParameter('downloadImages', false) && fresh.some((c) => c.pictureId)) {
		if (!node.credentials?.workplaceBotOAuth2Api) {
			release();
			logTrigger(this, 'error', `a delivery was answered 500: ${MISSING_BOT_CREDENTIAL}`);
			return reply(this, 500, MISSING_BOT_CREDENTIAL);
		}
		await attachPictures(this, fresh, items, release);
	}

	// The answer is the node's (noWebhookResponse), so n8n saves the static data before it starts
	// the run: on n8n 2, an answer left to n8n comes after the run is started, and starting it
	// re-wraps the same static data object, which clears n8n's "changed" flag, so the keys were
	// never saved. Where runs cost an isolate the answer waits for the run (pacing.ts).
	await settle();
	const answer = () => {
		answered();
		this.getResponseObject().status(200).json({ received: items.length });
	};
	if (production) answerWhenRunStarts(this, items, answer);
	else answer();
	return { noWebhookResponse: true, workflowData: [items] };
}
