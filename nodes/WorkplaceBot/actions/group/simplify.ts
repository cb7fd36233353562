import type { IDataObject } from 'n8n-workflow';

import { pickFields, pickWrapped } from '../../../shared/simplify';

/** The fields of a created group (`{ group }`) that Simplify Output keeps (`settings` is dropped). */
export const GROUP_FIELDS = ['_id', 'name', 'type', 'userCount'] as const;

/** The fields of a group member's info that Simplify Output keeps: those the spec documents. */
export const MEMBER_FIELDS = ['_id', 'firstname', 'lastname', 'avatar', 'network_admin'] as const;

export function simplifyCreatedGroup(body: IDataObject): IDataObject {
	return pickWrapped(body, 'group', GROUP_FIELDS);
}

export function simplifyMember(record: IDataObject): IDataObject {
	return pickFields(record, MEMBER_FIELDS);
}
