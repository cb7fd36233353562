import { defineResource } from '../../../shared/resource';
import * as del from './delete.operation';
import * as download from './download.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as replace from './replace.operation';
import * as upload from './upload.operation';

export const { operations, description } = defineResource(
	'file',
	{
		delete: {
			module: del,
			name: 'Delete',
			description:
				'Delete a file from a knowledge base by its ID. This cannot be undone.',
			action: 'Delete a file',
		},
		download: {
			module: download,
			name: 'Download',
			description:
				'Download the content of a file into a binary field of the output item',
			action: 'Download a file',
		},
		get: {
			module: get,
			name: 'Get',
			description:
				'Get the details of one file in a knowledge base (name, type, size, status), by the knowledge base and file IDs',
			action: 'Get a file',
		},
		getAll: {
			module: getAll,
			name: 'Get Many',
			description:
				'List the files of a knowledge base with their IDs, names, types and sizes, up to a limit or every one (Return All)',
			action: 'Get many files',
		},
		replace: {
			module: replace,
			name: 'Replace',
			description:
				'Replace the content of a file, given by its ID, with a binary file from the input item',
			action: 'Replace a file',
		},
		upload: {
			module: upload,
			name: 'Upload',
			description:
				'Upload a binary file from the input item into a knowledge base; returns the new file with its ID',
			action: 'Upload a file',
		},
	},
	'upload',
);
