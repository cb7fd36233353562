import type { IDataObject } from 'n8n-workflow';

import { pickFields } from '../../../shared/simplify';

/** The fields of a knowledge base record that Simplify Output keeps (`metadata` is dropped). */
export const KNOWLEDGE_BASE_FIELDS = ['id', 'name', 'description', 'fileCount', 'url', 'createdAt', 'updatedAt'] as const;

export function simplifyKnowledgeBase(record: IDataObject): IDataObject {
	return pickFields(record, KNOWLEDGE_BASE_FIELDS);
}
