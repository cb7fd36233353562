import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { captionField, fileSourceFields, groupIdField, topicIdField } from '../common.descriptions';
import { groupRecipient } from '../recipients';
import { sendFileOrPicture } from '../sendFileOrPicture';

export const description = updateDisplayOptions(
	{ show: { resource: ['groupMessage'], operation: ['sendPicture'] } },
	[groupIdField, topicIdField, ...fileSourceFields('picture'), captionField],
);

export { groupConversationKey as conversationKey } from '../recipients';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const recipient = groupRecipient(this, itemIndex, { topic: true });
	return await sendFileOrPicture(this, itemIndex, 'picture', '/bot/v1/group/picture', recipient);
}

export { FILE_SENDS_AT_ONCE as maxAtOnce } from '../sendFileOrPicture';
