import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { requestOptionsProperty } from '../shared/descriptions';
import { routeOperations } from '../shared/router';
import * as task from './actions/task';

/** "Request Options", saying that task creation IS retried after a 5xx (it carries an Idempotency-Key). */
const taskRequestOptions: INodeProperties = {
	...requestOptionsProperty,
	options: (requestOptionsProperty.options as INodeProperties[]).map((option) =>
		option.name === 'maxServerErrorRetries'
			? {
					...option,
					description:
						'How many times creating a task is retried after a 5xx answer or a lost connection, with backoff. Safe: every retry repeats the same Idempotency-Key, so the platform creates the task once.',
				}
			: option,
	),
};

export class WorkplaceTask implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace Task',
		name: 'workplaceTask',
		icon: { light: 'file:workplaceTask.svg', dark: 'file:workplaceTask.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Create tasks in a Workplace task project: title, description, priority, due date, assignee, checklist, and subtasks of a parent task or topic',
		defaults: { name: 'Workplace Task' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'workplaceTaskApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Task',
						value: 'task',
						description: 'A piece of work in a task project, optionally with a checklist or under a parent task',
					},
				],
				default: 'task',
			},
			...task.description,
			taskRequestOptions,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeOperations.call(this, { task: task.operations });
	}
}
