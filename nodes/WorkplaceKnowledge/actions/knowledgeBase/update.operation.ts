import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/transport/apiPath';
import { collectionOf } from '../../../shared/descriptions/fields';
import { invalidInput, parseJsonObject, requireId } from '../../../shared/validation';
import { knowledgeRequest } from '../../transport';
import { knowledgeAdditionalJson, descriptionOption, knowledgeBaseLocator } from '../common.descriptions';
import { simplifyProperty } from '../../../shared/descriptions/simplify';
import { nodeParameter } from '../../../shared/parameters';

export const description = updateDisplayOptions(
	{ show: { resource: ['knowledgeBase'], operation: ['update'] } },
	[
		knowledgeBaseLocator,
		collectionOf('Update Fields', 'updateFields', 'Add field', [
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'New name of the knowledge base; leave the field out to keep the name',
			},
			descriptionOption('New description of the knowledge base'),
			knowledgeAdditionalJson,
		]),
		simplifyProperty,
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	const fields = nodeParameter(this, 'updateFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = parseJsonObject(
		this,
		itemIndex,
		'Additional Fields (JSON)',
		fields.additionalJson,
	);
	if (fields.name !== undefined) {
		const name = String(fields.name).trim();
		if (name === '') throw invalidInput(this, itemIndex, 'Name', 'must not be empty when set', fields.name);
		body.name = name;
	}
	if (fields.description !== undefined) body.description = fields.description;
	if (Object.keys(body).length === 0) {
		throw invalidInput(this, itemIndex, 'Update Fields', 'must contain at least one field to change', fields);
	}
	const { body: record } = await knowledgeRequest(
		this,
		{ method: 'PUT', path: apiPath`/knowledge/${id}`, body },
		itemIndex,
	);
	return record;
}

export { knowledgeBaseConversationKey as conversationKey } from '../conversations';

export { simplifyKnowledgeBase as simplify } from './simplify';
