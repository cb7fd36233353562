import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { captionField, fileSourceFields, userIdField } from '../common.descriptions';
import { directRecipient } from '../recipients';
import { sendFileOrPicture } from '../sendFileOrPicture';

export const description = updateDisplayOptions(
	{ show: { resource: ['directMessage'], operation: ['sendPicture'] } },
	[userIdField, ...fileSourceFields('picture'), captionField],
);

export { directConversationKey as conversationKey } from '../recipients';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const recipient = directRecipient(this, itemIndex);
	return await sendFileOrPicture(this, itemIndex, 'picture', '/bot/v1/direct/picture', recipient);
}

export { FILE_SENDS_AT_ONCE as maxAtOnce } from '../sendFileOrPicture';
