import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { botRequest } from '../../../shared/transport/botApi';
import { requireString } from '../../../shared/validation';
import { textField, userFields } from '../common.descriptions';
import { readTextOptions, sendParts, textOptionsField, textParts } from '../textParts';
import { readUser, resolveUser } from '../users';

/** Send Text keeps one message per text unless "Split Messages Longer Than" is set: workflows saved before it send as they did. */
const MAX_LENGTH = 0;

export const description = updateDisplayOptions(
	{ show: { resource: ['directMessage'], operation: ['sendText'] } },
	[...userFields, textField, textOptionsField(MAX_LENGTH)],
);

export { directConversationKey as conversationKey } from '../recipients';

/** One output item per message sent (one unless the text was split). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const user = readUser(this, itemIndex);
	const text = requireString(this, itemIndex, 'text', 'Text');
	const parts = textParts(text, readTextOptions(this, itemIndex, MAX_LENGTH));
	const uid = await resolveUser(this, itemIndex, user);
	return await sendParts(this, itemIndex, parts, async (data) => {
		const { body } = await botRequest<IDataObject>(
			this,
			{ method: 'POST', path: '/bot/v1/direct/message', body: { uid, message: { type: 'text', data } } },
			itemIndex,
		);
		return body;
	});
}
