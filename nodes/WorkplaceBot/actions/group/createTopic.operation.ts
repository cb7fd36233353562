import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/transport/apiPath';
import { botRequest } from '../../../shared/transport/botApi';
import { requireId, requireString } from '../../../shared/validation';
import { groupIdField } from '../common.descriptions';

export const description = updateDisplayOptions(
	{ show: { resource: ['group'], operation: ['createTopic'] } },
	[
		groupIdField,
		{
			displayName: 'Topic Name',
			name: 'topicName',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. Release planning',
			description: 'Name of the new topic, as the group\'s members will see it',
		},
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const gid = requireId(this, itemIndex, 'groupId', 'Group ID');
	const name = requireString(this, itemIndex, 'topicName', 'Topic Name');
	const { body } = await botRequest(
		this,
		{ method: 'POST', path: apiPath`/bot/v1/groups/${gid}/topics`, body: { name } },
		itemIndex,
	);
	return body;
}
