import { defineResource } from '../../../shared/resource';
import * as getByUsername from './getByUsername.operation';
import * as getDirectChat from './getDirectChat.operation';

export const { operations, description } = defineResource(
	'user',
	{
		getByUsername: {
			module: getByUsername,
			name: 'Get by Username',
			description:
				'Look up a user (ID, name, email, position) by username; outputs nothing when no user has it',
			action: 'Get a user by username',
		},
		getDirectChat: {
			module: getDirectChat,
			name: 'Get Direct Chat',
			description:
				'Get the group ID (gid) and thread ID (tid) of the direct chat between the bot and a user, creating it when missing; use them with Message > Send to Thread',
			action: 'Get or create the direct chat with a user',
		},
	},
	'getByUsername',
);
