/**
 * What the spec says about bot v2 push messages that the UI fields, the builder and the
 * checker all need: the documented limits, the allowed values, the fields of each action
 * type, and how a place in the messages is named.
 */
import type { FieldPath } from '../../../shared/validation';
import { displayPath as sharedDisplayPath, wirePath as sharedWirePath } from '../../../shared/validation';

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

/**
 * `Messages > 2 > Template > Actions > 1 > Label`: display names, positions counted from 1.
 * String segments that are not wire keys (e.g. `Actions (JSON)`) are shown as they are.
 */
export function displayPath(root: string, path: FieldPath): string {
	return sharedDisplayPath(root, path, { keys: DISPLAY_NAMES });
}

/** `messages[1].template.actions[0].label`: the place in the request body. */
export function wirePath(path: FieldPath): string {
	return sharedWirePath(path, 'messages');
}
