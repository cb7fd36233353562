import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { knowledgeList } from '../../transport';
import { getManyParameters, getManyProperties } from '../common.descriptions';

export const description = updateDisplayOptions(
	{ show: { resource: ['knowledgeBase'], operation: ['getAll'] } },
	getManyProperties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await knowledgeList(this, '/knowledge', itemIndex, getManyParameters(this, itemIndex));
}
