import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readFileAddress } from './fileAddress';
import { uploadFileRequest } from './uploadFileRequest';
import {
	binaryPropertyInput,
	fileLocator,
	knowledgeBaseLocator,
	uploadOptions,
} from '../common.descriptions';
import { simplifyProperty } from '../../../shared/descriptions/simplify';

const properties: INodeProperties[] = [
	knowledgeBaseLocator,
	fileLocator,
	binaryPropertyInput,
	uploadOptions(),
	simplifyProperty,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['replace'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const file = readFileAddress(this, itemIndex);
	return await uploadFileRequest(this, itemIndex, 'PUT', file.path);
}

export { fileTransferConversationKey as conversationKey } from '../conversations';

export { simplifyKnowledgeFile as simplify } from './simplify';
