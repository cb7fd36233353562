import type { IExecuteFunctions } from 'n8n-workflow';

import { apiPath } from '../../../shared/transport/apiPath';
import { requireId } from '../../../shared/validation';

/** The file an item works on: its knowledge base, its ID and its path on the platform. */
export interface FileAddress {
	knowledgeBaseId: string;
	fileId: string;
	/** `/knowledge/{id}/files/{fileId}`, IDs encoded. */
	path: string;
}

/** Reads the Knowledge Base and File pickers of one item. */
export function readFileAddress(ctx: IExecuteFunctions, itemIndex: number): FileAddress {
	const knowledgeBaseId = requireId(ctx, itemIndex, 'knowledgeBaseId', 'Knowledge Base');
	const fileId = requireId(ctx, itemIndex, 'fileId', 'File');
	return { knowledgeBaseId, fileId, path: apiPath`/knowledge/${knowledgeBaseId}/files/${fileId}` };
}
