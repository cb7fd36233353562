import type {
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { nodeParameter } from '../shared/parameters';
import { workplaceWebhookSecretTest } from '../shared/credentialTests/webhookSecret';
import { testBotCredential } from '../shared/transport/botApi';
import { triggerProperties } from './description';
import { recordClockAddress, startClock } from './approvals/reminderClock';
import { runStarted } from './pacing';
import { DEFAULT_TURN_WAIT_S, MAX_TURN_WAIT_S, waitForConversationTurn } from './conversationTurns';
import { checkResumeRoute } from './resumeRoute';
import { assertWebhookCredential } from './secret';
import { receiveDelivery } from './receiveDelivery';

export class WorkplaceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace Trigger',
		name: 'workplaceTrigger',
		icon: { light: 'file:workplaceTrigger.svg', dark: 'file:workplaceTrigger.dark.svg' },
		group: ['trigger'],
		// Not 1: for a webhook node of version 1 n8n evaluates a legacy expression on every request
		// (`parseRequestBody` in its webhook-helpers), which on n8n 2 costs an expression isolate per
		// delivery even where an admin set N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE (docs/performance.md).
		version: 1.1,
		subtitle: '={{($parameter["events"] || []).join(", ")}}',
		description:
			'Starts the workflow when the Workplace platform delivers bot events (message, join, postback) or user events (created, updated, deleted), and hands taps on in-chat approval buttons to the waiting Send and Wait',
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
				// Downloads pictures (Download Images) and posts the replies to in-chat answers of
				// Send and Wait. Shown on request only: n8n's editor fills a new node's credentials
				// itself only where one is shown, and the webhook secret must be that one.
				name: 'workplaceBotOAuth2Api',
				required: true,
				testedBy: 'testBotCredential',
				displayOptions: { show: { useBotCredential: [true] } },
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
		properties: triggerProperties,
	};

	methods = {
		credentialTest: {
			testBotCredential,
			workplaceWebhookSecretTest,
		},
	};

	// The platform has no API to register or remove webhooks: the user pastes the URL there.
	// n8n calls these when it registers the URL (activation, publishing, listening for a test
	// event), so a trigger that could verify no delivery is refused there. checkExists answers
	// true, so n8n never calls create; on activation it also checks, without refusing, that this
	// process reaches n8n's waiting route for in-chat answers (resumeRoute.ts, at most 3 s).
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				assertWebhookCredential(this);
				await checkResumeRoute(this);
				recordClockAddress(this);
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				assertWebhookCredential(this);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	// The clock of reminders and escalation of in-chat approvals (approvals/reminderClock.ts): n8n runs trigger() for
	// an active workflow on the process that runs triggers, and again after a restart.
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await startClock(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery.call(this);
	}

	// A run starts with the events webhook() returned: n8n's engine calls execute() with them as
	// they are, and the node passes them on unchanged. That is the moment the delivery is answered
	// (pacing.ts), as n8n's Webhook node answers once its run has started. With One Run per
	// Conversation at a Time the run then waits here for its conversation's previous run to end
	// (conversationTurns.ts); production runs only.
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		runStarted(items);
		const options = nodeParameter(this, 'options', 0, {}) as { oneRunPerConversation?: boolean; conversationMaxWait?: number };
		if (options.oneRunPerConversation && this.getMode() !== 'manual') {
			const limitS = Math.min(Math.max(Number(options.conversationMaxWait ?? DEFAULT_TURN_WAIT_S) || DEFAULT_TURN_WAIT_S, 1), MAX_TURN_WAIT_S);
			await waitForConversationTurn(this, items, limitS);
		}
		return [items];
	}
}
