import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireId } from '../../../shared/validation';
import { botRequest } from '../../../shared/botApi';
import { fileSourceFields, groupIdField } from '../common.descriptions';
import { fileUrlOrDataUri } from '../fileUrlOrDataUri';

// The platform's group file endpoint takes no topic: files go to the main chat.
export const description = updateDisplayOptions(
	{ show: { resource: ['groupMessage'], operation: ['sendFile'] } },
	[groupIdField, ...fileSourceFields('file')],
);

export function conversationKey(this: IExecuteFunctions, itemIndex: number): string {
	return `thread:${String(this.getNodeParameter('groupId', itemIndex, '')).trim()}:`;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const gid = requireId(this, itemIndex, 'groupId', 'Group ID');
	const file = await fileUrlOrDataUri(this, itemIndex, 'File URL or Reference');
	const { body } = await botRequest(
		this,
		{ method: 'POST', path: '/bot/v1/group/file', body: { gid, file } },
		itemIndex,
	);
	return body;
}
