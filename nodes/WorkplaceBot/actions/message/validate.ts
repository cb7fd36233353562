/**
 * Checks bot v2 push messages (the wire objects of the spec's "Bot message objects",
 * "Templates" and "Actions") against every documented limit and required field.
 *
 * The checks work on the request body itself, so messages built in the node UI and
 * messages given as JSON are checked by the same rules. Every violation is collected.
 */

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

/** Where in the messages a value sits: wire keys and array positions (0-based). */
export type FieldPath = ReadonlyArray<string | number>;

export interface Violation {
	path: FieldPath;
	/** What the field must be, e.g. `must be at most 20 characters`. */
	rule: string;
	/** How the actual value is shown after "got", e.g. `"Too long a label" (28 characters)`. */
	got: string;
}

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
	return [root, ...path.map((s) => (typeof s === 'number' ? String(s + 1) : (DISPLAY_NAMES[s] ?? s)))].join(
		' > ',
	);
}

/** `messages[1].template.actions[0].label`: the place in the request body. */
export function wirePath(path: FieldPath): string {
	let text = 'messages';
	for (const segment of path) {
		text += typeof segment === 'number' ? `[${segment}]` : `.${segment}`;
	}
	return text;
}

/** Length in characters (Unicode code points, so an emoji counts once). */
export function charLength(text: string): number {
	let n = 0;
	for (const _ of text) n++;
	return n;
}

/** The actual value as shown after "got"; `withLength` adds a string's length in characters. */
export function describeValue(value: unknown, withLength = false): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	if (value === '') return 'an empty string';
	if (Array.isArray(value)) return `a list of ${value.length}`;
	let text: string;
	try {
		text = JSON.stringify(value) ?? String(value);
	} catch {
		text = String(value);
	}
	if (typeof value === 'string') {
		const shown = text.length > 120 ? `${text.slice(0, 116)}..."` : text;
		return withLength ? `${shown} (${charLength(value)} characters)` : shown;
	}
	return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	return describeValue(value);
}

class Checker {
	readonly violations: Violation[] = [];

	add(path: FieldPath, rule: string, got: string): void {
		this.violations.push({ path, rule, got });
	}

	/** A string field; `required` means present and not blank. Returns the string if it is one. */
	string(
		obj: Obj,
		key: string,
		path: FieldPath,
		{ required = false, max }: { required?: boolean; max?: number } = {},
	): string | undefined {
		const value = obj[key];
		const at = [...path, key];
		if (value === undefined || value === null) {
			if (required) this.add(at, 'is required', describeValue(value));
			return undefined;
		}
		if (typeof value !== 'string') {
			this.add(at, 'must be text', kindOf(value));
			return undefined;
		}
		if (required && value.trim() === '') {
			this.add(at, 'must not be empty', describeValue(value));
			return value;
		}
		if (max !== undefined && charLength(value) > max) {
			this.add(at, `must be at most ${max} characters`, describeValue(value, true));
		}
		return value;
	}

	url(obj: Obj, key: string, path: FieldPath, required: boolean): void {
		this.string(obj, key, path, { required, max: LIMITS.url });
	}

	oneOf(obj: Obj, key: string, path: FieldPath, allowed: readonly string[]): void {
		const value = obj[key];
		if (value === undefined) return;
		if (typeof value !== 'string' || !allowed.includes(value)) {
			this.add([...path, key], `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`, describeValue(value));
		}
	}

	/** A list of `min`..`max` entries; `noun` names them in the rule ("actions"). */
	list(
		obj: Obj,
		key: string,
		path: FieldPath,
		{ min, max, noun }: { min: number; max?: number; noun: string },
	): unknown[] | undefined {
		const value = obj[key];
		const at = [...path, key];
		if (value === undefined || value === null) {
			this.add(at, 'is required', describeValue(value));
			return undefined;
		}
		if (!Array.isArray(value)) {
			this.add(at, `must be a list of ${noun}`, kindOf(value));
			return undefined;
		}
		const got = `${value.length} ${noun}`;
		if (value.length < min) {
			this.add(at, `must have at least ${min} ${min === 1 ? noun.replace(/s$/, '') : noun}`, got);
		} else if (max !== undefined && value.length > max) {
			this.add(at, `must have at most ${max} ${noun}`, got);
		}
		return value;
	}

