import type { INodeProperties } from 'n8n-workflow';

import type { Show } from '../../../shared/descriptions/fields';
import { entryList, valueOptions } from '../../../shared/descriptions/fields';
import { optionsProperty, property } from './properties';
import { ACTION_TYPES, LIMITS, WORKFLOW_STATUSES } from './spec';

const ACTION_TYPE_OPTIONS = valueOptions(ACTION_TYPES, {
	names: { uri: 'URI' },
	descriptions: {
		library: 'Take the user to a library document',
		message: 'The user sends the given text as a message',
		postback: "Send a postback event with the given data to the bot's webhook",
		uri: 'Open a URI',
		workflow: 'Prompt a workflow to the user',
		workflowTemplate: 'Prompt a workflow template to the user',
		workflows: 'Take the user to the workflows page, optionally filtered by status',
	},
});

/** "All" sends no status filter. */
const WORKFLOW_STATUS_OPTIONS = [{ name: 'All', value: '' }, ...valueOptions(WORKFLOW_STATUSES)];

/** The tappable area of an imagemap action, in pixels of the base size. */
const AREA_FIELDS: INodeProperties[] = [
	property('number', 'Area X', 'x', 'Left edge of the tappable area, in pixels of the base size (whole number, 0 or more)', {
		minValue: 0,
		required: true,
	}),
	property('number', 'Area Y', 'y', 'Top edge of the tappable area, in pixels of the base size (whole number, 0 or more)', {
		minValue: 0,
		required: true,
	}),
	property('number', 'Area Width', 'width', 'Width of the tappable area in pixels (whole number, more than 0)', {
		required: true,
	}),
	property('number', 'Area Height', 'height', 'Height of the tappable area in pixels (whole number, more than 0)', {
		required: true,
	}),
];

/**
 * Where an action is used: a button (buttons template, carousel column, quick reply; label
 * required), a tappable area of an imagemap, or the default action of a panel (run when the
 * image, title or text is tapped; the spec does not require a label there).
 */
export type ActionUse = 'button' | 'imagemapArea' | 'defaultAction';

const LABEL_DESCRIPTIONS: Record<ActionUse, string> = {
	button: `Text on the button, at most ${LIMITS.label} characters`,
	imagemapArea: `Optional label of the area, at most ${LIMITS.label} characters`,
	defaultAction: `Optional label of the action, at most ${LIMITS.label} characters`,
};

/**
 * The fields of one action, as the entries of an "Actions" or "Quick Replies" list or the
 * "Default Action" of a column. Field names are the wire names of the spec's action table.
 */
export function actionFields(use: ActionUse): INodeProperties[] {
	const labelRequired = use === 'button';
	const fields: INodeProperties[] = [
		optionsProperty('Action Type', 'type', ACTION_TYPE_OPTIONS, 'message'),
		property('string', 'Label', 'label', LABEL_DESCRIPTIONS[use], { required: labelRequired, placeholder: 'e.g. Approve' }),
		property(
			'string',
			'Text',
			'text',
			'Message: the text sent as a message from the user (required). Postback: optional text shown in the chat as sent by the user.',
			{ show: { type: ['message', 'postback'] } },
		),
		property('string', 'Data', 'data', "Data returned in the postback event to the bot's webhook", {
			required: true,
			show: { type: ['postback'] },
		}),
		property('string', 'Template ID', 'templateId', 'ID of the workflow template to prompt', {
			required: true,
			show: { type: ['workflowTemplate'] },
		}),
		property('string', 'Workflow ID', 'workflowId', 'ID of the workflow to prompt', {
			required: true,
			show: { type: ['workflow'] },
		}),
		optionsProperty('Status', 'status', WORKFLOW_STATUS_OPTIONS, '', {
			show: { type: ['workflows'] },
			description: 'Status the workflows page is filtered by; All sends no filter',
		}),
		property('string', 'URL', 'url', `Address of the library document, at most ${LIMITS.url} characters`, {
			show: { type: ['library'] },
		}),
		property('string', 'Link URI', 'linkUri', `The URI to open, at most ${LIMITS.url} characters (sent as \`linkUri\`)`, {
			required: true,
			placeholder: 'e.g. https://example.com/orders/42',
			show: { type: ['uri'] },
		}),
	];
	return use === 'imagemapArea' ? [...fields, ...AREA_FIELDS] : fields;
}

/**
 * The "Actions" list of buttons of a panel: the buttons template and each carousel column. Built
 * by build.ts `buildActions` and checked by validate.ts.
 */
export function buttonList(max: number, show: Show): INodeProperties {
	return entryList('Actions', 'actions', { displayName: 'Button', name: 'action', values: actionFields('button') }, {
		placeholder: 'Add Button',
		description: `The buttons: 1 to ${max}`,
		show,
	});
}

/** The "Default Action" of a carousel column: at most one action, label optional. */
export function defaultActionField(description: string, show: Show): INodeProperties {
	return {
		displayName: 'Default Action',
		name: 'defaultAction',
		type: 'fixedCollection',
		placeholder: 'Add Default Action',
		default: {},
		displayOptions: { show },
		description,
		options: [{ displayName: 'Action', name: 'action', values: actionFields('defaultAction') }],
	};
}
