import { defineResource } from '../../../shared/resource';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const { operations, description } = defineResource(
	'knowledgeBase',
	{
		create: {
			module: create,
			name: 'Create',
			description:
				'Create a knowledge base with a name and optional description; returns it with its new ID',
			action: 'Create a knowledge base',
		},
		delete: {
			module: del,
			name: 'Delete',
			description:
				'Delete a knowledge base by its ID, with all its files. This cannot be undone.',
			action: 'Delete a knowledge base',
		},
		get: {
			module: get,
			name: 'Get',
			description:
				'Get one knowledge base (name, description, file count, dates) by its ID',
			action: 'Get a knowledge base',
		},
		getAll: {
			module: getAll,
			name: 'Get Many',
			description:
				'List knowledge bases with their IDs and names, up to a limit or every one (Return All); start here to find a knowledge base ID',
			action: 'Get many knowledge bases',
		},
		update: {
			module: update,
			name: 'Update',
			description:
				'Change the name, description or other fields of a knowledge base given by its ID; fields not set stay as they are',
			action: 'Update a knowledge base',
		},
	},
	'getAll',
);
