import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/transport/apiPath';
import { botRequest } from '../../../shared/transport/botApi';
import { userFields } from '../common.descriptions';
import { userId } from '../users';

export const description = updateDisplayOptions(
	{ show: { resource: ['user'], operation: ['getDirectChat'] } },
	userFields,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const uid = await userId(this, itemIndex);
	const { body } = await botRequest(this, { method: 'GET', path: apiPath`/bot/v2/groups/users/${uid}` }, itemIndex);
	return body;
}
