import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/transport/apiPath';
import { requireId } from '../../../shared/validation';
import { uploadFileRequest } from './uploadFileRequest';
import { binaryPropertyInput, knowledgeBaseLocator, uploadOptions } from '../common.descriptions';
import { simplifyProperty } from '../../../shared/descriptions/simplify';

const properties: INodeProperties[] = [knowledgeBaseLocator, binaryPropertyInput, uploadOptions(), simplifyProperty];

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['upload'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const knowledgeBaseId = requireId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	return await uploadFileRequest(this, itemIndex, 'POST', apiPath`/knowledge/${knowledgeBaseId}/files`);
}

export { fileTransferConversationKey as conversationKey } from '../conversations';

export { simplifyKnowledgeFile as simplify } from './simplify';
