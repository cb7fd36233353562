import { randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { invalidInput, parseJsonObject, requireInteger, requireString } from '../../../shared/validation';
import { DATE_FORMS_HINT, parseDateInput, toIsoUtc } from '../../../shared/dates';
import { createTaskRequest } from '../../transport';

/** The spec's recommended limits (Limits: task title, task description). */
export const TASK_TITLE_MAX = 200;
export const TASK_DESCRIPTION_MAX = 5000;

const PRIORITIES: Record<string, number> = { high: 1, medium: 2, low: 3 };

const properties: INodeProperties[] = [
	{
		displayName: 'Title',
		name: 'taskTitle',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Prepare the Q3 budget review',
		description: `Title of the task (taskTitle). At most ${TASK_TITLE_MAX} characters unless "Allow Longer Title and Description" is on.`,
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
			{ name: 'High', value: 'high', description: 'Sends priority 1' },
			{ name: 'Low', value: 'low', description: 'Sends priority 3' },
			{ name: 'Medium', value: 'medium', description: 'Sends priority 2' },
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
			{
				displayName: 'Additional Fields (JSON)',
				name: 'additionalJson',
				type: 'json',
				default: '{}',
				description:
					'Further fields to send in the request body, as a JSON object (e.g. {"tags": ["finance"]}). Fields set above take precedence.',
			},
			{
				displayName: 'Assignee ID',
				name: 'assigneeId',
				type: 'string',
				default: '',
				placeholder: 'e.g. 64f0a0000000000000000002',
				description: 'User ID (not the username) of the person the task is assigned to',
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
				description: `Details of the task. At most ${TASK_DESCRIPTION_MAX} characters unless "Allow Longer Title and Description" is on.`,
			},
			{
				displayName: 'Due Date',
				name: 'dueDate',
				type: 'dateTime',
				default: '',
				description:
					"When the task is due. Sent as ISO 8601 in UTC; a date or time without a time zone is read in the workflow's time zone.",
			},
			{
				displayName: 'Parent ID',
				name: 'parentId',
				type: 'string',
				default: '',
				placeholder: 'e.g. task-0001',
				description: 'ID of a parent task or topic. When set, the new task is created as its subtask.',
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
				displayName: 'Allow Longer Title and Description',
				name: 'allowLongText',
				type: 'boolean',
				default: false,
				description: `Whether to send a title over ${TASK_TITLE_MAX} or a description over ${TASK_DESCRIPTION_MAX} characters instead of failing before the request (the platform only recommends these limits)`,
			},
			{
				displayName: 'Idempotency Key',
				name: 'idempotencyKey',
				type: 'string',
				default: '',
				description:
					'Sent in the Idempotency-Key header: the platform creates one task per key and answers a repeat with the first result. Empty: a new random key per item and run, reused only when the node retries the item. Set one (e.g. from an order number) to avoid duplicates across executions too.',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['task'], operation: ['create'] } },
	properties,
);

const characters = (text: string) => [...text].length;

function optionalText(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(value);
	return text.trim() === '' ? undefined : text;
}

function priorityValue(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	const priority = ctx.getNodeParameter('priority', itemIndex, 'none') as unknown;
	if (priority === 'none' || priority === '' || priority === undefined) return undefined;
	if (typeof priority === 'string' && priority in PRIORITIES) return PRIORITIES[priority];
	if (priority === 'custom') {
		const custom = ctx.getNodeParameter('customPriority', itemIndex, undefined) as unknown;
		return requireInteger(ctx, itemIndex, 'Custom Priority', custom, { min: 0 });
	}
	// An expression may give the number itself.
	return requireInteger(ctx, itemIndex, 'Priority', priority, { min: 0 });
}

function checklistValue(ctx: IExecuteFunctions, itemIndex: number, raw: unknown): IDataObject[] | undefined {
	const entries = (raw as { item?: IDataObject[] } | undefined)?.item;
	if (!Array.isArray(entries) || entries.length === 0) return undefined;
	return entries.map((entry, i) => {
		const text = entry.description;
		if (typeof text !== 'string' || text.trim() === '') {
			throw invalidInput(ctx, itemIndex, `Checklist › Item ${i + 1} › Description`, 'must not be empty', text);
		}
		const done = entry.isDone ?? false;
		if (typeof done !== 'boolean') {
			throw invalidInput(ctx, itemIndex, `Checklist › Item ${i + 1} › Done`, 'must be true or false', done);
		}
		return { description: text, isDone: done };
	});
}

/** Checks the final body (after Additional Fields (JSON)) against the spec's rules. */
function checkBody(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, allowLongText: boolean): void {
	const title = body.taskTitle;
	if (typeof title !== 'string') throw invalidInput(ctx, itemIndex, 'Title', 'must be text', title);
	if (!allowLongText && characters(title) > TASK_TITLE_MAX) {
		throw invalidInput(
			ctx,
			itemIndex,
			'Title',
			`must be at most ${TASK_TITLE_MAX} characters (it has ${characters(title)}; turn on "Allow Longer Title and Description" to send it anyway)`,
			title,
		);
	}
	const text = body.taskDescription;
	if (text !== undefined && text !== null) {
		if (typeof text !== 'string') throw invalidInput(ctx, itemIndex, 'Description', 'must be text', text);
		if (!allowLongText && characters(text) > TASK_DESCRIPTION_MAX) {
			throw invalidInput(
				ctx,
				itemIndex,
				'Description',
				`must be at most ${TASK_DESCRIPTION_MAX} characters (it has ${characters(text)}; turn on "Allow Longer Title and Description" to send it anyway)`,
				text,
			);
		}
	}
	if (body.priority !== undefined && body.priority !== null) {
		requireInteger(ctx, itemIndex, 'Priority', body.priority);
	}
	const checklist = body.checklist;
	if (checklist !== undefined && checklist !== null) {
		if (!Array.isArray(checklist)) {
			throw invalidInput(ctx, itemIndex, 'Checklist', 'must be a list of {description, isDone}', checklist);
		}
		checklist.forEach((entry: unknown, i) => {
			const label = `Checklist › Item ${i + 1}`;
			if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
				throw invalidInput(ctx, itemIndex, label, 'must be an object {description, isDone}', entry);
			}
			const { description: text, isDone } = entry as IDataObject;
			if (typeof text !== 'string' || text.trim() === '') {
				throw invalidInput(ctx, itemIndex, `${label} › Description`, 'must be non-empty text', text);
			}
			if (typeof isDone !== 'boolean') {
				throw invalidInput(ctx, itemIndex, `${label} › Done (isDone)`, 'must be true or false', isDone);
			}
		});
	}
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const taskTitle = requireString(this, itemIndex, 'taskTitle', 'Title');
	const priority = priorityValue(this, itemIndex);
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;

	const fields: IDataObject = { taskTitle };
	const taskDescription = optionalText(additional.taskDescription);
	if (taskDescription !== undefined) fields.taskDescription = taskDescription;
	if (priority !== undefined) fields.priority = priority;
	const due = additional.dueDate;
	if (due !== undefined && due !== null && !(typeof due === 'string' && due.trim() === '')) {
		const parsed = parseDateInput(due);
		if (parsed === undefined) throw invalidInput(this, itemIndex, 'Due Date', `must be ${DATE_FORMS_HINT}`, due);
		fields.dueDate = toIsoUtc(parsed, this.getTimezone());
	}
	const assigneeId = optionalText(additional.assigneeId)?.trim();
	if (assigneeId !== undefined) fields.assigneeId = assigneeId;
	const checklist = checklistValue(this, itemIndex, additional.checklist);
	if (checklist !== undefined) fields.checklist = checklist;
	const parentId = optionalText(additional.parentId)?.trim();
	if (parentId !== undefined) fields.parentId = parentId;

	const body: IDataObject = {
		...parseJsonObject(this, itemIndex, 'Additional Fields (JSON)', additional.additionalJson),
		...fields,
	};
	checkBody(this, itemIndex, body, options.allowLongText === true);

	const idempotencyKey = optionalText(options.idempotencyKey)?.trim() ?? randomUUID();
	const { body: created } = await createTaskRequest(this, body, idempotencyKey, itemIndex);
	return created;
}
