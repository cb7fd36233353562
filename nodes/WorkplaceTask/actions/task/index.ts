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
		displayOptions: { show: { resource: ['task'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description:
					'Create a task in a task project, with optional description, priority, due date, assignee (user ID), checklist, and parent task or topic (creates a subtask). Returns the created task.',
				action: 'Create a task',
			},
		],
		default: 'create',
	},
	...create.description,
];
