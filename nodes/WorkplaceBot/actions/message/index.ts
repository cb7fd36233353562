import { defineResource } from '../../../shared/resource';
import * as push from './push.operation';
import * as reply from './reply.operation';
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
		reply: {
			module: reply,
			name: 'Reply to Event',
			description:
				'Answer in the conversation (topic, group main chat or direct chat) of the Workplace Trigger event that started this run, or of an event given as JSON; no IDs needed. Long texts are split into several messages.',
			action: 'Reply to an event from the Workplace Trigger in its conversation',
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
