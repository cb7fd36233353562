import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { actionNodeProperties, OPERATION_SUBTITLE } from '../shared/descriptions/actionNode';
import { operationsOf } from '../shared/resource';
import { routeOperations } from '../shared/router';
import * as directMessage from './actions/directMessage';
import * as group from './actions/group';
import * as groupMessage from './actions/groupMessage';
import * as image from './actions/image';
import * as message from './actions/message';
import { SEND_AND_WAIT_WEBHOOKS } from './actions/message/sendAndWait/description';
import { sendAndWaitWebhook } from './actions/message/sendAndWait/resumeWebhook';
import * as user from './actions/user';
import { searchThreads } from './methods/listSearch';
import { workplaceWebhookSecretTest } from '../shared/credentialTests/webhookSecret';
import { testBotCredential } from '../shared/transport/botApi';

const resources = { directMessage, groupMessage, message, group, user, image };

export class WorkplaceBot implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace Bot',
		name: 'workplaceBot',
		icon: { light: 'file:workplaceBot.svg', dark: 'file:workplaceBot.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: OPERATION_SUBTITLE,
		description:
			'Send messages as a Workplace bot to users, groups and topics (text, pictures, files, buttons, carousels, quick replies), create groups and topics, and look up users',
		defaults: { name: 'Workplace Bot' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'workplaceBotOAuth2Api', required: true, testedBy: 'testBotCredential' },
			{
				// Verifies the deliveries of in-chat answers (Message > Send and Wait for Response).
				name: 'workplaceWebhookApi',
				required: true,
				testedBy: 'workplaceWebhookSecretTest',
				displayOptions: {
					show: { resource: ['message'], operation: ['sendAndWait'], responseType: ['approval'], answerIn: ['chat'] },
				},
			},
		],
		// The resume URLs of Message > Send and Wait for Response.
		webhooks: SEND_AND_WAIT_WEBHOOKS,
		properties: actionNodeProperties(
			resources,
			{
				options: [
					{
						name: 'Direct Message',
						value: 'directMessage',
						description: "Text, pictures and files sent to a user's direct chat with the bot",
					},
					{
						name: 'Group',
						value: 'group',
						description: 'Group chats and their topics',
					},
					{
						name: 'Group Message',
						value: 'groupMessage',
						description: "Text, pictures and files sent to a group's main chat or a topic",
					},
					{
						name: 'Image',
						value: 'image',
						description: 'Pictures users sent to the bot',
					},
					{
						name: 'Message',
						value: 'message',
						description:
							'Rich messages (text, image, video, audio, imagemap, buttons and carousel templates, quick replies) pushed to a thread',
					},
					{
						name: 'User',
						value: 'user',
						description: 'User lookups and the direct chat between the bot and a user',
					},
				],
				default: 'directMessage',
			},
		),
	};

	methods = {
		credentialTest: { testBotCredential, workplaceWebhookSecretTest },
		listSearch: { searchThreads },
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await sendAndWaitWebhook.call(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeOperations.call(this, operationsOf(resources));
	}
}
