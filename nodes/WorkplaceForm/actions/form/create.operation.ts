import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { invalidInput, parseJsonObject } from '../../../shared/validation';
import { DATE_FORMS_HINT, parseDateInput, toDateOnly, toIsoUtc } from '../../../shared/dates';
import { checkFormBody } from '../../validate';
import { formRequest } from '../../transport';

const FORM_STATUS_OPTIONS = [
	{ name: 'Completed', value: 'completed' },
	{ name: 'Drafted', value: 'drafted' },
	{ name: 'Published', value: 'published' },
	{ name: 'Submitted', value: 'submitted' },
];

const TIER_STATUS_OPTIONS = [
	{ name: 'Approved', value: 'approved' },
	{ name: 'Canceled', value: 'canceled' },
	{ name: 'Drafted', value: 'drafted' },
	{ name: 'Mixed', value: 'mixed' },
	{ name: 'Rejected', value: 'rejected' },
	{ name: 'Submitted', value: 'submitted' },
];

const EXAMPLE_JSON = `{
  "name": "Purchase request",
  "subject": "Please approve this purchase",
  "dueDate": "2025-12-31",
  "senderUserId": "alice",
  "receiverUserIds": ["bob"],
  "status": "submitted",
  "data": [
    { "type": "textinput", "name": "Amount", "value": "", "meta": {}, "editable": true }
  ]
}`;

const formFieldsProperty: INodeProperties = {
	displayName: 'Form Fields',
	name: 'formFields',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true, sortable: true },
	default: {},
	placeholder: 'Add form field',
	description: 'The inputs of the form (data), in order. At least one is required.',
	options: [
		{
			displayName: 'Field',
			name: 'field',
			values: [
				{
					displayName: 'Action Options',
					name: 'actionOptions',
					type: 'fixedCollection',
					typeOptions: { multipleValues: true, sortable: true },
					default: {},
					placeholder: 'Add action',
					displayOptions: { show: { type: ['action'] } },
					options: [
						{
							displayName: 'Action',
							name: 'option',
							values: [
								{ displayName: 'Label', name: 'label', type: 'string', default: '' },
								{
									displayName: 'Type',
									name: 'type',
									type: 'options',
									options: [
										{ name: 'Approved', value: 'approved' },
										{ name: 'Rejected', value: 'rejected' },
										{ name: 'Other', value: 'other' },
									],
									default: 'approved',
									description: 'What choosing this action means (sent as the option type)',
								},
								{
									displayName: 'Value',
									name: 'value',
									type: 'string',
									default: '',
									description: 'Optional value of the action; empty: not sent',
								},
								{
									displayName: 'Color',
									name: 'color',
									type: 'color',
									default: '',
									description: 'Optional button color as a hex value such as #16A34A',
								},
							],
						},
					],
				},
				{
					displayName: 'Editable',
					name: 'editable',
					type: 'boolean',
					default: true,
					displayOptions: { show: { type: ['textinput'] } },
					description: 'Whether the recipient can change the text',
				},
				{
					displayName: 'Field (JSON)',
					name: 'fieldJson',
					type: 'json',
					default: '{\n  "type": "textarea",\n  "name": "Comments",\n  "meta": {}\n}',
					displayOptions: { show: { type: ['json'] } },
					description: 'The whole field object: type, name, and value, meta or editable as the type needs',
				},
				{
					displayName: 'Label',
					name: 'name',
					type: 'string',
					default: '',
					displayOptions: { show: { type: ['textinput', 'radio', 'action'] } },
					description: 'Label of the field (sent as its name)',
				},
				{
					displayName: 'Preset Value',
					name: 'value',
					type: 'string',
					default: '',
					displayOptions: { show: { type: ['textinput'] } },
					description: 'Text filled in beforehand; leave empty for none',
				},
				{
					displayName: 'Radio Options',
					name: 'radioOptions',
					type: 'fixedCollection',
					typeOptions: { multipleValues: true, sortable: true },
					default: {},
					placeholder: 'Add option',
					displayOptions: { show: { type: ['radio'] } },
					options: [
						{
							displayName: 'Option',
							name: 'option',
							values: [
								{ displayName: 'Label', name: 'label', type: 'string', default: '' },
								{
									displayName: 'Value',
									name: 'value',
									type: 'string',
									default: '',
									description: 'Value recorded when this option is picked; empty: the label',
								},
							],
						},
					],
				},
				{
					displayName: 'Type',
					name: 'type',
					type: 'options',
					options: [
						{ name: 'Text Input', value: 'textinput', description: 'A text box' },
						{ name: 'Radio', value: 'radio', description: 'Pick one of several options' },
						{
							name: 'Action',
							value: 'action',
							description: 'Buttons that answer the form, e.g. Approve and Reject',
						},
						{
							name: 'Other (JSON)',
							value: 'json',
							description: 'Any other field type, given as the whole field object in JSON',
						},
					],
					default: 'textinput',
				},
			],
		},
	],
};

