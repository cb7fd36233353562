import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { fileSourceFields, groupIdField } from '../common.descriptions';
import { groupRecipient } from '../recipients';
import { sendFileOrPicture } from '../sendFileOrPicture';

// The platform's group file endpoint takes no topic: files go to the main chat.
export const description = updateDisplayOptions(
	{ show: { resource: ['groupMessage'], operation: ['sendFile'] } },
	[groupIdField, ...fileSourceFields('file')],
);

export { groupMainChatConversationKey as conversationKey } from '../recipients';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const recipient = groupRecipient(this, itemIndex, { topic: false });
	return await sendFileOrPicture(this, itemIndex, 'file', '/bot/v1/group/file', recipient);
}

export { FILE_SENDS_AT_ONCE as maxAtOnce } from '../sendFileOrPicture';
