import { defineResource } from '../../../shared/resource';
import * as download from './download.operation';

export const { operations, description } = defineResource(
	'image',
	{
		download: {
			module: download,
			name: 'Download',
			description:
				'Download a picture a user sent to the bot into a binary field',
			action: 'Download a picture a user sent',
		},
	},
	'download',
);
