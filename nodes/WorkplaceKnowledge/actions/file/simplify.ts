import type { IDataObject } from 'n8n-workflow';

import { pickFields } from '../../../shared/simplify';

/**
 * The fields of a knowledge file record that Simplify Output keeps: `knowledgeId` is the knowledge
 * base it is in (`sha256` and `metadata` are dropped).
 */
export const KNOWLEDGE_FILE_FIELDS = [
	'id',
	'knowledgeId',
	'name',
	'mimeType',
	'size',
	'status',
	'url',
	'createdAt',
	'updatedAt',
] as const;

export function simplifyKnowledgeFile(record: IDataObject): IDataObject {
	return pickFields(record, KNOWLEDGE_FILE_FIELDS);
}
