import { defineResource } from '../../../shared/resource';
import * as create from './create.operation';

export const { operations, description } = defineResource(
	'form',
	{
		create: {
			module: create,
			name: 'Create',
			description:
				'Create a form sent from one user (username) to recipients (usernames), with input fields (text input, radio, action buttons) and optional staged approval. Returns the created form.',
			action: 'Create a form',
		},
	},
	'create',
);
