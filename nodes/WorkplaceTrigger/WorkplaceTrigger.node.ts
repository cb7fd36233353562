import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IHookFunctions,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { responseToBinary } from '../shared/binary';
import { botRequest, testBotCredential } from '../WorkplaceBot/transport';
import type { RememberEvents } from './dedupe';
import { claimEventKeys, learnDirectChats } from './dedupe';
import type { Delivery } from './delivery';
import {
	botEventKey,
	chatOf,
	checkSignature,
	EVENT_OPTIONS,
	isSelected,
	parseDelivery,
	splitIds,
	userEventKey,
	userEventValue,
} from './delivery';

const RECENT_EVENTS_FIELD = 'recentEventKeys';
const DIRECT_CHATS_FIELD = 'directChatGroupIds';

interface TriggerOptions {
	groupIds?: string;
	topicIds?: string;
	directChatsOnly?: boolean;
	rememberEvents?: RememberEvents;
}

/** Version 1 saved received events in batches when the option was not set; 1.1 on every delivery. */
function defaultRememberEvents(typeVersion: number): RememberEvents {
	return typeVersion >= 1.1 ? 'everyDelivery' : 'batched';
}

/** Answers a delivery that starts no run: 200 for one accepted but ignored, 4xx when refused. */
function reply(ctx: IWebhookFunctions, status: number, message: string): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(status < 300 ? { received: 0, message } : { message });
	return { noWebhookResponse: true };
}

