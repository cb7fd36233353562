import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { knowledgeRequest } from '../../transport';
import { readFileAddress } from './fileAddress';
import { fileLocator, knowledgeBaseLocator } from '../common.descriptions';
import { simplifyProperty } from '../../../shared/descriptions/simplify';

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['get'] } },
	[knowledgeBaseLocator, fileLocator, simplifyProperty],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const file = readFileAddress(this, itemIndex);
	const { body } = await knowledgeRequest(this, { method: 'GET', path: file.path }, itemIndex);
	return body;
}

export { simplifyKnowledgeFile as simplify } from './simplify';