const approvalStagesProperty: INodeProperties = {
	displayName: 'Approval Stages',
	name: 'stages',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true, sortable: true },
	default: {},
	placeholder: 'Add stage',
	description: 'The stages of the approval (responseTiers), first stage first',
	displayOptions: { show: { approval: ['staged'] } },
	options: [
		{
			displayName: 'Stage',
			name: 'stage',
			values: [
				{
					displayName: 'Title',
					name: 'title',
					type: 'string',
					default: '',
					placeholder: 'e.g. Manager approval',
				},
				{
					displayName: 'Tier',
					name: 'tier',
					type: 'number',
					typeOptions: { numberPrecision: 0 },
					default: 0,
					description:
						"Stage number from 1 (first) to 100. 0: the stage's position in this list (first stage 1, second 2, ...).",
				},
				{
					displayName: 'Allowed Responders',
					name: 'allowedResponders',
					type: 'fixedCollection',
					typeOptions: { multipleValues: true },
					default: {},
					placeholder: 'Add responder',
					description:
						'Who may answer at this stage; several responders answer in parallel, and their weights count towards Minimum Weight',
					options: [
						{
							displayName: 'Responder',
							name: 'responder',
							values: [
								{
									displayName: 'Username',
									name: 'entityId',
									type: 'string',
									default: '',
									placeholder: 'e.g. bob',
								},
								{
									displayName: 'Weight',
									name: 'weight',
									type: 'number',
									typeOptions: { minValue: 0 },
									default: 1,
									description: 'How much an approval by this responder counts',
								},
								{
									displayName: 'Type',
									name: 'type',
									type: 'options',
									options: [{ name: 'User', value: 'user' }],
									default: 'user',
									description: 'Kind of responder (the spec shows users)',
								},
							],
						},
					],
				},
				{
					displayName: 'Stage Options',
					name: 'stageOptions',
					type: 'collection',
					placeholder: 'Add option',
					default: {},
					options: [
						{
							displayName: 'Description',
							name: 'description',
							type: 'string',
							default: '',
						},
						{
							displayName: 'Due Date',
							name: 'dueDate',
							type: 'dateTime',
							default: '',
							description: 'When the stage is due (sent as an ISO 8601 UTC timestamp)',
						},
						{
							displayName: 'Duration',
							name: 'duration',
							type: 'number',
							typeOptions: { minValue: 0 },
							default: 0,
							description: 'Duration of the stage, at least 0 (the platform does not document its unit)',
						},
						{
							displayName: 'Minimum Weight',
							name: 'minimumWeight',
							type: 'number',
							typeOptions: { minValue: 0 },
							default: 1,
							description:
								'Total weight of approvals needed before the next stage starts. With two responders of weight 1: 2 = both must approve, 1 = either one.',
						},
						{
							displayName: 'Responders',
							name: 'responders',
							type: 'string',
							default: '',
							placeholder: 'e.g. bob, carol',
							description: 'Usernames sent as the stage\'s responders ({userId}), separated by commas',
						},
						{
							displayName: 'Status',
							name: 'status',
							type: 'options',
							options: TIER_STATUS_OPTIONS,
							default: 'submitted',
						},
					],
				},
			],
		},
	],
};

