import type { INodeProperties } from 'n8n-workflow';

import { MAX_PICTURE_TIMEOUT_S } from '../shared/approvals/timing';
import { DEFAULT_TURN_WAIT_S, MAX_TURN_WAIT_S } from './conversationTurns';
import { PICTURE_SIZE_OPTIONS } from '../shared/transport/botApi';
import { optionsCollection } from '../shared/descriptions/fields';

/**
 * The picture of a message event is downloaded while the platform waits for the delivery's answer:
 * the limit of the whole download, retries included, stays well under a webhook sender's usual patience.
 */
export const PICTURE_TIMEOUT_SECONDS = 20;

/** Values of the "Events" parameter. */
const EVENT_OPTIONS = [
	{ name: 'All Events', value: '*', description: 'Every event the platform delivers' },
	{ name: 'Join', value: 'join', description: 'A user started a direct chat with the bot' },
	{ name: 'Message', value: 'message', description: 'A user wrote to the bot (direct chat, group or topic)' },
	{
		name: 'Postback',
		value: 'postback',
		description: 'A user chose a postback action of a bot message (taps on the in-chat buttons of Send and Wait for Response never start a run: they resume the waiting execution)',
	},
	{ name: 'User Created', value: 'userCreated', description: 'A user account was created' },
	{ name: 'User Deleted', value: 'userDeleted', description: 'A user account was removed' },
	{ name: 'User Updated', value: 'userUpdated', description: 'The status of a user account changed' },
];

/** The Workplace Trigger's parameters; their names and defaults are saved in users' workflows. */
export const triggerProperties: INodeProperties[] = [
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
		displayName: 'Use Bot Credential',
		name: 'useBotCredential',
		type: 'boolean',
		default: false,
		description:
			'Whether the trigger uses a Workplace Bot credential: to download the pictures of message events, and to post the confirmations and replies of approvals answered in the chat (Send and Wait for Response, Answer In: Chat)',
	},
	{
		displayName: 'Download Images',
		name: 'downloadImages',
		type: 'boolean',
		default: false,
		description:
			'Whether to fetch the picture of message events carrying a pictureId through the bot API into a binary property',
		displayOptions: { show: { useBotCredential: [true] } },
	},
	{
		displayName: 'Image Size',
		name: 'imageSize',
		type: 'options',
		options: PICTURE_SIZE_OPTIONS,
		default: 'medium',
		displayOptions: { show: { useBotCredential: [true], downloadImages: [true] } },
	},
	{
		displayName: 'Put Image in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		description: 'Name of the binary property the picture is written to',
		displayOptions: { show: { useBotCredential: [true], downloadImages: [true] } },
	},
	{
		displayName: 'Image Download Timeout (Seconds)',
		name: 'imageTimeout',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_PICTURE_TIMEOUT_S },
		default: PICTURE_TIMEOUT_SECONDS,
		description:
			'How long the download of the pictures of one delivery may take, retries included: a server error (5xx), a rate limit (429, after its Retry-After) or a dropped connection is tried again while time is left, and an attempt fails when no byte arrives in the time left. The platform waits for the answer meanwhile: keep it well under its patience. A delivery whose picture cannot be had in time is answered with an error and starts no run, so the platform can send it again.',
		displayOptions: { show: { useBotCredential: [true], downloadImages: [true] } },
	},
	optionsCollection([
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
			displayName: 'One Run per Conversation at a Time',
			name: 'oneRunPerConversation',
			type: 'boolean',
			default: false,
			description:
				"Whether a run of a conversation (a group's main chat, a topic, a direct chat) waits in this node until the conversation's previous run has ended, so that an AI agent's memory holds the previous answer when a person sends two messages quickly. The platform is answered at once; the wait is bounded by \"One Run per Conversation: Max Wait\". Holds within one n8n process (queue mode: within one worker). Docs: Two quick messages.",
		},
		{
			displayName: 'One Run per Conversation: Max Wait (Seconds)',
			name: 'conversationMaxWait',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_TURN_WAIT_S },
			default: DEFAULT_TURN_WAIT_S,
			description:
				"With One Run per Conversation at a Time: the longest a run waits for its conversation's previous run; then it runs anyway and a line in n8n's log says so. Set it above the longest your workflow's runs take.",
		},
		{
			displayName: 'Resume Base URL',
			name: 'resumeBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://n8n.example.com/webhook-waiting',
			description:
				"Where n8n serves waiting executions, for taps on the in-chat buttons of Send and Wait for Response. Empty: this trigger's own webhook URL with /webhook-waiting in place of its last part, which fits n8n's default endpoints. Set it when n8n's endpoints are renamed, or when n8n cannot reach its own public URL (e.g. http://localhost:5678/webhook-waiting; the public host is sent as the Host header). Recounts of votes for several approvers go to this trigger's own path on the same host.",
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
						'Save the keys of each delivery with the workflow as it is answered, so a redelivery never starts a second run, also after a restart. Deliveries arriving together share one database write.',
				},
			],
			default: 'everyDelivery',
			description:
				'How the keys of the last 1000 events, used to ignore redeliveries, are kept across restarts of n8n. In queue mode with several webhook processes keep On Every Delivery and have the load balancer send each trigger URL to one webhook process (README: Queue mode).',
		},
		{
			displayName: 'Topic IDs',
			name: 'topicIds',
			type: 'string',
			default: '',
			description:
				'Keep only bot events from these topics (comma-separated): messages and postbacks in one of them. Bot events that carry no topic (join events, messages in the main chat of a group) are dropped unless "Topic IDs: Also Pass Events Without a Topic" is on. User events are not affected.',
		},
		{
			displayName: 'Topic IDs: Also Pass Events Without a Topic',
			name: 'passEventsWithoutTopic',
			type: 'boolean',
			default: false,
			description:
				'Whether the Topic IDs filter also lets through bot events that carry no topic: join events and messages in the main chat of a group (Group IDs and Direct Chats Only still apply). No effect without Topic IDs.',
		},
	]),
];
