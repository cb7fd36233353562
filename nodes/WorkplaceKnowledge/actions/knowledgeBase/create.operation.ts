import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { collectionOf, requiredNameField } from '../../../shared/descriptions/fields';
import { parseJsonObject, requireString } from '../../../shared/validation';
import { knowledgeRequest } from '../../transport';
import { knowledgeAdditionalJson, descriptionOption } from '../common.descriptions';
import { simplifyProperty } from '../../../shared/descriptions/simplify';
import { nodeParameter } from '../../../shared/parameters';

const properties: INodeProperties[] = [
	requiredNameField('e.g. HR Policies', 'Name of the new knowledge base, as people will see it in lists'),
	collectionOf('Additional Fields', 'additionalFields', 'Add field', [
		descriptionOption('What the knowledge base is about, in a sentence or two'),
		knowledgeAdditionalJson,
	]),
	simplifyProperty,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['knowledgeBase'], operation: ['create'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const name = requireString(this, itemIndex, 'name', 'Name');
	const additional = nodeParameter(this, 'additionalFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = {
		...parseJsonObject(this, itemIndex, 'Additional Fields (JSON)', additional.additionalJson),
		name,
	};
	if (typeof additional.description === 'string' && additional.description !== '') {
		body.description = additional.description;
	}
	const { body: record } = await knowledgeRequest(this, { method: 'POST', path: '/knowledge', body }, itemIndex);
	return record;
}

export { simplifyKnowledgeBase as simplify } from './simplify';