	/** A number field; `integer` and `min` (inclusive) or `above` (exclusive) bounds. */
	number(
		obj: Obj,
		key: string,
		path: FieldPath,
		{ integer = false, min, above, unit = '' }: { integer?: boolean; min?: number; above?: number; unit?: string },
	): void {
		const value = obj[key];
		const at = [...path, key];
		const noun = integer ? 'a whole number' : 'a number';
		if (value === undefined || value === null) {
			this.add(at, 'is required', describeValue(value));
		} else if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
			this.add(at, `must be ${noun}${unit}`, describeValue(value));
		} else if (min !== undefined && value < min) {
			this.add(at, `must be ${noun} of at least ${min}${unit}`, describeValue(value));
		} else if (above !== undefined && value <= above) {
			this.add(at, `must be ${noun} greater than ${above}${unit}`, describeValue(value));
		}
	}

	object(obj: Obj, key: string, path: FieldPath, what: string): Obj | undefined {
		const value = obj[key];
		if (value === undefined || value === null) {
			this.add([...path, key], 'is required', describeValue(value));
			return undefined;
		}
		if (!isObject(value)) {
			this.add([...path, key], `must be ${what}`, kindOf(value));
			return undefined;
		}
		return value;
	}
}

interface ActionRules {
	/** Label required (buttons, carousel, quick reply items). */
	label: boolean;
	/** Area required (imagemap). */
	area: boolean;
}

function checkAction(c: Checker, action: unknown, path: FieldPath, rules: ActionRules): void {
	if (!isObject(action)) {
		c.add(path, 'must be an action object like {"type": "message", "label": "Yes", "text": "yes"}', kindOf(action));
		return;
	}
	const type = action.type;
	if (type === undefined || type === null) {
		c.add([...path, 'type'], 'is required', describeValue(type));
	} else if (typeof type !== 'string' || !(ACTION_TYPES as readonly string[]).includes(type)) {
		c.add(
			[...path, 'type'],
			`must be one of ${ACTION_TYPES.map((t) => `"${t}"`).join(', ')}`,
			describeValue(type),
		);
	}
	c.string(action, 'label', path, { required: rules.label, max: LIMITS.label });
	if (rules.area) {
		const area = c.object(action, 'area', path, 'an object with x, y, width and height');
		if (area) {
			const at = [...path, 'area'];
			c.number(area, 'x', at, { integer: true, min: 0 });
			c.number(area, 'y', at, { integer: true, min: 0 });
			c.number(area, 'width', at, { integer: true, above: 0 });
			c.number(area, 'height', at, { integer: true, above: 0 });
		}
	}
	switch (type) {
		case 'message':
			c.string(action, 'text', path, { required: true });
			break;
		case 'postback':
			c.string(action, 'data', path, { required: true });
			c.string(action, 'text', path);
			break;
		case 'workflowTemplate':
			c.string(action, 'templateId', path, { required: true });
			break;
		case 'workflow':
			c.string(action, 'workflowId', path, { required: true });
			break;
		case 'workflows':
			c.oneOf(action, 'status', path, WORKFLOW_STATUSES);
			break;
		case 'library':
			c.url(action, 'url', path, false);
			break;
		case 'uri':
			if ((action.linkUri === undefined || action.linkUri === null) && action.uri !== undefined) {
				// One spec sample writes `uri`; the action table (which we follow) names it `linkUri`.
				c.add([...path, 'linkUri'], 'is required (the field is "linkUri", not "uri")', describeValue(undefined));
			} else {
				c.url(action, 'linkUri', path, true);
			}
			break;
		default:
			break;
	}
}

function checkActions(
	c: Checker,
	container: Obj,
	path: FieldPath,
	limits: { max: number },
	rules: ActionRules,
): void {
	const actions = c.list(container, 'actions', path, { min: 1, max: limits.max, noun: 'actions' });
	actions?.forEach((action, index) => checkAction(c, action, [...path, 'actions', index], rules));
}

/** Buttons template and carousel column text: 160 characters, 60 with an image or a title. */
function checkPanelText(c: Checker, panel: Obj, path: FieldPath): void {
	const hasImage = typeof panel.thumbnailImageUrl === 'string' && panel.thumbnailImageUrl !== '';
	const hasTitle = typeof panel.title === 'string' && panel.title !== '';
	const text = c.string(panel, 'text', path, { required: true });
	if (text === undefined || text.trim() === '') return;
	if (hasImage || hasTitle) {
		if (charLength(text) > LIMITS.textWithImageOrTitle) {
			const because = hasImage && hasTitle ? 'an image and a title' : hasImage ? 'an image' : 'a title';
			c.add(
				[...path, 'text'],
				`must be at most ${LIMITS.textWithImageOrTitle} characters with ${because}`,
				describeValue(text, true),
			);
		}
	} else if (charLength(text) > LIMITS.text) {
		c.add([...path, 'text'], `must be at most ${LIMITS.text} characters`, describeValue(text, true));
	}
}

function checkPanel(c: Checker, panel: Obj, path: FieldPath, maxActions: number): void {
	c.url(panel, 'thumbnailImageUrl', path, false);
	c.string(panel, 'imageBackgroundColor', path);
	c.string(panel, 'title', path, { max: LIMITS.title });
	checkPanelText(c, panel, path);
	checkActions(c, panel, path, { max: maxActions }, { label: true, area: false });
	if (panel.defaultAction !== undefined) {
		checkAction(c, panel.defaultAction, [...path, 'defaultAction'], { label: false, area: false });
	}
}

