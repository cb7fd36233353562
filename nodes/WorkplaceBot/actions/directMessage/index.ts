import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../../shared/router';
import * as sendFile from './sendFile.operation';
import * as sendPicture from './sendPicture.operation';
import * as sendText from './sendText.operation';

export const operations: Record<string, OperationModule> = { sendText, sendPicture, sendFile };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['directMessage'] } },
		options: [
			{
				name: 'Send File',
				value: 'sendFile',
				description: "Send a file to a user's direct chat with the bot",
				action: 'Send a file to a user',
			},
			{
				name: 'Send Picture',
				value: 'sendPicture',
				description: "Send a picture with an optional caption to a user's direct chat with the bot",
				action: 'Send a picture to a user',
			},
			{
				name: 'Send Text',
				value: 'sendText',
				description: "Send a text message to a user's direct chat with the bot",
				action: 'Send a text message to a user',
			},
		],
		default: 'sendText',
	},
	...sendText.description,
	...sendPicture.description,
	...sendFile.description,
];
