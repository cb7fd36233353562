import type { INodeProperties } from 'n8n-workflow';

import { entryList, valueOptions } from '../../../shared/descriptions/fields';
import { ACTION_OPTION_TYPES } from './values';

/** The choices of a radio or action field, each with a label first. */
function choices(
	displayName: string,
	name: string,
	fieldType: string,
	placeholder: string,
	entry: { displayName: string; values: INodeProperties[] },
): INodeProperties {
	return entryList(
		displayName,
		name,
		{
			displayName: entry.displayName,
			name: 'option',
			values: [{ displayName: 'Label', name: 'label', type: 'string', default: '' }, ...entry.values],
		},
		{ placeholder, show: { type: [fieldType] }, sortable: true },
	);
}

/** "Form Fields": the inputs of the form (the body's data), in order. */
export const formFieldsProperty: INodeProperties = entryList(
	'Form Fields',
	'formFields',
	{
		displayName: 'Field',
		name: 'field',
		values: [
			choices('Action Options', 'actionOptions', 'action', 'Add action', {
				displayName: 'Action',
				values: [
					{
						displayName: 'Type',
						name: 'type',
						type: 'options',
						options: valueOptions(ACTION_OPTION_TYPES, { order: 'as listed' }),
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
			}),
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
			choices('Radio Options', 'radioOptions', 'radio', 'Add option', {
				displayName: 'Option',
				values: [
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						description: 'Value recorded when this option is picked; empty: the label',
					},
				],
			}),
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
	{
		placeholder: 'Add form field',
		description: 'The inputs of the form (data), in order. At least one is required.',
		sortable: true,
	},
);