const properties: INodeProperties[] = [
	{
		displayName: 'Define Form',
		name: 'definition',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Using Fields Below', value: 'fields' },
			{ name: 'Using JSON', value: 'json', description: 'Give the whole request body as JSON' },
		],
		default: 'fields',
	},
	{
		displayName: 'Form (JSON)',
		name: 'formJson',
		type: 'json',
		default: EXAMPLE_JSON,
		required: true,
		displayOptions: { show: { definition: ['json'] } },
		description:
			'The whole request body: name, subject, senderUserId, receiverUserIds, data, status, and for staged approval responseType "hierarchy" with responseTiers. Checked like the fields, then sent as given.',
	},
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Purchase request',
		description: 'Title of the form',
		displayOptions: { show: { definition: ['fields'] } },
	},
	{
		displayName: 'Subject',
		name: 'subject',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Please approve the purchase of 3 laptops',
		description: 'Subject line of the form',
		displayOptions: { show: { definition: ['fields'] } },
	},
	{
		displayName: 'Sender Username',
		name: 'senderUserId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. alice',
		description: 'Username of the person the form comes from',
		displayOptions: { show: { definition: ['fields'] } },
	},
	{
		displayName: 'Recipient Usernames',
		name: 'receiverUserIds',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. bob, carol',
		description: 'Usernames of the recipients, separated by commas (or a list from an expression)',
		displayOptions: { show: { definition: ['fields'] } },
	},
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		options: FORM_STATUS_OPTIONS,
		default: 'submitted',
		description: 'Status the form is created with. The spec\'s sample request uses Submitted.',
		displayOptions: { show: { definition: ['fields'] } },
	},
	{ ...formFieldsProperty, displayOptions: { show: { definition: ['fields'] } } },
	{
		displayName: 'Approval',
		name: 'approval',
		type: 'options',
		options: [
			{
				name: 'Single Stage',
				value: 'single',
				description: 'The recipients answer the form; no approval stages',
			},
			{
				name: 'Staged',
				value: 'staged',
				description: 'Approval in stages, one after another (responseType "hierarchy" with responseTiers)',
			},
		],
		default: 'single',
		displayOptions: { show: { definition: ['fields'] } },
	},
	{
		displayName:
			'Stages run one after another, by tier. To have several people approve in parallel, put them in one stage as Allowed Responders and set Stage Options › Minimum Weight. Example: "manager first, then HR and finance in parallel" = Stage 1 with the manager; Stage 2 with HR and finance (weight 1 each) and Minimum Weight 2.',
		name: 'stagesNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { definition: ['fields'], approval: ['staged'] } },
	},
	{ ...approvalStagesProperty, displayOptions: { show: { definition: ['fields'], approval: ['staged'] } } },
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add field',
		default: {},
		displayOptions: { show: { definition: ['fields'] } },
		options: [
			{
				displayName: 'Additional Fields (JSON)',
				name: 'additionalJson',
				type: 'json',
				default: '{}',
				description:
					'Further fields to send in the request body, as a JSON object. The spec does not show every field; fields set above take precedence.',
			},
			{
				displayName: 'Due Date',
				name: 'dueDate',
				type: 'dateTime',
				default: '',
				description: 'When the form is due; sent as YYYY-MM-DD',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['form'], operation: ['create'] } },
	properties,
);

function isBlank(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** Usernames from a comma-separated text or a list from an expression. */
function usernames(ctx: IExecuteFunctions, itemIndex: number, value: unknown, field: string): string[] {
	if (isBlank(value)) return [];
	const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
	if (list === undefined) throw invalidInput(ctx, itemIndex, field, 'must be usernames separated by commas', value);
	return list.map((entry) => {
		if (typeof entry !== 'string' && typeof entry !== 'number') {
			throw invalidInput(ctx, itemIndex, field, 'must contain only usernames', value);
		}
		return String(entry).trim();
	}).filter((name) => name !== '');
}

function number(ctx: IExecuteFunctions, itemIndex: number, value: unknown, field: string): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isFinite(n)) throw invalidInput(ctx, itemIndex, field, 'must be a number', value);
	return n;
}

function formField(ctx: IExecuteFunctions, itemIndex: number, entry: IDataObject, position: number): IDataObject {
	const label = `Form Fields › Field ${position}`;
	const type = (entry.type as string | undefined) ?? 'textinput';
	if (type === 'json') {
		return parseJsonObject(ctx, itemIndex, `${label} › Field (JSON)`, entry.fieldJson);
	}
	const name = typeof entry.name === 'string' ? entry.name.trim() : entry.name;
	if (type === 'textinput') {
		const field: IDataObject = { type, name };
		if (!isBlank(entry.value)) field.value = String(entry.value);
		field.meta = {};
		field.editable = entry.editable ?? true;
		return field;
	}
	const entries = ((type === 'radio' ? entry.radioOptions : entry.actionOptions) as { option?: IDataObject[] } | undefined)
		?.option ?? [];
	const options = entries.map((option) => {
		const label = typeof option.label === 'string' ? option.label.trim() : option.label;
		if (type === 'radio') {
			return { label, value: isBlank(option.value) ? label : String(option.value) };
		}
		const action: IDataObject = { label };
		if (!isBlank(option.value)) action.value = String(option.value);
		action.type = option.type;
		if (!isBlank(option.color)) action.color = String(option.color).trim();
		return action;
	});
	return { type, name, meta: { options } };
}

