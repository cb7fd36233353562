import { defineResource } from '../../../shared/resource';
import * as sendFile from './sendFile.operation';
import * as sendPicture from './sendPicture.operation';
import * as sendText from './sendText.operation';

export const { operations, description } = defineResource('groupMessage', { sendText, sendPicture, sendFile }, {
	options: [
		{
			name: 'Send File',
			value: 'sendFile',
			description: "Send a file to a group's main chat",
			action: 'Send a file to a group',
		},
		{
			name: 'Send Picture',
			value: 'sendPicture',
			description: "Send a picture with an optional caption to a group's main chat or one of its topics",
			action: 'Send a picture to a group',
		},
		{
			name: 'Send Text',
			value: 'sendText',
			description: "Send a text message to a group's main chat or one of its topics",
			action: 'Send a text message to a group',
		},
	],
	default: 'sendText',
});
