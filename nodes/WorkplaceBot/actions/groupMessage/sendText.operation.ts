import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireString } from '../../../shared/validation';
import { groupIdField, textField, topicIdField } from '../common.descriptions';
import { groupRecipient } from '../recipients';
import { readTextOptions, sendTextToThread, textOptionsField, textParts } from '../textParts';

/** Send Text keeps one message per text unless "Split Messages Longer Than" is set: workflows saved before it send as they did. */
const MAX_LENGTH = 0;

export const description = updateDisplayOptions(
	{ show: { resource: ['groupMessage'], operation: ['sendText'] } },
	[groupIdField, topicIdField, textField, textOptionsField(MAX_LENGTH)],
);

export { groupConversationKey as conversationKey } from '../recipients';

/** One output item per message sent (one unless the text was split). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const { gid, tid } = groupRecipient(this, itemIndex, { topic: true });
	const text = requireString(this, itemIndex, 'text', 'Text');
	const parts = textParts(text, readTextOptions(this, itemIndex, MAX_LENGTH));
	return await sendTextToThread(this, itemIndex, { gid, tid: tid ?? '' }, parts);
}
