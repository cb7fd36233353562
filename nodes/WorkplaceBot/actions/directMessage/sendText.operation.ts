import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { botRequest } from '../../../shared/transport/botApi';
import { requireString } from '../../../shared/validation';
import { textField, userIdField } from '../common.descriptions';
import { directRecipient } from '../recipients';

export const description = updateDisplayOptions(
	{ show: { resource: ['directMessage'], operation: ['sendText'] } },
	[userIdField, textField],
);

export { directConversationKey as conversationKey } from '../recipients';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const { uid } = directRecipient(this, itemIndex);
	const text = requireString(this, itemIndex, 'text', 'Text');
	const { body } = await botRequest(
		this,
		{ method: 'POST', path: '/bot/v1/direct/message', body: { uid, message: { type: 'text', data: text } } },
		itemIndex,
	);
	return body;
}
