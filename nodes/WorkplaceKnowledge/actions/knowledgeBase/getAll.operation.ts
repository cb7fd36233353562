import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { knowledgeList } from '../../transport';
import { getManyParameters, getManyProperties } from '../common.descriptions';
import { simplifyProperty } from '../../../shared/descriptions/simplify';

export const description = updateDisplayOptions(
	{ show: { resource: ['knowledgeBase'], operation: ['getAll'] } },
	[...getManyProperties, simplifyProperty],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await knowledgeList(this, '/knowledge', itemIndex, getManyParameters(this, itemIndex));
}

export { simplifyKnowledgeBase as simplify } from './simplify';
