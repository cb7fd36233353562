import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireId } from '../../../shared/validation';
import { botRequest } from '../../../shared/botApi';
import { fileSourceFields, userIdField } from '../common.descriptions';
import { fileUrlOrDataUri } from '../fileUrlOrDataUri';

export const description = updateDisplayOptions(
	{ show: { resource: ['directMessage'], operation: ['sendPicture'] } },
	[
		userIdField,
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
	const uid = requireId(this, itemIndex, 'userId', 'User ID');
	const file = await fileUrlOrDataUri(this, itemIndex, 'Picture URL or Reference');
	const caption = this.getNodeParameter('caption', itemIndex, '') as string;
	const { body } = await botRequest(
		this,
		{ method: 'POST', path: '/bot/v1/direct/picture', body: { uid, file, caption } },
		itemIndex,
	);
	return body;
}
