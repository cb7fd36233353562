import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/transport/apiPath';
import { requireId } from '../../../shared/validation';
import { knowledgeDelete } from '../../transport';
import { knowledgeBaseLocator } from '../common.descriptions';

export const description = updateDisplayOptions(
	{ show: { resource: ['knowledgeBase'], operation: ['delete'] } },
	[knowledgeBaseLocator],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	const gone = await knowledgeDelete(this, apiPath`/knowledge/${id}`, itemIndex);
	return { deleted: true, knowledgeBaseId: id, ...gone };
}

export { knowledgeBaseConversationKey as conversationKey } from '../conversations';
