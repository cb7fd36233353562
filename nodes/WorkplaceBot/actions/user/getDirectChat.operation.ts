import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/transport/apiPath';
import { botRequest } from '../../../shared/transport/botApi';
import { requireResourceId } from '../../../shared/validation';
import { userIdField } from '../common.descriptions';

export const description = updateDisplayOptions(
	{ show: { resource: ['user'], operation: ['getDirectChat'] } },
	[userIdField],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const uid = requireResourceId(this, itemIndex, 'userId', 'User ID');
	const { body } = await botRequest(this, { method: 'GET', path: apiPath`/bot/v2/groups/users/${uid}` }, itemIndex);
	return body;
}
