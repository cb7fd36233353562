import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../../shared/router';
import * as download from './download.operation';

export const operations: Record<string, OperationModule> = { download };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['image'] } },
		options: [
			{
				name: 'Download',
				value: 'download',
				description: 'Download a picture a user sent to the bot into a binary field',
				action: 'Download a picture a user sent',
			},
		],
		default: 'download',
	},
	...download.description,
];
