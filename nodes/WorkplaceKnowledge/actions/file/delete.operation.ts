import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { knowledgeDelete } from '../../transport';
import { readFileAddress } from './fileAddress';
import { fileLocator, knowledgeBaseLocator } from '../common.descriptions';

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['delete'] } },
	[knowledgeBaseLocator, fileLocator],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const { knowledgeBaseId, fileId, path } = readFileAddress(this, itemIndex);
	const gone = await knowledgeDelete(this, path, itemIndex);
	return { deleted: true, knowledgeBaseId, fileId, ...gone };
}

export { knowledgeBaseConversationKey as conversationKey } from '../conversations';
