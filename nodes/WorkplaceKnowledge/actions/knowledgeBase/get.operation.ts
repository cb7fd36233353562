import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/transport/apiPath';
import { requireId } from '../../../shared/validation';
import { knowledgeRequest } from '../../transport';
import { knowledgeBaseLocator } from '../common.descriptions';
import { simplifyProperty } from '../../../shared/descriptions/simplify';

export const description = updateDisplayOptions(
	{ show: { resource: ['knowledgeBase'], operation: ['get'] } },
	[knowledgeBaseLocator, simplifyProperty],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	const { body } = await knowledgeRequest(this, { method: 'GET', path: apiPath`/knowledge/${id}` }, itemIndex);
	return body;
}

export { simplifyKnowledgeBase as simplify } from './simplify';
