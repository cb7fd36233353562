import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { returnAllOrLimit } from '../../../shared/descriptions';
import { requireResourceId } from '../../../shared/validation';
import { knowledgeList } from '../../transport';
import { knowledgeBaseLocator, pageSizeOption } from '../common.descriptions';

const properties: INodeProperties[] = [
	knowledgeBaseLocator,
	...returnAllOrLimit(undefined),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [pageSizeOption],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['getAll'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const knowledgeBaseId = requireResourceId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex, 50) as number);
	const { pageSize = 50 } = this.getNodeParameter('options', itemIndex, {}) as { pageSize?: number };
	return await knowledgeList(this, `/knowledge/${knowledgeBaseId}/files`, itemIndex, { pageSize, limit });
}
