import type { IExecuteFunctions } from 'n8n-workflow';

import { requireString } from '../../shared/validation';
import { nodeParameter } from '../../shared/parameters';

/**
 * The v1 `file` string: the URL or reference given as text, or an n8n binary as a base64 data URI
 * (the spec does not say what the string holds; see docs/assumptions.md).
 */
export async function fileUrlOrDataUri(ctx: IExecuteFunctions, itemIndex: number, field: string): Promise<string> {
	const source = nodeParameter(ctx, 'fileSource', itemIndex, 'url') as string;
	if (source !== 'binary') return requireString(ctx, itemIndex, 'fileUrl', field);
	const property = requireString(ctx, itemIndex, 'binaryPropertyName', 'Input Binary Field');
	const binary = ctx.helpers.assertBinaryData(itemIndex, property);
	const buffer = await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
	return `data:${binary.mimeType || 'application/octet-stream'};base64,${buffer.toString('base64')}`;
}
