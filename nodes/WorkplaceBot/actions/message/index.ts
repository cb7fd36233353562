import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../../shared/router';
import * as push from './push.operation';

export const operations: Record<string, OperationModule> = { push };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['message'] } },
		options: [
			{
				name: 'Send to Thread',
				value: 'push',
				description:
					'Send one or more rich messages (text, image, video, audio, imagemap, buttons or carousel template, with optional quick replies) to a group thread, topic or direct chat',
				action: 'Send messages to a thread',
			},
		],
		default: 'push',
	},
	...push.description,
];
