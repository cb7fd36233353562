import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { botRequest } from '../../../shared/transport/botApi';
import { requireString } from '../../../shared/validation';
import { groupIdField, textField, topicIdField } from '../common.descriptions';
import { groupRecipient } from '../recipients';

export const description = updateDisplayOptions(
	{ show: { resource: ['groupMessage'], operation: ['sendText'] } },
	[groupIdField, topicIdField, textField],
);

export { groupConversationKey as conversationKey } from '../recipients';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const { gid, tid } = groupRecipient(this, itemIndex, { topic: true });
	const text = requireString(this, itemIndex, 'text', 'Text');
	const { body } = await botRequest(
		this,
		{ method: 'POST', path: '/bot/v1/group/message', body: { gid, tid, message: { type: 'text', data: text } } },
		itemIndex,
	);
	return body;
}
