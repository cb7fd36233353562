import type { INodeProperties } from 'n8n-workflow';

import { requiredTextField } from '../../shared/descriptions/fields';

/** The user, by ID or by username (looked up once per username per run; see ./users.ts). */
const userLocator: INodeProperties = {
	displayName: 'User',
	name: 'userId',
	type: 'resourceLocator',
	default: { mode: 'id', value: '' },
	required: true,
	description:
		'The user, by ID or by username. By ID: the uid, e.g. `_id` from User > Get by Username or `source.userId` of a Workplace Trigger message event. By Username: a username such as alice (not the display name; case does not matter), looked up before sending.',
	modes: [
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 64f0a0000000000000000001',
			validation: [
				{ type: 'regex', properties: { regex: '[^\\s/?#]+', errorMessage: 'Not a valid user ID' } },
			],
		},
		{
			displayName: 'By Username',
			name: 'username',
			type: 'string',
			placeholder: 'e.g. alice',
			hint: 'The username, not the display name; a leading @ is ignored',
		},
	],
};

/** The user an operation acts on: User (by ID or username), parameter `userId`. */
export const userFields: INodeProperties[] = [userLocator];

export const groupIdField: INodeProperties = requiredTextField(
	'Group ID',
	'groupId',
	'e.g. 64f0c0000000000000000001',
	'ID (gid) of the group chat: `group._id` from Group > Create, or `message.groupId` of a Workplace Trigger message event. The bot must be a member.',
);

export const topicIdField: INodeProperties = {
	displayName: 'Topic ID',
	name: 'topicId',
	type: 'string',
	default: '',
	placeholder: 'Leave empty for the main chat',
	description: 'ID (tid) of a topic in the group, e.g. `topic._id` from Group > Create Topic; empty sends to the group\'s main chat',
};

export const textField: INodeProperties = {
	displayName: 'Text',
	name: 'text',
	type: 'string',
	typeOptions: { rows: 3 },
	default: '',
	required: true,
	description: 'The message text, as plain text',
};

export const captionField: INodeProperties = {
	displayName: 'Caption',
	name: 'caption',
	type: 'string',
	default: '',
	description: 'Optional text shown with the picture',
};

/** Picture or file for the v1 send endpoints: a string as the platform takes it, or an n8n binary. */
export function fileSourceFields(kind: 'picture' | 'file'): INodeProperties[] {
	const noun = kind === 'picture' ? 'Picture' : 'File';
	return [
		{
			displayName: `${noun} Source`,
			name: 'fileSource',
			type: 'options',
			options: [
				{
					name: 'URL or Reference',
					value: 'url',
					description: `Send a text the platform resolves, such as a public URL of the ${kind}`,
				},
				{
					name: 'Binary File',
					value: 'binary',
					description: 'Send a binary field of the input item, encoded as a base64 data URI',
				},
			],
			default: 'url',
		},
		{
			displayName: `${noun} URL or Reference`,
			name: 'fileUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://example.com/report.pdf',
			displayOptions: { show: { fileSource: ['url'] } },
			description: `A public URL of the ${kind} (or a reference the platform resolves), sent as given in the "file" field of the request`,
		},
		{
			displayName: 'Input Binary Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			displayOptions: { show: { fileSource: ['binary'] } },
			hint: `The name of the input binary field containing the ${kind}`,
		},
	];
}
