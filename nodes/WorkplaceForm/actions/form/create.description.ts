import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { additionalJsonOption, valueOptions } from '../../../shared/descriptions/fields';
import { simplifyProperty } from '../../../shared/descriptions/simplify';
import { approvalStagesProperty } from './approvalStages.description';
import { formFieldsProperty } from './formFields.description';
import { FORM_STATUSES } from './values';

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
		description: 'Title of the form, shown to the recipients',
		displayOptions: { show: { definition: ['fields'] } },
	},
	{
		displayName: 'Subject',
		name: 'subject',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Please approve the purchase of 3 laptops',
		description: 'Subject line of the form: what the recipients are asked, in one line',
		displayOptions: { show: { definition: ['fields'] } },
	},
	{
		displayName: 'Sender Username',
		name: 'senderUserId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. alice',
		description: 'Username (not the user ID) of the person the form comes from',
		displayOptions: { show: { definition: ['fields'] } },
	},
	{
		displayName: 'Recipient Usernames',
		name: 'receiverUserIds',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. bob, carol',
		description: 'Usernames (not user IDs) of the recipients, separated by commas, or a list from an expression',
		displayOptions: { show: { definition: ['fields'] } },
	},
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		options: valueOptions(FORM_STATUSES),
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
			additionalJsonOption(
				'Further fields to send in the request body, as a JSON object. The spec does not show every field; fields set above take precedence.',
			),
			{
				displayName: 'Due Date',
				name: 'dueDate',
				type: 'dateTime',
				default: '',
				description: 'When the form is due: a date (YYYY-MM-DD) or an ISO 8601 date-time with offset; sent as the date YYYY-MM-DD',
			},
		],
	},
	simplifyProperty,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['form'], operation: ['create'] } },
	properties,
);
