import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../../../shared/router';
import * as create from './create.operation';

export const operations: Record<string, OperationModule> = { create };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['form'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description:
					'Create a form sent from one user (username) to recipients (usernames), with input fields (text input, radio, action buttons) and optional staged approval. Returns the created form.',
				action: 'Create a form',
			},
		],
		default: 'create',
	},
	...create.description,
];
