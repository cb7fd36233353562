import type { INodeProperties } from 'n8n-workflow';

import { LIMITS } from './spec';

/**
 * The fields of one action, as the entries of an "Actions" or "Quick Replies" list.
 * Field names are the wire names of the spec's action table.
 */
export function actionFields({ area, labelRequired }: { area: boolean; labelRequired: boolean }): INodeProperties[] {
	const fields: INodeProperties[] = [
		{
			displayName: 'Action Type',
			name: 'type',
			type: 'options',
			options: [
				{ name: 'Library', value: 'library', description: 'Take the user to a library document' },
				{ name: 'Message', value: 'message', description: 'The user sends the given text as a message' },
				{
					name: 'Postback',
					value: 'postback',
					description: "Send a postback event with the given data to the bot's webhook",
				},
				{ name: 'URI', value: 'uri', description: 'Open a URI' },
				{ name: 'Workflow', value: 'workflow', description: 'Prompt a workflow to the user' },
				{
					name: 'Workflow Template',
					value: 'workflowTemplate',
					description: 'Prompt a workflow template to the user',
				},
				{
					name: 'Workflows',
					value: 'workflows',
					description: 'Take the user to the workflows page, optionally filtered by status',
				},
			],
			default: 'message',
		},
		{
			displayName: 'Label',
			name: 'label',
			type: 'string',
			default: '',
			required: labelRequired,
			placeholder: 'e.g. Approve',
			description: labelRequired
				? `Text on the button, at most ${LIMITS.label} characters`
				: `Optional label of the area, at most ${LIMITS.label} characters`,
		},
		{
			displayName: 'Text',
			name: 'text',
			type: 'string',
			default: '',
			displayOptions: { show: { type: ['message', 'postback'] } },
			description:
				'Message: the text sent as a message from the user (required). Postback: optional text shown in the chat as sent by the user.',
		},
		{
			displayName: 'Data',
			name: 'data',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { type: ['postback'] } },
			description: "Data returned in the postback event to the bot's webhook",
		},
		{
			displayName: 'Template ID',
			name: 'templateId',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { type: ['workflowTemplate'] } },
			description: 'ID of the workflow template to prompt',
		},
		{
			displayName: 'Workflow ID',
			name: 'workflowId',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { type: ['workflow'] } },
			description: 'ID of the workflow to prompt',
		},
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			options: [
				{ name: 'All', value: '' },
				{ name: 'Awaiting', value: 'awaiting' },
				{ name: 'Canceled', value: 'canceled' },
				{ name: 'Completed', value: 'completed' },
				{ name: 'Processing', value: 'processing' },
				{ name: 'Rejected', value: 'rejected' },
			],
			default: '',
			displayOptions: { show: { type: ['workflows'] } },
			description: 'Status the workflows page is filtered by; All sends no filter',
		},
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			default: '',
			displayOptions: { show: { type: ['library'] } },
			description: `Address of the library document, at most ${LIMITS.url} characters`,
		},
		{
			displayName: 'Link URI',
			name: 'linkUri',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://example.com/orders/42',
			displayOptions: { show: { type: ['uri'] } },
			description: `The URI to open, at most ${LIMITS.url} characters (sent as \`linkUri\`)`,
		},
	];
	if (area) {
		fields.push(
			{
				displayName: 'Area X',
				name: 'x',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				required: true,
				description: 'Left edge of the tappable area, in pixels of the base size (whole number, 0 or more)',
			},
			{
				displayName: 'Area Y',
				name: 'y',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				required: true,
				description: 'Top edge of the tappable area, in pixels of the base size (whole number, 0 or more)',
			},
			{
				displayName: 'Area Width',
				name: 'width',
				type: 'number',
				default: 0,
				required: true,
				description: 'Width of the tappable area in pixels (whole number, more than 0)',
			},
			{
				displayName: 'Area Height',
				name: 'height',
				type: 'number',
				default: 0,
				required: true,
				description: 'Height of the tappable area in pixels (whole number, more than 0)',
			},
		);
	}
	return fields;
}

const ACTIONS_JSON_EXAMPLE = JSON.stringify([{ type: 'message', label: 'Yes', text: 'yes' }], null, 2);

export const MESSAGES_JSON_EXAMPLE = JSON.stringify(
	[
		{ type: 'text', text: 'Hello from n8n' },
		{
			type: 'template',
			altText: 'Approve the request?',
			template: {
				type: 'buttons',
				title: 'Leave request',
				text: 'Approve the request?',
				actions: [
					{ type: 'postback', label: 'Approve', data: 'approve' },
					{ type: 'postback', label: 'Reject', data: 'reject' },
				],
			},
		},
	],
	null,
	2,
);

