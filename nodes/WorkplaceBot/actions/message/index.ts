import { defineResource } from '../../../shared/resource';
import * as push from './push.operation';

export const { operations, description } = defineResource('message', { push }, {
	options: [
		{
			name: 'Send to Thread',
			value: 'push',
			description:
				'Send one or more rich messages (text, image, video, audio, imagemap, buttons or carousel template, with optional quick replies) to a group thread, topic or direct chat',
			action: 'Send messages to a thread',
		},
	],
	default: 'push',
});
