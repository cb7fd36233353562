/**
 * Checks bot v2 push messages (the wire objects of the spec's "Bot message objects",
 * "Templates" and "Actions") against every documented limit and required field.
 *
 * The checks work on the request body itself, so messages built in the node UI and
 * messages given as JSON are checked by the same rules. Every violation is collected.
 */
import type { FieldPath, Violation } from '../../../shared/validation';
import { Checker, charLength, describeKind, describeValue, isPlainObject } from '../../../shared/validation';
import type { ActionType } from './spec';
import {
	ACTION_FIELDS,
	ACTION_TYPES,
	IMAGE_ASPECT_RATIOS,
	IMAGE_SIZES,
	LIMITS,
	MESSAGE_TYPES,
	TEMPLATE_TYPES,
	WORKFLOW_STATUSES,
} from './spec';

type Obj = Record<string, unknown>;

function url(c: Checker, obj: Obj, key: string, path: FieldPath, required: boolean): void {
	c.string(obj, key, path, { required, max: LIMITS.url });
}

interface ActionRules {
	/** Label required (buttons, carousel, quick reply items). */
	label: boolean;
	/** Area required (imagemap). */
	area: boolean;
}

function checkActionField(c: Checker, action: Obj, key: string, path: FieldPath, required: boolean): void {
	if (key === 'status') c.oneOf(action, key, path, WORKFLOW_STATUSES);
	else if (key === 'url' || key === 'linkUri') url(c, action, key, path, required);
	else c.string(action, key, path, { required });
}

function checkAction(c: Checker, action: unknown, path: FieldPath, rules: ActionRules): void {
	if (!isPlainObject(action)) {
		c.add(path, 'must be an action object like {"type": "message", "label": "Yes", "text": "yes"}', describeKind(action));
		return;
	}
	c.oneOf(action, 'type', path, ACTION_TYPES, { required: true });
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
	const type = action.type;
	if (typeof type !== 'string' || !(ACTION_TYPES as readonly string[]).includes(type)) return;
	if (type === 'uri' && (action.linkUri === undefined || action.linkUri === null) && action.uri !== undefined) {
		// One spec sample writes `uri`; the action table (which we follow) names it `linkUri`.
		c.add([...path, 'linkUri'], 'is required (the field is "linkUri", not "uri")', describeValue(undefined));
		return;
	}
	const fields = ACTION_FIELDS[type as ActionType];
	for (const key of fields.required ?? []) checkActionField(c, action, key, path, true);
	for (const key of fields.optional ?? []) checkActionField(c, action, key, path, false);
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
	const withLength = { withLength: true };
	if (hasImage || hasTitle) {
		if (charLength(text) > LIMITS.textWithImageOrTitle) {
			const because = hasImage && hasTitle ? 'an image and a title' : hasImage ? 'an image' : 'a title';
			c.add(
				[...path, 'text'],
				`must be at most ${LIMITS.textWithImageOrTitle} characters with ${because}`,
				describeValue(text, withLength),
			);
		}
	} else if (charLength(text) > LIMITS.text) {
		c.add([...path, 'text'], `must be at most ${LIMITS.text} characters`, describeValue(text, withLength));
	}
}

function checkPanel(c: Checker, panel: Obj, path: FieldPath, maxActions: number): void {
	url(c, panel, 'thumbnailImageUrl', path, false);
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
		for (const [column, columnPath] of c.objectEntries(columns, [...at, 'columns'], 'a column object with text and actions')) {
			checkPanel(c, column, columnPath, LIMITS.columnActions);
		}
	} else {
		c.oneOf(template, 'type', at, TEMPLATE_TYPES, { required: true });
	}
}

function checkQuickReply(c: Checker, message: Obj, path: FieldPath): void {
	const quickReply = c.object(message, 'quickReply', path, 'an object with items');
	if (!quickReply) return;
	const at = [...path, 'quickReply'];
	const items = c.list(quickReply, 'items', at, { min: 1, noun: 'items' });
	for (const [item, itemPath] of c.objectEntries(items, [...at, 'items'], 'an item object like {"type": "action", "action": {...}}')) {
		if (item.type === undefined || item.type === null) c.add([...itemPath, 'type'], 'is required', 'nothing');
		else if (item.type !== 'action') c.add([...itemPath, 'type'], 'must be "action"', describeValue(item.type));
		url(c, item, 'imageUrl', itemPath, false);
		if (item.action !== undefined) checkAction(c, item.action, [...itemPath, 'action'], { label: true, area: false });
	}
}

function checkMessage(c: Checker, message: unknown, path: FieldPath): void {
	if (!isPlainObject(message)) {
		c.add(path, 'must be a message object like {"type": "text", "text": "Hello"}', describeKind(message));
		return;
	}
	switch (message.type) {
		case 'text':
			c.string(message, 'text', path, { required: true });
			break;
		case 'image':
			url(c, message, 'originalContentUrl', path, true);
			url(c, message, 'previewImageUrl', path, true);
			break;
		case 'video':
			url(c, message, 'originalContentUrl', path, true);
			url(c, message, 'previewImageUrl', path, true);
			c.string(message, 'trackingId', path);
			break;
		case 'audio':
			url(c, message, 'originalContentUrl', path, true);
			c.number(message, 'duration', path, { above: 0, unit: ' (milliseconds)' });
			break;
		case 'imagemap': {
			url(c, message, 'baseUrl', path, true);
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
		default:
			c.oneOf(message, 'type', path, MESSAGE_TYPES, { required: true });
	}
	if (message.quickReply !== undefined) checkQuickReply(c, message, path);
}

/** Every violation of the documented limits and required fields in a `messages` array. */
export function validateMessages(messages: unknown): Violation[] {
	const c = new Checker();
	if (!Array.isArray(messages)) {
		c.add([], 'must be a list of messages', describeKind(messages));
	} else if (messages.length === 0) {
		c.add([], 'must have at least 1 message', 'an empty list');
	} else {
		messages.forEach((message, index) => checkMessage(c, message, [index]));
	}
	return c.violations;
}