/** One carousel column; its actions are JSON (a third level of lists would be unwieldy in the UI). */
const columnFields: INodeProperties[] = [
	{
		displayName: 'Thumbnail Image URL',
		name: 'thumbnailImageUrl',
		type: 'string',
		default: '',
		description: `Optional image of the column, at most ${LIMITS.url} characters`,
	},
	{
		displayName: 'Image Background Color',
		name: 'imageBackgroundColor',
		type: 'color',
		default: '',
		placeholder: '#FFFFFF',
		description: 'Optional background color of the image; the platform default is #FFFFFF',
	},
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		default: '',
		description: `Optional title, at most ${LIMITS.title} characters`,
	},
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		required: true,
		description: `At most ${LIMITS.text} characters, or ${LIMITS.textWithImageOrTitle} with an image or a title`,
	},
	{
		displayName: 'Actions (JSON)',
		name: 'actionsJson',
		type: 'json',
		default: ACTIONS_JSON_EXAMPLE,
		required: true,
		description: `The column's buttons as a JSON list of 1 to ${LIMITS.columnActions} actions, e.g. [{"type": "uri", "label": "Open", "linkUri": "https://example.com"}]`,
	},
	{
		displayName: 'Default Action (JSON)',
		name: 'defaultActionJson',
		type: 'json',
		default: '',
		description: 'Optional action run when the column itself is tapped, as a JSON object',
	},
];

/** One entry of the "Messages" list: a Type and the fields of that type. */
const messageFields: INodeProperties[] = [
	{
		displayName: 'Type',
		name: 'type',
		type: 'options',
		options: [
			{ name: 'Audio', value: 'audio', description: 'An audio file with its duration' },
			{ name: 'Image', value: 'image', description: 'A picture with a preview' },
			{ name: 'Imagemap', value: 'imagemap', description: 'An image with tappable areas' },
			{ name: 'Template', value: 'template', description: 'Buttons or a carousel of columns with buttons' },
			{ name: 'Text', value: 'text', description: 'A text message' },
			{ name: 'Video', value: 'video', description: 'A video with a preview image' },
		],
		default: 'text',
	},
	// text
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		displayOptions: { show: { type: ['text'] } },
		description: 'The message text',
	},
	// image, video, audio
	{
		displayName: 'Original Content URL',
		name: 'originalContentUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/media/file.jpg',
		displayOptions: { show: { type: ['image', 'video', 'audio'] } },
		description: `Address of the image, video or audio file, at most ${LIMITS.url} characters`,
	},
	{
		displayName: 'Preview Image URL',
		name: 'previewImageUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/media/preview.jpg',
		displayOptions: { show: { type: ['image', 'video'] } },
		description: `Address of the preview image, at most ${LIMITS.url} characters`,
	},
	{
		displayName: 'Tracking ID',
		name: 'trackingId',
		type: 'string',
		default: '',
		displayOptions: { show: { type: ['video'] } },
		description: 'Optional tracking ID of the video',
	},
	{
		displayName: 'Duration (Milliseconds)',
		name: 'duration',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		required: true,
		displayOptions: { show: { type: ['audio'] } },
		description: 'Length of the audio in milliseconds, more than 0',
	},
	// imagemap
	{
		displayName: 'Base URL',
		name: 'baseUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/imagemap/floor-plan',
		displayOptions: { show: { type: ['imagemap'] } },
		description: `Address of the imagemap image, at most ${LIMITS.url} characters`,
	},
	{
		displayName: 'Base Width (Pixels)',
		name: 'baseWidth',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		required: true,
		displayOptions: { show: { type: ['imagemap'] } },
		description: 'Width of the base image in pixels; the areas of the actions are measured in it',
	},
	{
		displayName: 'Base Height (Pixels)',
		name: 'baseHeight',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		required: true,
		displayOptions: { show: { type: ['imagemap'] } },
		description: 'Height of the base image in pixels',
	},
	{
		displayName: 'Actions',
		name: 'imagemapActions',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Action',
		default: {},
		displayOptions: { show: { type: ['imagemap'] } },
		description: `Tappable areas of the image and what they do: 1 to ${LIMITS.imagemapActions}`,
		options: [{ displayName: 'Action', name: 'action', values: actionFields({ area: true, labelRequired: false }) }],
	},
	// template
	{
		displayName: 'Template Type',
		name: 'templateType',
		type: 'options',
		options: [
			{ name: 'Buttons', value: 'buttons', description: 'A text with an optional image and title, and 1 to 4 buttons' },
			{ name: 'Carousel', value: 'carousel', description: '1 to 10 columns, each with its own buttons' },
		],
		default: 'buttons',
		displayOptions: { show: { type: ['template'] } },
	},
	{
		displayName: 'Thumbnail Image URL',
		name: 'thumbnailImageUrl',
		type: 'string',
		default: '',
		displayOptions: { show: { type: ['template'], templateType: ['buttons'] } },
		description: `Optional image above the text, at most ${LIMITS.url} characters`,
	},
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		default: '',
		displayOptions: { show: { type: ['template'], templateType: ['buttons'] } },
		description: `Optional title, at most ${LIMITS.title} characters`,
	},
	{
		displayName: 'Text',
		name: 'templateText',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		required: true,
		displayOptions: { show: { type: ['template'], templateType: ['buttons'] } },
		description: `At most ${LIMITS.text} characters, or ${LIMITS.textWithImageOrTitle} with a thumbnail image or a title`,
	},
	{
		displayName: 'Actions',
		name: 'actions',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Button',
		default: {},
		displayOptions: { show: { type: ['template'], templateType: ['buttons'] } },
		description: `The buttons: 1 to ${LIMITS.buttonsActions}`,
		options: [{ displayName: 'Button', name: 'action', values: actionFields({ area: false, labelRequired: true }) }],
	},
	{
		displayName: 'Columns',
		name: 'columns',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Column',
		default: {},
		displayOptions: { show: { type: ['template'], templateType: ['carousel'] } },
		description: `The carousel columns: 1 to ${LIMITS.carouselColumns}`,
		options: [
			{
				displayName: 'Column',
				name: 'column',
				values: columnFields,
			},
		],
	},
	{
		displayName: 'Alt Text',
		name: 'altText',
		type: 'string',
		default: '',
		displayOptions: { show: { type: ['imagemap', 'template'] } },
		description: 'Optional text shown where the message cannot be displayed, e.g. in notifications',
	},
	{
		displayName: 'Template Options',
		name: 'templateOptions',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { type: ['template'] } },
		options: [
			{
				displayName: 'Default Action (JSON)',
				name: 'defaultActionJson',
				type: 'json',
				default: '',
				description:
					'Buttons template only: action run when the image, title or text is tapped, as a JSON object (for a carousel, set it per column)',
			},
			{
				displayName: 'Image Aspect Ratio',
				name: 'imageAspectRatio',
				type: 'options',
				options: [
					{ name: 'Rectangle (1.51:1)', value: 'rectangle' },
					{ name: 'Square (1:1)', value: 'square' },
				],
				default: 'rectangle',
				description: 'Aspect ratio of the image(s); the platform default is Rectangle',
			},
			{
				displayName: 'Image Background Color',
				name: 'imageBackgroundColor',
				type: 'color',
				default: '',
				placeholder: '#FFFFFF',
				description: 'Buttons template only: background color of the image (for a carousel, set it per column)',
			},
			{
				displayName: 'Image Size',
				name: 'imageSize',
				type: 'options',
				options: [
					{ name: 'Contain', value: 'contain' },
					{ name: 'Cover', value: 'cover' },
				],
				default: 'cover',
				description: 'How the image(s) fill their area; the platform default is Cover',
			},
		],
	},
	// every type
	{
		displayName: 'Quick Replies',
		name: 'quickReply',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Quick Reply',
		default: {},
		description: 'Optional reply buttons shown under the message',
		options: [
			{
				displayName: 'Quick Reply',
				name: 'items',
				values: [
					{
						displayName: 'Image URL',
						name: 'imageUrl',
						type: 'string',
						default: '',
						description: `Optional icon of the quick reply, at most ${LIMITS.url} characters`,
					},
					...actionFields({ area: false, labelRequired: true }),
				],
			},
		],
	},
];

