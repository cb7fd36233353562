import { defineResource } from '../../../shared/resource';
import * as create from './create.operation';
import * as createTopic from './createTopic.operation';
import * as getMemberInfo from './getMemberInfo.operation';

export const { operations, description } = defineResource(
	'group',
	{
		create: {
			module: create,
			name: 'Create',
			description:
				'Create a group chat with members (user IDs) and an optional group picture; returns the group with its ID (group._id)',
			action: 'Create a group chat',
		},
		createTopic: {
			module: createTopic,
			name: 'Create Topic',
			description:
				'Create a topic (a sub-thread) in a group chat given by its ID; returns the topic with its ID (topic._id)',
			action: 'Create a topic in a group',
		},
		getMemberInfo: {
			module: getMemberInfo,
			name: 'Get Member Info',
			description:
				'Get name, avatar and admin flag of a member of a group; both the user and the bot must be in the group',
			action: 'Get info on a group member',
		},
	},
	'create',
);
