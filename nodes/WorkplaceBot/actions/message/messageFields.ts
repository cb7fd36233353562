import type { INodeProperties } from 'n8n-workflow';

import type { Show } from '../../../shared/descriptions/fields';
import { entryList, valueOptions } from '../../../shared/descriptions/fields';
import { actionFields, buttonList, defaultActionField } from './actionFields';
import { optionsProperty, property } from './properties';
import { IMAGE_ASPECT_RATIOS, IMAGE_SIZES, LIMITS, MESSAGE_TYPES, TEMPLATE_TYPES } from './spec';

const ACTIONS_JSON_EXAMPLE = JSON.stringify([{ type: 'message', label: 'Yes', text: 'yes' }], null, 2);

const TEXT_LIMIT = `At most ${LIMITS.text} characters, or ${LIMITS.textWithImageOrTitle} with`;

// A column's actions: the buttons template's builder ("Define Actions") or JSON.
const COLUMN_ACTIONS_FROM_FIELDS: Show = { defineActions: ['fields'] };
const COLUMN_ACTIONS_AS_JSON: Show = { defineActions: ['json'] };

/**
 * One carousel column. Its actions and default action use the buttons template's builder, or
 * JSON with "Define Actions: Using JSON".
 */
const columnFields: INodeProperties[] = [
	property('string', 'Thumbnail Image URL', 'thumbnailImageUrl', `Optional image of the column, at most ${LIMITS.url} characters`),
	property('color', 'Image Background Color', 'imageBackgroundColor', 'Optional background color of the image; the platform default is #FFFFFF', {
		placeholder: '#FFFFFF',
	}),
	property('string', 'Title', 'title', `Optional title, at most ${LIMITS.title} characters`),
	property('string', 'Text', 'text', `${TEXT_LIMIT} an image or a title`, { rows: 2, required: true }),
	optionsProperty(
		'Define Actions',
		'defineActions',
		[
			{ name: 'Using Fields Below', value: 'fields', description: "Build the column's buttons and default action in the node" },
			{ name: 'Using JSON', value: 'json', description: 'Give them as JSON action objects' },
		],
		'fields',
	),
	buttonList(LIMITS.columnActions, COLUMN_ACTIONS_FROM_FIELDS),
	defaultActionField('Optional action run when the column itself (its image, title or text) is tapped', COLUMN_ACTIONS_FROM_FIELDS),
	property(
		'json',
		'Actions (JSON)',
		'actionsJson',
		`The column's buttons as a JSON list of 1 to ${LIMITS.columnActions} actions, e.g. [{"type": "uri", "label": "Open", "linkUri": "https://example.com"}]`,
		{ default: ACTIONS_JSON_EXAMPLE, required: true, show: COLUMN_ACTIONS_AS_JSON },
	),
	property('json', 'Default Action (JSON)', 'defaultActionJson', 'Optional action run when the column itself is tapped, as a JSON object', {
		show: COLUMN_ACTIONS_AS_JSON,
	}),
];

const MESSAGE_TYPE_OPTIONS = valueOptions(MESSAGE_TYPES, {
	descriptions: {
		audio: 'An audio file with its duration',
		image: 'A picture with a preview',
		imagemap: 'An image with tappable areas',
		template: 'Buttons or a carousel of columns with buttons',
		text: 'A text message',
		video: 'A video with a preview image',
	},
});

const TEMPLATE_TYPE_OPTIONS = valueOptions(TEMPLATE_TYPES, {
	descriptions: {
		buttons: 'A text with an optional image and title, and 1 to 4 buttons',
		carousel: '1 to 10 columns, each with its own buttons',
	},
});

const IMAGEMAP: Show = { type: ['imagemap'] };
const BUTTONS: Show = { type: ['template'], templateType: ['buttons'] };

const templateOptions: INodeProperties = {
	displayName: 'Template Options',
	name: 'templateOptions',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	displayOptions: { show: { type: ['template'] } },
	options: [
		property(
			'json',
			'Default Action (JSON)',
			'defaultActionJson',
			'Buttons template only: action run when the image, title or text is tapped, as a JSON object (for a carousel, set it per column)',
		),
		optionsProperty(
			'Image Aspect Ratio',
			'imageAspectRatio',
			valueOptions(IMAGE_ASPECT_RATIOS, { names: { rectangle: 'Rectangle (1.51:1)', square: 'Square (1:1)' } }),
			'rectangle',
			{ description: 'Aspect ratio of the image(s); the platform default is Rectangle' },
		),
		property(
			'color',
			'Image Background Color',
			'imageBackgroundColor',
			'Buttons template only: background color of the image (for a carousel, set it per column)',
			{ placeholder: '#FFFFFF' },
		),
		optionsProperty('Image Size', 'imageSize', valueOptions(IMAGE_SIZES), 'cover', {
			description: 'How the image(s) fill their area; the platform default is Cover',
		}),
	],
};

