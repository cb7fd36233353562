import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/transport/apiPath';
import { botRequest } from '../../../shared/transport/botApi';
import { requireId } from '../../../shared/validation';
import { groupIdField, userFields } from '../common.descriptions';
import { readUser, resolveUser } from '../users';
import { simplifyProperty } from '../../../shared/descriptions/simplify';

export const description = updateDisplayOptions(
	{ show: { resource: ['group'], operation: ['getMemberInfo'] } },
	[groupIdField, ...userFields, simplifyProperty],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const gid = requireId(this, itemIndex, 'groupId', 'Group ID');
	const uid = await resolveUser(this, itemIndex, readUser(this, itemIndex));
	const { body } = await botRequest(
		this,
		{ method: 'GET', path: apiPath`/bot/v2/groups/${gid}/users/${uid}/info` },
		itemIndex,
	);
	return body;
}

export { simplifyMember as simplify } from './simplify';
