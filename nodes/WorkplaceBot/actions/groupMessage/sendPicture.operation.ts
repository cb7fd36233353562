import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireId } from '../../../shared/validation';
import { botRequest } from '../../../shared/botApi';
import { fileSourceFields, groupIdField, topicIdField } from '../common.descriptions';
import { fileUrlOrDataUri } from '../fileUrlOrDataUri';
import { topicId } from './sendText.operation';

export const description = updateDisplayOptions(
	{ show: { resource: ['groupMessage'], operation: ['sendPicture'] } },
	[
		groupIdField,
		topicIdField,
		...fileSourceFields('picture'),
		{
			displayName: 'Caption',
			name: 'caption',
			type: 'string',
			default: '',
			description: 'Text shown with the picture',
		},
	],
);

export { conversationKey } from './sendText.operation';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const gid = requireId(this, itemIndex, 'groupId', 'Group ID');
	const tid = topicId(this, itemIndex);
	const file = await fileUrlOrDataUri(this, itemIndex, 'Picture URL or Reference');
	const caption = this.getNodeParameter('caption', itemIndex, '') as string;
	const { body } = await botRequest(
		this,
		{ method: 'POST', path: '/bot/v1/group/picture', body: { gid, tid, file, caption } },
		itemIndex,
	);
	return body;
}
