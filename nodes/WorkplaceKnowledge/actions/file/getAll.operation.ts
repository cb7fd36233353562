import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/transport/apiPath';
import { requireId } from '../../../shared/validation';
import { knowledgeList } from '../../transport';
import { getManyParameters, getManyProperties, knowledgeBaseLocator } from '../common.descriptions';
import { simplifyProperty } from '../../../shared/descriptions/simplify';

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['getAll'] } },
	[knowledgeBaseLocator, ...getManyProperties, simplifyProperty],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const knowledgeBaseId = requireId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	return await knowledgeList(
		this,
		apiPath`/knowledge/${knowledgeBaseId}/files`,
		itemIndex,
		getManyParameters(this, itemIndex),
	);
}

export { simplifyKnowledgeFile as simplify } from './simplify';
