import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { additionalJsonOption } from '../../../shared/descriptions/fields';
import { simplifyProperty } from '../../../shared/descriptions/simplify';
import { PRIORITIES } from './body';
import {
	ENFORCE_LIMITS_NAME,
	TASK_ATTACHMENTS_MAX,
	TASK_DESCRIPTION_MAX,
	TASK_IMAGES_MAX,
	TASK_TAGS_MAX,
	TASK_TITLE_MAX,
} from './validate';

const properties: INodeProperties[] = [
	{
		displayName: 'Title',
		name: 'taskTitle',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Prepare the Q3 budget review',
		description: `Title of the task (taskTitle). The platform recommends at most ${TASK_TITLE_MAX} characters: a longer title fails before sending unless Options > "${ENFORCE_LIMITS_NAME}" is off.`,
	},
	{
		displayName: 'Priority',
		name: 'priority',
		type: 'options',
		options: [
			{
				name: 'Custom Number',
				value: 'custom',
				description: 'Send another number, for a platform whose priority scale differs',
			},
			{ name: 'High', value: 'high', description: `Sends priority ${PRIORITIES.high}` },
			{ name: 'Low', value: 'low', description: `Sends priority ${PRIORITIES.low}` },
			{ name: 'Medium', value: 'medium', description: `Sends priority ${PRIORITIES.medium}` },
			{ name: 'Platform Default', value: 'none', description: 'Send no priority' },
		],
		default: 'none',
		description:
			'Priority of the task. The platform commonly uses 1 = High, 2 = Medium, 3 = Low; the exact mapping may vary, so a custom number can be sent instead.',
	},
	{
		displayName: 'Custom Priority',
		name: 'customPriority',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 2,
		displayOptions: { show: { priority: ['custom'] } },
		description: 'The priority number to send as it is, e.g. 1 for the most urgent',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add field',
		default: {},
		options: [
			additionalJsonOption(
				`Further fields to send in the request body, as a JSON object (e.g. {"tags": ["finance"]}). Fields set above take precedence. The platform recommends at most ${TASK_TAGS_MAX} tags and ${TASK_IMAGES_MAX} images and ${TASK_ATTACHMENTS_MAX} attachments (lists "tags", "images", "attachments").`,
			),
			{
				displayName: 'Assignee ID',
				name: 'assigneeId',
				type: 'string',
				default: '',
				placeholder: 'e.g. 64f0a0000000000000000002',
				description: 'User ID (not the username) of the person the task is assigned to, e.g. `_id` from Workplace Bot > User > Get by Username',
			},
			{
				displayName: 'Checklist',
				name: 'checklist',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true, sortable: true },
				default: {},
				placeholder: 'Add checklist item',
				description: 'Steps of the task, in order',
				options: [
					{
						displayName: 'Item',
						name: 'item',
						values: [
							{
								displayName: 'Description',
								name: 'description',
								type: 'string',
								default: '',
								description: 'What needs to be done',
							},
							{
								displayName: 'Done',
								name: 'isDone',
								type: 'boolean',
								default: false,
								description: 'Whether the step is already done',
							},
						],
					},
				],
			},
			{
				displayName: 'Description',
				name: 'taskDescription',
				type: 'string',
				typeOptions: { rows: 4 },
				default: '',
				description: `Details of the task. The platform recommends at most ${TASK_DESCRIPTION_MAX} characters: a longer description fails before sending unless Options > "${ENFORCE_LIMITS_NAME}" is off.`,
			},
			{
				displayName: 'Due Date',
				name: 'dueDate',
				type: 'dateTime',
				default: '',
				description:
					"When the task is due, as an ISO 8601 date-time with offset (e.g. 2025-04-30T17:00:00+02:00); sent in UTC. A value without an offset is read in the workflow's time zone.",
			},
			{
				displayName: 'Parent ID',
				name: 'parentId',
				type: 'string',
				default: '',
				placeholder: 'e.g. task-0001',
				description: 'ID of a parent task (the ID in the output of a task this node created) or of a task topic. When set, the new task is created as its subtask.',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: ENFORCE_LIMITS_NAME,
				name: 'enforceRecommendedLimits',
				type: 'boolean',
				default: true,
				description: `Whether to fail before sending when the task is over a limit the platform recommends: title ${TASK_TITLE_MAX} characters, description ${TASK_DESCRIPTION_MAX} characters, ${TASK_TAGS_MAX} tags, ${TASK_IMAGES_MAX} images and ${TASK_ATTACHMENTS_MAX} attachments (12 in total). Off: the task is sent as given and the platform decides.`,
			},
			{
				displayName: 'Idempotency Key',
				name: 'idempotencyKey',
				type: 'string',
				default: '',
				description:
					'Sent in the Idempotency-Key header (surrounding spaces removed), and wins over the derived key. A platform that honours it creates one task per key and answers a repeat with the first result. Empty: a key derived from the execution, the node, its run, the item and the request body, so the node setting Retry On Fail sends the same key again, while another execution, item, body or loop run gets a new one.',
			},
			{
				displayName: 'Retry After Server Errors (Platform Honours the Key)',
				name: 'retryWithIdempotencyKey',
				type: 'boolean',
				default: false,
				description:
					'Whether to send a create again, with the same Idempotency-Key, after a 5xx answer or a lost connection (up to Request Options > Max Server Error Retries). Turn on only for a platform known to honour the key: the API documentation does not promise it, and a platform that ignores it creates the task twice. Off: a create is sent once, and a 429 (not processed) is still waited out and retried.',
			},
		],
	},
	simplifyProperty,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['task'], operation: ['create'] } },
	properties,
);
