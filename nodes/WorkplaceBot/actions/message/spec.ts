/**
 * What the spec says about bot v2 push messages that the UI fields, the builder and the
 * checker all need: the documented limits, the allowed values, the fields of each action
 * type, and how a place in the messages is named.
 */
import type { FieldName, FieldPath } from '../../../shared/validation';
import { nameField, wirePath as sharedWirePath } from '../../../shared/validation';

/** The documented limits (spec section "Limits"). */
export const LIMITS = {
	label: 20,
	url: 1000,
	title: 40,
	text: 160,
	textWithImageOrTitle: 60,
	buttonsActions: 4,
	carouselColumns: 10,
	columnActions: 3,
	imagemapActions: 50,
} as const;

export const MESSAGE_TYPES = ['text', 'image', 'video', 'audio', 'imagemap', 'template'] as const;
export const TEMPLATE_TYPES = ['buttons', 'carousel'] as const;
export const ACTION_TYPES = [
	'message',
	'postback',
	'workflowTemplate',
	'workflow',
	'workflows',
	'library',
	'uri',
] as const;
export const WORKFLOW_STATUSES = ['awaiting', 'processing', 'completed', 'rejected', 'canceled'] as const;
export const IMAGE_ASPECT_RATIOS = ['rectangle', 'square'] as const;
export const IMAGE_SIZES = ['cover', 'contain'] as const;

/** The fields of each action type (spec's action table) besides type, label and area. */
export type ActionType = (typeof ACTION_TYPES)[number];

export const ACTION_FIELDS: Record<ActionType, { required?: string[]; optional?: string[] }> = {
	message: { required: ['text'] },
	postback: { required: ['data'], optional: ['text'] },
	workflowTemplate: { required: ['templateId'] },
	workflow: { required: ['workflowId'] },
	workflows: { optional: ['status'] },
	library: { optional: ['url'] },
	uri: { required: ['linkUri'] },
};

/** Display names of the wire keys, as the node UI names the matching fields. */
const DISPLAY_NAMES: Record<string, string> = {
	action: 'Action',
	actions: 'Actions',
	altText: 'Alt Text',
	area: 'Area',
	baseSize: 'Base Size',
	baseUrl: 'Base URL',
	columns: 'Columns',
	data: 'Data',
	defaultAction: 'Default Action',
	duration: 'Duration',
	height: 'Height',
	imageAspectRatio: 'Image Aspect Ratio',
	imageBackgroundColor: 'Image Background Color',
	imageSize: 'Image Size',
	imageUrl: 'Image URL',
	items: 'Items',
	label: 'Label',
	linkUri: 'Link URI',
	originalContentUrl: 'Original Content URL',
	previewImageUrl: 'Preview Image URL',
	quickReply: 'Quick Reply',
	status: 'Status',
	template: 'Template',
	templateId: 'Template ID',
	text: 'Text',
	thumbnailImageUrl: 'Thumbnail Image URL',
	title: 'Title',
	trackingId: 'Tracking ID',
	type: 'Type',
	url: 'URL',
	width: 'Width',
	workflowId: 'Workflow ID',
	x: 'X',
	y: 'Y',
};

/** What one entry of each list is called in words: `message 2 of 3, action 1 of 4`. */
const ENTRY_NOUNS: Record<string, string> = {
	Messages: 'message',
	'Messages (JSON)': 'message',
	messages: 'message',
	actions: 'action',
	columns: 'column',
	items: 'quick reply item',
};

/**
 * `{ field: 'Messages > Template > Actions > Label', at: 'message 2 of 3, action 1 of 4' }`:
 * display names, positions in words; `messages` (the built list) gives the totals. String
 * segments that are not wire keys (e.g. `Actions (JSON)`) are shown as they are.
 */
export function messageFieldName(root: string, path: FieldPath, messages?: unknown): FieldName {
	return nameField(root, path, { keys: DISPLAY_NAMES, entries: ENTRY_NOUNS }, messages);
}

/** messageFieldName as one line: `Messages > Template > Actions > Label (message 2 of 3, action 1 of 4)`. */
export function displayPath(root: string, path: FieldPath, messages?: unknown): string {
	const { field, at } = messageFieldName(root, path, messages);
	return at === '' ? field : `${field} (${at})`;
}

/** `messages[1].template.actions[0].label`: the place in the request body. */
export function wirePath(path: FieldPath): string {
	return sharedWirePath(path, 'messages');
}
