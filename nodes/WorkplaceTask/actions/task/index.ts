import { defineResource } from '../../../shared/resource';
import * as create from './create.operation';

export const { operations, description } = defineResource(
	'task',
	{
		create: {
			module: create,
			name: 'Create',
			description:
				'Create a task in a task project, with optional description, priority, due date, assignee (user ID), checklist, and parent task or topic (creates a subtask). Returns the created task.',
			action: 'Create a task',
		},
	},
	'create',
);
