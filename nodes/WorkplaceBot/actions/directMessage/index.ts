import { defineResource } from '../../../shared/resource';
import * as sendFile from './sendFile.operation';
import * as sendPicture from './sendPicture.operation';
import * as sendText from './sendText.operation';

export const { operations, description } = defineResource(
	'directMessage',
	{
		sendFile: {
			module: sendFile,
			name: 'Send File',
			description:
				"Send a file (a URL or a binary field) to a user's direct chat with the bot, by user ID or username",
			action: 'Send a file to a user',
		},
		sendPicture: {
			module: sendPicture,
			name: 'Send Picture',
			description:
				"Send a picture (a URL or a binary field) with an optional caption to a user's direct chat with the bot, by user ID or username",
			action: 'Send a picture to a user',
		},
		sendText: {
			module: sendText,
			name: 'Send Text',
			description:
				"Send a text message to a user's direct chat with the bot, by user ID or username",
			action: 'Send a text message to a user',
		},
	},
	'sendText',
);
