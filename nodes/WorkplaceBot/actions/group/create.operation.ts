import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { UploadSource } from '../../../shared/binary';
import { buildMultipart, getUploadSource } from '../../../shared/binary';
import { invalidInput, parseCommaList, requireString } from '../../../shared/validation';
import { botRequest } from '../../../shared/transport/botApi';
import { optionsCollection, requiredNameField } from '../../../shared/descriptions/fields';
import { simplifyProperty } from '../../../shared/descriptions/simplify';
import { nodeParameter } from '../../../shared/parameters';

export const description = updateDisplayOptions(
	{ show: { resource: ['group'], operation: ['create'] } },
	[
		requiredNameField('e.g. Project Apollo', 'Name of the new group chat, as its members will see it'),
		{
			displayName: 'Member IDs',
			name: 'memberIds',
			type: 'string',
			default: '',
			placeholder: 'e.g. 64f0a0000000000000000001, 64f0a0000000000000000002',
			description: 'User IDs (uid, not usernames) of the members, separated by commas, or an array from an expression; `_id` from User > Get by Username gives a user\'s ID. The bot is added by itself.',
		},
		optionsCollection([
			{
				displayName: 'Group Picture Binary Field',
				name: 'pictureBinaryPropertyName',
				type: 'string',
				default: '',
				placeholder: 'e.g. data',
				description: 'Name of the input binary field holding the group picture (an image); empty sends none',
			},
			{
				displayName: 'Member IDs Field Name',
				name: 'memberIdsField',
				type: 'string',
				default: 'uids[]',
				description:
					'Multipart field that carries each member ID. The platform documents "uid" and its sample sends repeated "uids[]".',
			},
		]),
		simplifyProperty,
	],
);

function memberIds(ctx: IExecuteFunctions, itemIndex: number): string[] {
	const value = nodeParameter(ctx, 'memberIds', itemIndex, '') as unknown;
	const ids = parseCommaList(value);
	if (ids === undefined) throw invalidInput(ctx, itemIndex, 'Member IDs', 'must be user IDs separated by commas', value);
	return ids;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const name = requireString(this, itemIndex, 'name', 'Name');
	const uids = memberIds(this, itemIndex);
	const options = nodeParameter(this, 'options', itemIndex, {}) as {
		pictureBinaryPropertyName?: string;
		memberIdsField?: string;
	};
	const membersField = (options.memberIdsField ?? 'uids[]').trim() || 'uids[]';
	const pictureProperty = (options.pictureBinaryPropertyName ?? '').trim();
	const files: Record<string, UploadSource> = {};
	if (pictureProperty !== '') files.file = await getUploadSource(this, itemIndex, pictureProperty);

	const { body } = await botRequest(
		this,
		{
			method: 'POST',
			path: '/bot/v1/groups',
			body: async () => await buildMultipart({ name, [membersField]: uids }, files),
		},
		itemIndex,
	);
	return body;
}

export { simplifyCreatedGroup as simplify } from './simplify';
