import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/apiPath';
import { responseToBinary } from '../../../shared/binary';
import { requireResourceId, requireString } from '../../../shared/validation';
import { knowledgeRequest } from '../../transport';
import { fileLocator, knowledgeBaseLocator } from '../common.descriptions';

const properties: INodeProperties[] = [
	knowledgeBaseLocator,
	fileLocator,
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['download'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const knowledgeBaseId = requireResourceId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	const fileId = requireResourceId(this, itemIndex, 'fileId', 'File');
	const binaryPropertyName = requireString(this, itemIndex, 'binaryPropertyName', 'Put Output File in Field');
	const response = await knowledgeRequest<never>(
		this,
		{ method: 'GET', path: apiPath`/knowledge/${knowledgeBaseId}/files/${fileId}/download`, stream: true },
		itemIndex,
	);
	const binary = await responseToBinary(this, response, fileId);
	const input = this.getInputData()[itemIndex];
	return [
		{
			json: {
				knowledgeBaseId,
				fileId,
				fileName: binary.fileName,
				mimeType: binary.mimeType,
			},
			binary: { ...(input?.binary ?? {}), [binaryPropertyName]: binary },
		},
	];
}
