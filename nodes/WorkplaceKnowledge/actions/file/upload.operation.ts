import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/apiPath';
import { requireResourceId } from '../../../shared/validation';
import { sendFile } from './sendFile';
import { binaryPropertyInput, knowledgeBaseLocator, uploadOptions } from '../common.descriptions';

const properties: INodeProperties[] = [knowledgeBaseLocator, binaryPropertyInput, uploadOptions()];

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['upload'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const knowledgeBaseId = requireResourceId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	return await sendFile(this, itemIndex, 'POST', apiPath`/knowledge/${knowledgeBaseId}/files`);
}
