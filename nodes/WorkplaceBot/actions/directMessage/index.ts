import { defineResource } from '../../../shared/resource';
import * as sendFile from './sendFile.operation';
import * as sendPicture from './sendPicture.operation';
import * as sendText from './sendText.operation';

export const { operations, description } = defineResource('directMessage', { sendText, sendPicture, sendFile }, {
	options: [
		{
			name: 'Send File',
			value: 'sendFile',
			description: "Send a file (a URL or a binary field) to a user's direct chat with the bot, by user ID or username",
			action: 'Send a file to a user',
		},
		{
			name: 'Send Picture',
			value: 'sendPicture',
			description: "Send a picture (a URL or a binary field) with an optional caption to a user's direct chat with the bot, by user ID or username",
			action: 'Send a picture to a user',
		},
		{
			name: 'Send Text',
			value: 'sendText',
			description: "Send a text message to a user's direct chat with the bot, by user ID or username",
			action: 'Send a text message to a user',
		},
	],
	default: 'sendText',
});
