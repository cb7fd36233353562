import type { IDataObject } from 'n8n-workflow';

import { pickFields } from '../../../shared/simplify';

/**
 * The fields of a created task that Simplify Output keeps (`taskDescription`, `checklist`, `tags`
 * and `createdBy` are dropped).
 */
export const TASK_FIELDS = [
	'id',
	'taskTitle',
	'status',
	'priority',
	'dueDate',
	'assigneeId',
	'parentId',
	'isSubtask',
	'url',
	'createdAt',
	'updatedAt',
] as const;

export function simplifyTask(record: IDataObject): IDataObject {
	return pickFields(record, TASK_FIELDS);
}