function checkTemplate(c: Checker, message: Obj, path: FieldPath): void {
	c.string(message, 'altText', path);
	const template = c.object(message, 'template', path, 'a template object with a type "buttons" or "carousel"');
	if (!template) return;
	const at = [...path, 'template'];
	const type = template.type;
	c.oneOf(template, 'imageAspectRatio', at, IMAGE_ASPECT_RATIOS);
	c.oneOf(template, 'imageSize', at, IMAGE_SIZES);
	if (type === 'buttons') {
		checkPanel(c, template, at, LIMITS.buttonsActions);
	} else if (type === 'carousel') {
		const columns = c.list(template, 'columns', at, { min: 1, max: LIMITS.carouselColumns, noun: 'columns' });
		columns?.forEach((column, index) => {
			const columnPath = [...at, 'columns', index];
			if (!isObject(column)) {
				c.add(columnPath, 'must be a column object with text and actions', kindOf(column));
				return;
			}
			checkPanel(c, column, columnPath, LIMITS.columnActions);
		});
	} else if (type === undefined || type === null) {
		c.add([...at, 'type'], 'is required', describeValue(type));
	} else {
		c.add([...at, 'type'], `must be one of ${TEMPLATE_TYPES.map((t) => `"${t}"`).join(', ')}`, describeValue(type));
	}
}

function checkQuickReply(c: Checker, message: Obj, path: FieldPath): void {
	const quickReply = c.object(message, 'quickReply', path, 'an object with items');
	if (!quickReply) return;
	const at = [...path, 'quickReply'];
	const items = c.list(quickReply, 'items', at, { min: 1, noun: 'items' });
	items?.forEach((item, index) => {
		const itemPath = [...at, 'items', index];
		if (!isObject(item)) {
			c.add(itemPath, 'must be an item object like {"type": "action", "action": {...}}', kindOf(item));
			return;
		}
		if (item.type === undefined || item.type === null) c.add([...itemPath, 'type'], 'is required', 'nothing');
		else if (item.type !== 'action') c.add([...itemPath, 'type'], 'must be "action"', describeValue(item.type));
		c.url(item, 'imageUrl', itemPath, false);
		if (item.action !== undefined) checkAction(c, item.action, [...itemPath, 'action'], { label: true, area: false });
	});
}

function checkMessage(c: Checker, message: unknown, path: FieldPath): void {
	if (!isObject(message)) {
		c.add(path, 'must be a message object like {"type": "text", "text": "Hello"}', kindOf(message));
		return;
	}
	const type = message.type;
	switch (type) {
		case 'text':
			c.string(message, 'text', path, { required: true });
			break;
		case 'image':
			c.url(message, 'originalContentUrl', path, true);
			c.url(message, 'previewImageUrl', path, true);
			break;
		case 'video':
			c.url(message, 'originalContentUrl', path, true);
			c.url(message, 'previewImageUrl', path, true);
			c.string(message, 'trackingId', path);
			break;
		case 'audio':
			c.url(message, 'originalContentUrl', path, true);
			c.number(message, 'duration', path, { above: 0, unit: ' (milliseconds)' });
			break;
		case 'imagemap': {
			c.url(message, 'baseUrl', path, true);
			c.string(message, 'altText', path);
			const baseSize = c.object(message, 'baseSize', path, 'an object with width and height');
			if (baseSize) {
				c.number(baseSize, 'width', [...path, 'baseSize'], { above: 0, unit: ' (pixels)' });
				c.number(baseSize, 'height', [...path, 'baseSize'], { above: 0, unit: ' (pixels)' });
			}
			checkActions(c, message, path, { max: LIMITS.imagemapActions }, { label: false, area: true });
			break;
		}
		case 'template':
			checkTemplate(c, message, path);
			break;
		case undefined:
		case null:
			c.add([...path, 'type'], 'is required', describeValue(type));
			break;
		default:
			c.add(
				[...path, 'type'],
				`must be one of ${MESSAGE_TYPES.map((t) => `"${t}"`).join(', ')}`,
				describeValue(type),
			);
	}
	if (message.quickReply !== undefined) checkQuickReply(c, message, path);
}

/** Every violation of the documented limits and required fields in a `messages` array. */
export function validateMessages(messages: unknown): Violation[] {
	const c = new Checker();
	if (!Array.isArray(messages)) {
		c.add([], 'must be a list of messages', kindOf(messages));
	} else if (messages.length === 0) {
		c.add([], 'must have at least 1 message', 'an empty list');
	} else {
		messages.forEach((message, index) => checkMessage(c, message, [index]));
	}
	return c.violations;
}
