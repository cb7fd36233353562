import type { IDataObject } from 'n8n-workflow';

import { pickFields } from '../../../shared/simplify';

/** The fields of a created form that Simplify Output keeps (the input fields `data` and the stages `responseTiers` are dropped). */
export const FORM_FIELDS = [
	'id',
	'name',
	'subject',
	'status',
	'dueDate',
	'senderUserId',
	'receiverUserIds',
	'responseType',
	'url',
	'createdAt',
	'updatedAt',
] as const;

export function simplifyForm(record: IDataObject): IDataObject {
	return pickFields(record, FORM_FIELDS);
}
