import { defineResource } from '../../../shared/resource';
import * as push from './push.operation';
import * as sendAndWait from './sendAndWait.operation';

export const { operations, description } = defineResource(
	'message',
	{
		push: {
			module: push,
			name: 'Send to Thread',
			description:
				'Send one or more rich messages (text, image, video, audio, imagemap, buttons or carousel template, with optional quick replies) to a group thread, topic or direct chat',
			action: 'Send messages to a thread',
		},
		sendAndWait: {
			module: sendAndWait,
			name: 'Send and Wait for Response',
			description:
				'Send a message with buttons to a user or a group thread and wait for the answer (approval, free text or a form)',
			action: 'Send message and wait for response',
		},
	},
	'push',
);
