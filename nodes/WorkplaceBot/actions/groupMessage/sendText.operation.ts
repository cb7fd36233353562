import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireId, requireString } from '../../../shared/validation';
import { botRequest } from '../../../shared/botApi';
import { groupIdField, textField, topicIdField } from '../common.descriptions';

export const description = updateDisplayOptions(
	{ show: { resource: ['groupMessage'], operation: ['sendText'] } },
	[groupIdField, topicIdField, textField],
);

/** Topic ID, or '' for the main chat. */
export function topicId(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = String(ctx.getNodeParameter('topicId', itemIndex, '') ?? '').trim();
	return value === '' ? '' : requireId(ctx, itemIndex, 'topicId', 'Topic ID');
}

export function conversationKey(this: IExecuteFunctions, itemIndex: number): string {
	const gid = String(this.getNodeParameter('groupId', itemIndex, '')).trim();
	const tid = String(this.getNodeParameter('topicId', itemIndex, '') ?? '').trim();
	return `thread:${gid}:${tid}`;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const gid = requireId(this, itemIndex, 'groupId', 'Group ID');
	const tid = topicId(this, itemIndex);
	const text = requireString(this, itemIndex, 'text', 'Text');
	const { body } = await botRequest(
		this,
		{ method: 'POST', path: '/bot/v1/group/message', body: { gid, tid, message: { type: 'text', data: text } } },
		itemIndex,
	);
	return body;
}
