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
import * as form from './actions/form';
import { testFormCredential } from './transport';

const resources = { form };

export class WorkplaceForm implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace Form',
		name: 'workplaceForm',
		icon: { light: 'file:workplaceForm.svg', dark: 'file:workplaceForm.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: OPERATION_SUBTITLE,
		description:
			'Create Workplace forms that collect input from people: text inputs, choices and approve/reject actions, with optional approval in stages',
		defaults: { name: 'Workplace Form' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'workplaceFormApi', required: true, testedBy: 'testFormCredential' }],
		properties: actionNodeProperties(
			resources,
			{
				options: [
					{
						name: 'Form',
						value: 'form',
						description: 'A request sent to people for input or approval, such as a purchase or leave request',
					},
				],
				default: 'form',
			},
		),
	};

	methods = {
		credentialTest: { testFormCredential },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeOperations.call(this, operationsOf(resources));
	}
}
