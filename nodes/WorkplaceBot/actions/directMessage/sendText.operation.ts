import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { botRequest } from '../../../shared/transport/botApi';
import { requireString } from '../../../shared/validation';
import { textField, userFields } from '../common.descriptions';
import { readUser, resolveUser } from '../users';

export const description = updateDisplayOptions(
	{ show: { resource: ['directMessage'], operation: ['sendText'] } },
	[...userFields, textField],
);

export { directConversationKey as conversationKey } from '../recipients';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const user = readUser(this, itemIndex);
	const text = requireString(this, itemIndex, 'text', 'Text');
	const uid = await resolveUser(this, itemIndex, user);
	const { body } = await botRequest(
		this,
		{ method: 'POST', path: '/bot/v1/direct/message', body: { uid, message: { type: 'text', data: text } } },
		itemIndex,
	);
	return body;
}