function stage(ctx: IExecuteFunctions, itemIndex: number, entry: IDataObject, position: number, timeZone: string): IDataObject {
	const label = `Approval Stages › Stage ${position}`;
	const tierValue = isBlank(entry.tier) ? 0 : number(ctx, itemIndex, entry.tier, `${label} › Tier`);
	const tier: IDataObject = { title: typeof entry.title === 'string' ? entry.title : '' };
	const options = (entry.stageOptions as IDataObject | undefined) ?? {};
	if (!isBlank(options.description)) tier.description = options.description;
	tier.tier = tierValue === 0 ? position : tierValue;
	const responders = usernames(ctx, itemIndex, options.responders, `${label} › Responders`);
	if (responders.length) tier.responders = responders.map((userId) => ({ userId }));
	const allowed = ((entry.allowedResponders as { responder?: IDataObject[] } | undefined)?.responder ?? []).map(
		(responder, i) => ({
			type: isBlank(responder.type) ? 'user' : responder.type,
			entityId: typeof responder.entityId === 'string' ? responder.entityId.trim() : responder.entityId,
			weight: isBlank(responder.weight)
				? 1
				: number(ctx, itemIndex, responder.weight, `${label} › Allowed Responders › Responder ${i + 1} › Weight`),
		}),
	);
	if (allowed.length) tier.allowedResponders = allowed;
	if (options.minimumWeight !== undefined) {
		tier.minimumWeight = number(ctx, itemIndex, options.minimumWeight, `${label} › Minimum Weight`);
	}
	if (options.duration !== undefined) tier.duration = number(ctx, itemIndex, options.duration, `${label} › Duration`);
	if (!isBlank(options.dueDate)) {
		const parsed = parseDateInput(options.dueDate);
		if (!parsed) throw invalidInput(ctx, itemIndex, `${label} › Due Date`, `must be ${DATE_FORMS_HINT}`, options.dueDate);
		tier.dueDate = toIsoUtc(parsed, timeZone);
	}
	if (!isBlank(options.status)) tier.status = options.status;
	return tier;
}

/** The request body from the node's fields (Define Form: Using Fields Below). */
function bodyFromFields(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const timeZone = ctx.getTimezone();
	const additional = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const text = (parameter: string) => {
		const value = ctx.getNodeParameter(parameter, itemIndex, '') as IDataObject[string];
		return typeof value === 'string' ? value.trim() : value;
	};
	const fields: IDataObject = { name: text('name'), subject: text('subject') };
	if (!isBlank(additional.dueDate)) {
		const parsed = parseDateInput(additional.dueDate);
		if (!parsed) throw invalidInput(ctx, itemIndex, 'Due Date', `must be ${DATE_FORMS_HINT}`, additional.dueDate);
		fields.dueDate = toDateOnly(parsed, timeZone);
	}
	fields.senderUserId = text('senderUserId');
	fields.receiverUserIds = usernames(
		ctx,
		itemIndex,
		ctx.getNodeParameter('receiverUserIds', itemIndex, '') as unknown,
		'Recipient Usernames',
	);
	const formFields = (ctx.getNodeParameter('formFields', itemIndex, {}) as { field?: IDataObject[] }).field ?? [];
	fields.data = formFields.map((entry, i) => formField(ctx, itemIndex, entry, i + 1));
	fields.status = text('status');
	if (ctx.getNodeParameter('approval', itemIndex, 'single') === 'staged') {
		const stages = (ctx.getNodeParameter('stages', itemIndex, {}) as { stage?: IDataObject[] }).stage ?? [];
		fields.responseType = 'hierarchy';
		fields.responseTiers = stages.map((entry, i) => stage(ctx, itemIndex, entry, i + 1, timeZone));
	}
	return {
		...parseJsonObject(ctx, itemIndex, 'Additional Fields (JSON)', additional.additionalJson),
		...fields,
	};
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const definition = this.getNodeParameter('definition', itemIndex, 'fields') as string;
	let body: IDataObject;
	if (definition === 'json') {
		body = parseJsonObject(this, itemIndex, 'Form (JSON)', this.getNodeParameter('formJson', itemIndex, '{}'));
		checkFormBody(this, itemIndex, body, 'path');
	} else {
		body = bodyFromFields(this, itemIndex);
		checkFormBody(this, itemIndex, body, 'ui');
	}
	const { body: created } = await formRequest(this, { method: 'POST', path: '/v1/forms', body }, itemIndex);
	return created;
}
