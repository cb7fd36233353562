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
import * as file from './actions/file';
import * as knowledgeBase from './actions/knowledgeBase';
import { searchFiles, searchKnowledgeBases } from './methods/listSearch';
import { testKnowledgeCredential } from './transport';

const resources = { knowledgeBase, file };

export class WorkplaceKnowledge implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace Knowledge',
		name: 'workplaceKnowledge',
		icon: { light: 'file:workplaceKnowledge.svg', dark: 'file:workplaceKnowledge.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: OPERATION_SUBTITLE,
		description:
			'Create, read, update and delete knowledge bases of the Workplace platform, and upload, download, replace and delete their files',
		defaults: { name: 'Workplace Knowledge' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'workplaceKnowledgeApi', required: true, testedBy: 'testKnowledgeCredential' }],
		properties: actionNodeProperties(
			resources,
			{
				options: [
					{
						name: 'Knowledge Base',
						value: 'knowledgeBase',
						description: 'A collection of documents the platform can search and answer from',
					},
					{
						name: 'File',
						value: 'file',
						description: 'A document stored in a knowledge base',
					},
				],
				default: 'knowledgeBase',
			},
		),
	};

	methods = {
		listSearch: { searchKnowledgeBases, searchFiles },
		credentialTest: { testKnowledgeCredential },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeOperations.call(this, operationsOf(resources));
	}
}