const quickReplies = entryList(
	'Quick Replies',
	'quickReply',
	{
		displayName: 'Quick Reply',
		name: 'items',
		values: [
			property('string', 'Image URL', 'imageUrl', `Optional icon of the quick reply, at most ${LIMITS.url} characters`),
			...actionFields('button'),
		],
	},
	{ placeholder: 'Add Quick Reply', description: 'Optional reply buttons shown under the message' },
);

/** One entry of the "Messages" list: a Type and the fields of that type. */
export const messageFields: INodeProperties[] = [
	optionsProperty('Type', 'type', MESSAGE_TYPE_OPTIONS, 'text'),
	property('string', 'Text', 'text', 'The message text', { rows: 3, required: true, show: { type: ['text'] } }),
	property(
		'string',
		'Original Content URL',
		'originalContentUrl',
		`Address of the image, video or audio file, at most ${LIMITS.url} characters`,
		{ required: true, placeholder: 'e.g. https://example.com/media/file.jpg', show: { type: ['image', 'video', 'audio'] } },
	),
	property('string', 'Preview Image URL', 'previewImageUrl', `Address of the preview image, at most ${LIMITS.url} characters`, {
		required: true,
		placeholder: 'e.g. https://example.com/media/preview.jpg',
		show: { type: ['image', 'video'] },
	}),
	property('string', 'Tracking ID', 'trackingId', 'Optional tracking ID of the video', { show: { type: ['video'] } }),
	property('number', 'Duration (Milliseconds)', 'duration', 'Length of the audio in milliseconds, more than 0', {
		minValue: 0,
		required: true,
		show: { type: ['audio'] },
	}),
	property('string', 'Base URL', 'baseUrl', `Address of the imagemap image, at most ${LIMITS.url} characters`, {
		required: true,
		placeholder: 'e.g. https://example.com/imagemap/floor-plan',
		show: IMAGEMAP,
	}),
	property(
		'number',
		'Base Width (Pixels)',
		'baseWidth',
		'Width of the base image in pixels; the areas of the actions are measured in it',
		{ minValue: 0, required: true, show: IMAGEMAP },
	),
	property('number', 'Base Height (Pixels)', 'baseHeight', 'Height of the base image in pixels', {
		minValue: 0,
		required: true,
		show: IMAGEMAP,
	}),
	entryList('Actions', 'imagemapActions', { displayName: 'Action', name: 'action', values: actionFields('imagemapArea') }, {
		placeholder: 'Add Action',
		description: `Tappable areas of the image and what they do: 1 to ${LIMITS.imagemapActions}`,
		show: IMAGEMAP,
	}),
	optionsProperty('Template Type', 'templateType', TEMPLATE_TYPE_OPTIONS, 'buttons', { show: { type: ['template'] } }),
	property('string', 'Thumbnail Image URL', 'thumbnailImageUrl', `Optional image above the text, at most ${LIMITS.url} characters`, {
		show: BUTTONS,
	}),
	property('string', 'Title', 'title', `Optional title, at most ${LIMITS.title} characters`, { show: BUTTONS }),
	property('string', 'Text', 'templateText', `${TEXT_LIMIT} a thumbnail image or a title`, {
		rows: 2,
		required: true,
		show: BUTTONS,
	}),
	buttonList(LIMITS.buttonsActions, BUTTONS),
	entryList('Columns', 'columns', { displayName: 'Column', name: 'column', values: columnFields }, {
		placeholder: 'Add Column',
		description: `The carousel columns: 1 to ${LIMITS.carouselColumns}`,
		show: { type: ['template'], templateType: ['carousel'] },
	}),
	property(
		'string',
		'Alt Text',
		'altText',
		'Optional text shown where the message cannot be displayed, e.g. in notifications',
		{ show: { type: ['imagemap', 'template'] } },
	),
	templateOptions,
	quickReplies,
];