export class WorkplaceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace Trigger',
		name: 'workplaceTrigger',
		icon: { light: 'file:workplaceTrigger.svg', dark: 'file:workplaceTrigger.dark.svg' },
		group: ['trigger'],
		// 1.1: received events are saved on every delivery unless "Remember Received Events" says otherwise.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{($parameter["events"] || []).join(", ")}}',
		description:
			'Starts the workflow when the Workplace platform delivers bot events (message, join, postback) or user events (created, updated, deleted)',
		defaults: { name: 'Workplace Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'workplaceWebhookApi',
				required: true,
				testedBy: 'workplaceWebhookSecretTest',
				displayOptions: { show: { verification: ['secret'] } },
			},
			{
				name: 'workplaceBotOAuth2Api',
				required: true,
				testedBy: 'testBotCredential',
				displayOptions: { show: { downloadImages: [true] } },
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					"The platform has no API to register webhooks: copy this node's Test URL (while building the workflow) or Production URL (once the workflow is active) from the Webhook URLs above and paste it into the bot's webhook setting (bot events) or the platform's webhook settings (user events).",
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Signature Verification',
				name: 'verification',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Webhook Secret',
						value: 'secret',
						description:
							'Refuse deliveries (HTTP 401) whose X-Service-Signature does not match the secret configured on the platform',
					},
					{
						name: 'None',
						value: 'none',
						description: 'Accept every delivery posted to the URL',
					},
				],
				default: 'secret',
			},
			{
				displayName:
					'Deliveries are not verified: anyone who knows the URL can start this workflow. Configure a secret on the platform and choose "Webhook Secret" to have signatures checked.',
				name: 'unverifiedNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { verification: ['none'] } },
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: EVENT_OPTIONS,
				default: ['message'],
				required: true,
				description:
					'Which deliveries start the workflow. A bot delivery gives one item per selected event; a user delivery gives one item.',
			},
			{
				displayName: 'Download Images',
				name: 'downloadImages',
				type: 'boolean',
				default: false,
				description:
					'Whether to fetch the picture of message events carrying a pictureId through the bot API into a binary property',
			},
			{
				displayName: 'Image Size',
				name: 'imageSize',
				type: 'options',
				options: [
					{ name: 'Small', value: 'small' },
					{ name: 'Medium', value: 'medium' },
					{ name: 'Large', value: 'large' },
				],
				default: 'medium',
				displayOptions: { show: { downloadImages: [true] } },
			},
			{
				displayName: 'Put Image in Field',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
				required: true,
				description: 'Name of the binary property the picture is written to',
				displayOptions: { show: { downloadImages: [true] } },
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Direct Chats Only',
						name: 'directChatsOnly',
						type: 'boolean',
						default: false,
						description:
							'Whether to keep only bot events from direct chats with the bot: join events, and events in a chat a join event named as direct (source.gid, platform 14.1.0 and later). User events are not affected.',
					},
					{
						displayName: 'Group IDs',
						name: 'groupIds',
						type: 'string',
						default: '',
						placeholder: '64f0c0000000000000000001, 64f0c0000000000000000002',
						description:
							'Keep only bot events from these groups (comma-separated). User events are not affected.',
					},
					{
						displayName: 'Remember Received Events',
						name: 'rememberEvents',
						type: 'options',
						options: [
							{
								name: 'Batched',
								value: 'batched',
								description:
									'Save the keys of received events with the workflow at most every 5 seconds or every 500 events: fewer database writes, but after a restart redeliveries of the events received since the last save start a second run',
							},
							{
								name: 'On Every Delivery',
								value: 'everyDelivery',
								description:
									'Save the keys of each delivery with the workflow as it is answered, so a redelivery never starts a second run, also after a restart. One database write per new event.',
							},
						],
						default: 'everyDelivery',
						description:
							'How the keys of the last 1000 events, used to ignore redeliveries, are kept across restarts of n8n. In queue mode with several webhook processes keep On Every Delivery and have the load balancer send each trigger URL to one webhook process (README: Queue mode). Workflows created with version 1 of this node used Batched when this option is not set.',
					},
					{
						displayName: 'Topic IDs',
						name: 'topicIds',
						type: 'string',
						default: '',
						description:
							'Keep only bot events from these topics (comma-separated). User events are not affected.',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: {
			testBotCredential,
			async workplaceWebhookSecretTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const secret = credential.data?.secret;
				if (typeof secret !== 'string' || secret === '') {
					return { status: 'Error', message: 'Enter the secret configured for the webhook on the platform' };
				}
				if (secret.trim() !== secret) {
					return {
						status: 'Error',
						message: 'The secret starts or ends with white space; signatures would not match',
					};
				}
				return {
					status: 'OK',
					message:
						'Secret saved. The platform offers no way to check it: each delivery is verified when it arrives.',
				};
			},
		},
	};

	// The platform has no API to register or remove webhooks: the user pastes the URL there.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject();
		const headers = this.getHeaderData();
		const rawBody: unknown = (req as unknown as { rawBody?: unknown }).rawBody;
		const body = Buffer.isBuffer(rawBody) ? rawBody : undefined;

		// 1. Signature, before anything is read from the body.
		if (this.getNodeParameter('verification', 'secret') === 'secret') {
			const { secret } = await this.getCredentials<{ secret?: string }>('workplaceWebhookApi');
			if (typeof secret !== 'string' || secret === '') {
				return reply(this, 401, 'The webhook secret of this trigger is empty; no delivery can be verified');
			}
			const check = body
				? checkSignature(secret, body, headers['x-service-signature'])
				: headers['x-service-signature']
					? 'invalid'
					: 'missing';
			if (check === 'missing') return reply(this, 401, 'Missing X-Service-Signature header');
			if (check === 'invalid') return reply(this, 401, 'Invalid X-Service-Signature');
		}

		// 2. Shape.
		if (!body || body.length === 0) return reply(this, 400, 'Expected a JSON body');
		const delivery: Delivery = parseDelivery(body, headers['x-service-event']);
		if (delivery.kind === 'malformed') return reply(this, 400, `Malformed delivery: ${delivery.reason}`);

		// 3. Selected events and filters.
		const selected = this.getNodeParameter('events', []) as string[];
		const options = this.getNodeParameter('options', {}) as TriggerOptions;
		const staticData = this.getWorkflowStaticData('node');
		const node = this.getNode();
		const scope = `${this.getWorkflow().id ?? ''}:${node.id ?? node.name}`;
		const candidates: Array<{ json: IDataObject; key: string; pictureId?: string }> = [];

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
				directChats = learnDirectChats(scope, staticData, DIRECT_CHATS_FIELD, joined).chats;
			}
			const groupIds = splitIds(options.groupIds);
			const topicIds = splitIds(options.topicIds);
			for (const event of delivery.events) {
				if (!isSelected(selected, String(event.type))) continue;
				const chat = chatOf(event);
				if (groupIds.length && !(chat.groupId && groupIds.includes(chat.groupId))) continue;
				if (topicIds.length && !(chat.topicId && topicIds.includes(chat.topicId))) continue;
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
				candidates.push({ json: event, key: botEventKey(event), pictureId });
			}
		}
		if (!candidates.length) return reply(this, 200, 'No selected event in this delivery; no run started');

		// 4. Duplicates: a redelivered event starts no second run (not in test mode, where each
		// delivery is listened for on purpose).
		let fresh = candidates;
		let release = () => {};
		if (this.getMode() !== 'manual') {
			const claim = claimEventKeys(
				scope,
				staticData,
				RECENT_EVENTS_FIELD,
				candidates.map((c) => c.key),
				options.rememberEvents ?? defaultRememberEvents(node.typeVersion),
			);
			fresh = candidates.filter((_, i) => claim.fresh[i]);
			release = claim.release;
			if (!fresh.length) return reply(this, 200, 'Already received; no run started');
		}

		// 5. Pictures.
		const items: INodeExecutionData[] = fresh.map((c) => ({ json: c.json }));
		if (this.getNodeParameter('downloadImages', false) && fresh.some((c) => c.pictureId)) {
			const size = this.getNodeParameter('imageSize', 'medium') as string;
			const property = this.getNodeParameter('binaryPropertyName', 'data') as string;
			try {
				for (const [i, candidate] of fresh.entries()) {
					if (!candidate.pictureId) continue;
					const response = await botRequest<Parameters<typeof responseToBinary>[1]['body']>(this, {
						method: 'GET',
						path: `/file/image/${encodeURIComponent(candidate.pictureId)}`,
						qs: { size },
						stream: true,
					});
					const binary = await responseToBinary(this, response, candidate.pictureId);
					if (!binary.fileName?.includes('.') && binary.fileExtension) {
						binary.fileName = `${binary.fileName ?? candidate.pictureId}.${binary.fileExtension}`;
					}
					items[i].binary = { [property]: binary };
				}
			} catch (error) {
				// No run starts: forget the events so a redelivery can start one.
				release();
				const reason = (error as Error).message;
				throw new NodeApiError(this.getNode(), { message: reason }, {
					message: `Could not download the picture of a message event: ${reason}`,
					httpCode: (error as NodeApiError).httpCode ?? undefined,
					description: (error as NodeApiError).description ?? undefined,
				});
			}
		}

		// The node answers itself, so n8n saves the static data before it starts the run: on n8n 2,
		// an answer left to n8n comes after the run is started, and starting it re-wraps the same
		// static data object, which clears n8n's "changed" flag, so the keys were never saved.
		this.getResponseObject().status(200).json({ received: items.length });
		return { noWebhookResponse: true, workflowData: [items] };
	}
}
