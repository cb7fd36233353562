/**
 * Turns the node UI's "Messages" entries, or the "Messages (JSON)" field, into the
 * `messages` array of POST /bot/v2/message/push, with the spec's wire names.
 *
 * The builder only shapes: it copies what the user set (leaving out empty optional
 * fields) and reports JSON sub-fields that do not parse. Limits and required fields are
 * checked afterwards on the result by validate.ts, the same way for both input modes.
 */
import type { IDataObject } from 'n8n-workflow';

import type { FieldPath, Violation } from '../../../shared/validation';
import { isBlank, isPlainObject, violation } from '../../../shared/validation';
import type { ActionType } from './spec';
import { ACTION_FIELDS, ACTION_TYPES } from './spec';

export interface BuildResult {
	messages: unknown;
	/** Problems found while building (JSON that does not parse). */
	violations: Violation[];
}

type Values = IDataObject;

function entries(collection: unknown, key: string): Values[] {
	if (!isPlainObject(collection)) return [];
	const list = collection[key];
	if (Array.isArray(list)) return list.filter(isPlainObject);
	return isPlainObject(list) ? [list] : [];
}

/** Copies `keys` from the UI values to `target`: required ones always (so a gap is reported), optional ones when set. */
function copy(target: IDataObject, values: Values, keys: { required?: string[]; optional?: string[] }): void {
	for (const key of keys.required ?? []) {
		if (values[key] !== undefined) target[key] = values[key];
	}
	for (const key of keys.optional ?? []) {
		if (!isBlank(values[key])) target[key] = values[key];
	}
}

/**
 * A JSON sub-field: text to parse, or a value an expression already produced.
 * Empty means not given. `list` wraps a single object into a list of one.
 */
export function parseJsonValue(
	value: unknown,
	path: FieldPath,
	violations: Violation[],
	{ list }: { list: boolean },
): unknown {
	if (value === undefined || value === null) return undefined;
	let parsed: unknown = value;
	if (typeof value === 'string') {
		if (value.trim() === '') return undefined;
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			violations.push(violation(path, `must be valid JSON (${(error as Error).message})`, value));
			return undefined;
		}
	}
	if (list && isPlainObject(parsed)) return [parsed];
	return parsed;
}

/** One action entry of the UI (buttons, imagemap areas, quick replies). */
export function buildAction(values: Values, { area }: { area: boolean }): IDataObject {
	const type = values.type;
	const action: IDataObject = { type };
	copy(action, values, { optional: ['label'] });
	if (area) {
		action.area = { x: values.x, y: values.y, width: values.width, height: values.height };
	}
	if ((ACTION_TYPES as readonly unknown[]).includes(type)) copy(action, values, ACTION_FIELDS[type as ActionType]);
	return action;
}

function buildActions(collection: unknown, options: { area: boolean }): IDataObject[] {
	return entries(collection, 'action').map((values) => buildAction(values, options));
}

/**
 * A column's actions and default action: from the builder ("Define Actions: Using Fields
 * Below", the default) or parsed from the JSON fields ("Using JSON").
 */
function buildColumn(values: Values, path: FieldPath, violations: Violation[]): IDataObject {
	const column: IDataObject = {};
	copy(column, values, { optional: ['thumbnailImageUrl', 'imageBackgroundColor', 'title'] });
	copy(column, values, { required: ['text'] });
	if ((values.defineActions ?? 'fields') === 'fields') {
		column.actions = buildActions(values.actions, { area: false });
		const [defaultAction] = entries(values.defaultAction, 'action');
		if (defaultAction !== undefined) column.defaultAction = buildAction(defaultAction, { area: false });
		return column;
	}
	const actions = parseJsonValue(values.actionsJson, [...path, 'actions'], violations, { list: true });
	if (actions !== undefined) column.actions = actions as IDataObject[];
	const defaultAction = parseJsonValue(values.defaultActionJson, [...path, 'defaultAction'], violations, {
		list: false,
	});
	if (defaultAction !== undefined) column.defaultAction = defaultAction as IDataObject;
	return column;
}

