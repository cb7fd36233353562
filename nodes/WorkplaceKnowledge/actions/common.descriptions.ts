import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { returnAllOrLimit } from '../../shared/descriptions/actionNode';
import { additionalJsonOption, optionsCollection } from '../../shared/descriptions/fields';
import { idLocator } from '../../shared/descriptions/locator';
import { nodeParameter } from '../../shared/parameters';

export const knowledgeBaseLocator = idLocator({
	displayName: 'Knowledge Base',
	name: 'knowledgeBaseId',
	description: 'The knowledge base: pick it from the list, or give its ID (`id` from Knowledge Base > Get Many, Get or Create)',
	searchListMethod: 'searchKnowledgeBases',
	placeholder: 'e.g. kb_8f3a2c',
	invalidIdMessage: 'Not a valid knowledge base ID',
});

export const fileLocator = idLocator({
	displayName: 'File',
	name: 'fileId',
	description: 'The file in that knowledge base: pick it from the list, or give its ID (`id` from File > Get Many or Upload)',
	searchListMethod: 'searchFiles',
	placeholder: 'e.g. file_51d0e2',
	invalidIdMessage: 'Not a valid file ID',
});

export const knowledgeAdditionalJson = additionalJsonOption(
	'Further fields to send in the request body, as a JSON object. The platform does not document every field; fields set above take precedence.',
);

export const pageSizeOption: INodeProperties = {
	displayName: 'Page Size',
	name: 'pageSize',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 100 },
	default: 50,
	description: 'How many records to fetch per request while paging through the list',
};

/** The knowledge base's description, as a field of Additional Fields or Update Fields. */
export function descriptionOption(description: string): INodeProperties {
	return {
		displayName: 'Description',
		name: 'description',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		description,
	};
}

export const binaryPropertyInput: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	hint: 'The name of the input binary field containing the file to upload',
};

export function uploadOptions(): INodeProperties {
	return optionsCollection([
		{
			displayName: 'File Name',
			name: 'fileName',
			type: 'string',
			default: '',
			description: 'File name to send instead of the one stored with the binary data',
		},
		{
			displayName: 'MIME Type',
			name: 'mimeType',
			type: 'string',
			default: '',
			placeholder: 'e.g. application/pdf',
			description: 'MIME type to send instead of the one stored with the binary data',
		},
		{
			displayName: 'File Field Name',
			name: 'fileFieldName',
			type: 'string',
			default: 'file',
			description: 'Name of the multipart form field that carries the file',
		},
		{
			displayName: 'Extra Form Fields',
			name: 'extraFields',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			default: {},
			placeholder: 'Add field',
			description: 'More text fields to send in the multipart form',
			options: [
				{
					displayName: 'Field',
					name: 'field',
					values: [
						{ displayName: 'Name', name: 'name', type: 'string', default: '' },
						{ displayName: 'Value', name: 'value', type: 'string', default: '' },
					],
				},
			],
		},
	]);
}

/** Return All / Limit and the page size option of both Get Many operations. */
export const getManyProperties: INodeProperties[] = [
	...returnAllOrLimit(undefined),
	optionsCollection([pageSizeOption]),
];

/** Reads what getManyProperties asks for: the page size, and the limit unless Return All. */
export function getManyParameters(
	ctx: IExecuteFunctions,
	itemIndex: number,
): { pageSize: number; limit?: number } {
	const returnAll = nodeParameter(ctx, 'returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : (nodeParameter(ctx, 'limit', itemIndex, 50) as number);
	const { pageSize = 50 } = nodeParameter(ctx, 'options', itemIndex, {}) as { pageSize?: number };
	return { pageSize, limit };
}
