import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/apiPath';
import { requireResourceId } from '../../../shared/validation';
import { knowledgeRequest } from '../../transport';
import { fileLocator, knowledgeBaseLocator } from '../common.descriptions';

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['delete'] } },
	[knowledgeBaseLocator, fileLocator],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const knowledgeBaseId = requireResourceId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	const fileId = requireResourceId(this, itemIndex, 'fileId', 'File');
	await knowledgeRequest(
		this,
		{ method: 'DELETE', path: apiPath`/knowledge/${knowledgeBaseId}/files/${fileId}` },
		itemIndex,
	);
	return {
		deleted: true,
		knowledgeBaseId,
		fileId,
	};
}
