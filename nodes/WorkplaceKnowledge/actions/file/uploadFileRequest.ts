import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { buildMultipart, getUploadSource } from '../../../shared/binary';
import { invalidInput, requireString } from '../../../shared/validation';
import { knowledgeRequest } from '../../transport';
import { nodeParameter } from '../../../shared/parameters';

interface UploadOptions {
	fileName?: string;
	mimeType?: string;
	fileFieldName?: string;
	extraFields?: { field?: Array<{ name?: string; value?: string }> };
}

/** Upload and Replace: the item's binary file as a multipart part, plus extra text fields. */
export async function uploadFileRequest(
	ctx: IExecuteFunctions,
	itemIndex: number,
	method: 'POST' | 'PUT',
	path: string,
): Promise<IDataObject> {
	const binaryPropertyName = requireString(ctx, itemIndex, 'binaryPropertyName', 'Input Binary Field');
	const options = nodeParameter(ctx, 'options', itemIndex, {}) as UploadOptions;
	const fileField = (options.fileFieldName ?? 'file').trim();
	if (fileField === '') {
		throw invalidInput(ctx, itemIndex, 'File Field Name', 'must not be empty', options.fileFieldName);
	}
	const fields: Record<string, string[]> = {};
	const extraFields = options.extraFields?.field ?? [];
	for (const [index, field] of extraFields.entries()) {
		const name = (field.name ?? '').trim();
		const shown = { field: 'Extra Form Fields > Name', at: `field ${index + 1} of ${extraFields.length}` };
		if (name === '') throw invalidInput(ctx, itemIndex, shown, 'must not be empty', field.name);
		if (name === fileField) {
			throw invalidInput(ctx, itemIndex, shown, `must differ from the file field "${fileField}"`, field.name);
		}
		(fields[name] ??= []).push(String(field.value ?? ''));
	}
	const source = await getUploadSource(ctx, itemIndex, binaryPropertyName, {
		fileName: options.fileName?.trim(),
		mimeType: options.mimeType?.trim(),
	});
	const { body } = await knowledgeRequest(
		ctx,
		{ method, path, body: async () => await buildMultipart(fields, { [fileField]: source }) },
		itemIndex,
	);
	return body;
}
