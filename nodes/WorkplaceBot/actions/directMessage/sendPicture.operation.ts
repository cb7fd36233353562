import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { captionField, fileSourceFields, userFields } from '../common.descriptions';
import { readUser, resolveUser } from '../users';
import { sendFileOrPicture } from '../sendFileOrPicture';

export const description = updateDisplayOptions(
	{ show: { resource: ['directMessage'], operation: ['sendPicture'] } },
	[...userFields, ...fileSourceFields('picture'), captionField],
);

export { directConversationKey as conversationKey } from '../recipients';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const user = readUser(this, itemIndex);
	const recipient = async () => ({ uid: await resolveUser(this, itemIndex, user) });
	return await sendFileOrPicture(this, itemIndex, 'picture', '/bot/v1/direct/picture', recipient);
}

export { FILE_SENDS_AT_ONCE as maxAtOnce } from '../sendFileOrPicture';
