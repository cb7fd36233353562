import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { actionNodeProperties, OPERATION_SUBTITLE } from '../shared/descriptions/actionNode';
import { operationsOf } from '../shared/resource';
import { routeOperations } from '../shared/router';
import * as task from './actions/task';
import { testTaskCredential } from './transport';

const resources = { task };

export class WorkplaceTask implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace Task',
		name: 'workplaceTask',
		icon: { light: 'file:workplaceTask.svg', dark: 'file:workplaceTask.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: OPERATION_SUBTITLE,
		description:
			'Create tasks in a Workplace task project: title, description, priority, due date, assignee, checklist, and subtasks of a parent task or topic',
		defaults: { name: 'Workplace Task' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'workplaceTaskApi', required: true, testedBy: 'testTaskCredential' }],
		properties: actionNodeProperties(
			resources,
			{
				options: [
					{
						name: 'Task',
						value: 'task',
						description: 'A piece of work in a task project, optionally with a checklist or under a parent task',
					},
				],
				default: 'task',
			},
		),
	};

	methods = {
		credentialTest: { testTaskCredential },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeOperations.call(this, operationsOf(resources));
	}
}
