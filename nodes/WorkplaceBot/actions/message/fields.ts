import type { INodeProperties } from 'n8n-workflow';

import { entryList } from '../../../shared/descriptions/fields';
import { idLocator } from '../../../shared/descriptions/locator';
import { groupIdField } from '../common.descriptions';
import { messageFields } from './messageFields';
import { optionsProperty, property } from './properties';

const LEAVE_REQUEST = {
	type: 'buttons',
	title: 'Leave request',
	text: 'Approve the request?',
	actions: ['Approve', 'Reject'].map((label) => ({ type: 'postback', label, data: label.toLowerCase() })),
};

export const MESSAGES_JSON_EXAMPLE = JSON.stringify(
	[
		{ type: 'text', text: 'Hello from n8n' },
		{ type: 'template', altText: 'Approve the request?', template: LEAVE_REQUEST },
	],
	null,
	2,
);

const THREAD_DESCRIPTION =
	"ID (tid) of the thread: the group's main chat, one of its topics (`topic._id` from Group > Create Topic)";

/**
 * The messages of a push: "Define Messages", then "Messages" or "Messages (JSON)". Shared by
 * Send to Thread and Reply to Event (read by getMessages in ./messages.ts).
 */
export const messageListFields: INodeProperties[] = [
	optionsProperty(
		'Define Messages',
		'defineMessages',
		[
			{ name: 'Using Fields Below', value: 'fields', description: 'Build the messages in the node' },
			{ name: 'Using JSON', value: 'json', description: 'Give the messages as a JSON list of message objects' },
		],
		'fields',
	),
	entryList('Messages', 'messages', { displayName: 'Message', name: 'message', values: messageFields }, {
		placeholder: 'Add Message',
		description: 'The messages to send, in order',
		sortable: true,
		show: { defineMessages: ['fields'] },
	}),
	property(
		'json',
		'Messages (JSON)',
		'messagesJson',
		'The `messages` list of the request, as the platform documents it: message objects of type text, image, video, audio, imagemap or template, each with an optional quickReply. A single message object is taken as a list of one.',
		{ default: MESSAGES_JSON_EXAMPLE, required: true, show: { defineMessages: ['json'] } },
	),
];

/** The push operation's own fields (shown with resource "message", operation "push"). */
export const pushFields: INodeProperties[] = [
	{
		...groupIdField,
		description:
			'ID (gid) of the group or direct chat, e.g. `gid` of the User resource\'s "Get Direct Chat" or of a message event',
	},
	idLocator({
		displayName: 'Thread',
		name: 'threadId',
		description: `${THREAD_DESCRIPTION}, or a direct chat (\`tid\` from User > Get Direct Chat). "Main Chat" (an empty ID) sends to the group's main chat.`,
		searchListMethod: 'searchThreads',
		placeholder: 'e.g. 64f0d0000000000000000002, empty for the main chat',
		invalidIdMessage: 'Not a valid thread ID',
		required: false,
		dependsOn: ['groupId'],
	}),
	...messageListFields,
];
