import type { IDataObject } from 'n8n-workflow';

import { pickFields } from '../../../shared/simplify';

/** The fields of a user found by username that Simplify Output keeps: those the spec documents. */
export const USER_FIELDS = ['_id', 'username', 'email', 'firstname', 'lastname', 'position', 'deleted'] as const;

export function simplifyUser(record: IDataObject): IDataObject {
	return pickFields(record, USER_FIELDS);
}
