import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/apiPath';
import { requireResourceId } from '../../../shared/validation';
import { sendFile } from './sendFile';
import {
	binaryPropertyInput,
	fileLocator,
	knowledgeBaseLocator,
	uploadOptions,
} from '../common.descriptions';

const properties: INodeProperties[] = [
	knowledgeBaseLocator,
	fileLocator,
	binaryPropertyInput,
	uploadOptions(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['replace'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const knowledgeBaseId = requireResourceId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	const fileId = requireResourceId(this, itemIndex, 'fileId', 'File');
	return await sendFile(this, itemIndex, 'PUT', apiPath`/knowledge/${knowledgeBaseId}/files/${fileId}`);
}
