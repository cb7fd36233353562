import { defineResource } from '../../../shared/resource';
import * as sendFile from './sendFile.operation';
import * as sendPicture from './sendPicture.operation';
import * as sendText from './sendText.operation';

export const { operations, description } = defineResource(
	'groupMessage',
	{
		sendFile: {
			module: sendFile,
			name: 'Send File',
			description:
				"Send a file (a URL or a binary field) to a group's main chat, by group ID; files cannot go to a topic",
			action: 'Send a file to a group',
		},
		sendPicture: {
			module: sendPicture,
			name: 'Send Picture',
			description:
				"Send a picture (a URL or a binary field) with an optional caption to a group's main chat or one of its topics, by group ID",
			action: 'Send a picture to a group',
		},
		sendText: {
			module: sendText,
			name: 'Send Text',
			description:
				"Send a text message to a group's main chat or one of its topics, by group ID (gid) and optional topic ID (tid)",
			action: 'Send a text message to a group',
		},
	},
	'sendText',
);