/** The push operation's own fields (shown with resource "message", operation "push"). */
export const pushFields: INodeProperties[] = [
	{
		displayName: 'Group ID',
		name: 'groupId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 64f0c0000000000000000001',
		description:
			'ID (gid) of the group or direct chat, e.g. `gid` of the User resource\'s "Get Direct Chat" or of a message event',
	},
	{
		displayName: 'Thread ID',
		name: 'threadId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 64f0d0000000000000000001',
		description: "ID (tid) of the thread: the group's main chat, one of its topics, or a direct chat",
	},
	{
		displayName: 'Define Messages',
		name: 'defineMessages',
		type: 'options',
		options: [
			{ name: 'Using Fields Below', value: 'fields', description: 'Build the messages in the node' },
			{ name: 'Using JSON', value: 'json', description: 'Give the messages as a JSON list of message objects' },
		],
		default: 'fields',
	},
	{
		displayName: 'Messages',
		name: 'messages',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Message',
		default: {},
		displayOptions: { show: { defineMessages: ['fields'] } },
		description: 'The messages to send, in order',
		options: [{ displayName: 'Message', name: 'message', values: messageFields }],
	},
	{
		displayName: 'Messages (JSON)',
		name: 'messagesJson',
		type: 'json',
		default: MESSAGES_JSON_EXAMPLE,
		required: true,
		displayOptions: { show: { defineMessages: ['json'] } },
		description:
			'The `messages` list of the request, as the platform documents it: message objects of type text, image, video, audio, imagemap or template, each with an optional quickReply. A single message object is taken as a list of one.',
	},
];