function buildTemplate(values: Values, path: FieldPath, violations: Violation[]): IDataObject {
	const options = isPlainObject(values.templateOptions) ? values.templateOptions : {};
	const type = values.templateType ?? 'buttons';
	const template: IDataObject = { type };
	const templatePath = [...path, 'template'];
	if (type === 'carousel') {
		copy(template, options, { optional: ['imageAspectRatio', 'imageSize'] });
		for (const key of ['imageBackgroundColor', 'defaultActionJson']) {
			if (!isBlank(options[key])) {
				violations.push(
					violation(
						[...templatePath, key === 'defaultActionJson' ? 'defaultAction' : key],
						'applies to the Buttons template only; for a carousel, set it on each column',
						options[key],
					),
				);
			}
		}
		template.columns = entries(values.columns, 'column').map((column, index) =>
			buildColumn(column, [...templatePath, 'columns', index], violations),
		);
		return template;
	}
	// Keys in the order of the spec's table, as a JSON author would write them.
	copy(template, values, { optional: ['thumbnailImageUrl'] });
	copy(template, options, { optional: ['imageAspectRatio', 'imageSize', 'imageBackgroundColor'] });
	copy(template, values, { optional: ['title'] });
	if (values.templateText !== undefined) template.text = values.templateText;
	template.actions = buildActions(values.actions, { area: false });
	const defaultAction = parseJsonValue(options.defaultActionJson, [...templatePath, 'defaultAction'], violations, {
		list: false,
	});
	if (defaultAction !== undefined) template.defaultAction = defaultAction as IDataObject;
	return template;
}

/** One "Messages" entry of the UI as a wire message object. */
export function buildMessage(values: Values, path: FieldPath, violations: Violation[]): IDataObject {
	const type = values.type ?? 'text';
	const message: IDataObject = { type };
	switch (type) {
		case 'text':
			copy(message, values, { required: ['text'] });
			break;
		case 'image':
			copy(message, values, { required: ['originalContentUrl', 'previewImageUrl'] });
			break;
		case 'video':
			copy(message, values, { required: ['originalContentUrl', 'previewImageUrl'], optional: ['trackingId'] });
			break;
		case 'audio':
			copy(message, values, { required: ['originalContentUrl', 'duration'] });
			break;
		case 'imagemap':
			copy(message, values, { required: ['baseUrl'], optional: ['altText'] });
			message.baseSize = { width: values.baseWidth, height: values.baseHeight };
			message.actions = buildActions(values.imagemapActions, { area: true });
			break;
		case 'template':
			copy(message, values, { optional: ['altText'] });
			message.template = buildTemplate(values, path, violations);
			break;
		default:
			break;
	}
	const quickReplies = entries(values.quickReply, 'items').map((item) => {
		const entry: IDataObject = { type: 'action' };
		copy(entry, item, { optional: ['imageUrl'] });
		entry.action = buildAction(item, { area: false });
		return entry;
	});
	if (quickReplies.length > 0) message.quickReply = { items: quickReplies };
	return message;
}

/** The "Messages" fixed collection (`{ message: [...] }`) as the wire `messages` array. */
export function buildMessagesFromFields(collection: unknown): BuildResult {
	const violations: Violation[] = [];
	const messages = entries(collection, 'message').map((values, index) => buildMessage(values, [index], violations));
	return { messages, violations };
}

/** "Messages (JSON)": a JSON list (text or from an expression); a single object is a list of one. */
export function buildMessagesFromJson(value: unknown): BuildResult {
	const violations: Violation[] = [];
	const messages = parseJsonValue(value, [], violations, { list: true });
	if (messages === undefined && violations.length === 0) {
		violations.push(violation([], 'must be a JSON list of messages', value));
	}
	return { messages, violations };
}
