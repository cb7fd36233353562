/**
 * Checks a create-task body (after Additional Fields (JSON)) against the spec's rules before it
 * is sent, collecting every problem (nodes/shared/validation).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { FieldName, FieldNames, FieldPath } from '../../../shared/validation';
import { charLength, Checker, describeValue, nameField, violationsError, wirePath } from '../../../shared/validation';

/** The spec's recommended limits (Limits: task title, description, tags, images and attachments). */
export const TASK_TITLE_MAX = 200;
export const TASK_DESCRIPTION_MAX = 5000;
export const TASK_TAGS_MAX = 20;
/** 6 images and 6 attachments: within both, the spec's 12 in total holds too. */
export const TASK_IMAGES_MAX = 6;
export const TASK_ATTACHMENTS_MAX = 6;

/** The option that turns the recommended limits off (Options > Enforce Recommended Limits). */
export const ENFORCE_LIMITS_NAME = 'Enforce Recommended Limits';
const RECOMMENDED = `recommended by the platform; turn off "${ENFORCE_LIMITS_NAME}" to send it anyway`;

/** The body's keys and list entries as the node UI names them. */
const TASK_NAMES: FieldNames = {
	keys: {
		taskTitle: 'Title',
		taskDescription: 'Description',
		priority: 'Priority',
		checklist: 'Checklist',
		description: 'Description',
		isDone: 'Done (isDone)',
		// Only Additional Fields (JSON) sends these.
		tags: 'Additional Fields (JSON) > tags',
		images: 'Additional Fields (JSON) > images',
		attachments: 'Additional Fields (JSON) > attachments',
	},
	entries: { checklist: 'checklist item' },
};

/** `['checklist', 1, 'description']` -> `"Checklist > Description" (checklist item 2 of 3)`; `body` gives the totals. */
export function taskFieldName(path: FieldPath, body?: unknown): FieldName {
	return nameField(undefined, path, TASK_NAMES, body);
}

/** A title or description within the spec's recommended length. */
function checkLength(c: Checker, text: string | undefined, at: FieldPath, max: number): void {
	if (text === undefined || charLength(text) <= max) return;
	c.add(at, `must be at most ${max} characters (${RECOMMENDED})`, describeValue(text, { withLength: true }));
}

/**
 * A list within the spec's recommended count. The spec shows neither these fields nor their shape:
 * only a list is counted, anything else is left to the platform.
 */
function checkCount(c: Checker, body: IDataObject, key: string, max: number): void {
	const value = body[key];
	if (!Array.isArray(value) || value.length <= max) return;
	c.add([key], `must have at most ${max} ${key} (${RECOMMENDED})`, `${value.length} ${key}`);
}

/**
 * Throws every problem of a create-task body as one NodeOperationError naming the item, the fields
 * and their values. `enforceRecommendedLimits` off sends a body over the recommended limits as given.
 */
export function checkTaskBody(
	ctx: IExecuteFunctions,
	itemIndex: number,
	body: IDataObject,
	enforceRecommendedLimits: boolean,
): void {
	const c = new Checker();
	const title = c.string(body, 'taskTitle', [], { required: true });
	const text = c.string(body, 'taskDescription', []);
	if (enforceRecommendedLimits) {
		checkLength(c, title, ['taskTitle'], TASK_TITLE_MAX);
		checkLength(c, text, ['taskDescription'], TASK_DESCRIPTION_MAX);
		checkCount(c, body, 'tags', TASK_TAGS_MAX);
		checkCount(c, body, 'images', TASK_IMAGES_MAX);
		checkCount(c, body, 'attachments', TASK_ATTACHMENTS_MAX);
	}
	if (body.priority !== undefined && body.priority !== null) c.number(body, 'priority', [], { integer: true });
	const checklist = c.list(body, 'checklist', [], { min: 0, noun: '{description, isDone}', optional: true });
	for (const [entry, at] of c.objectEntries(checklist, ['checklist'], 'an object {description, isDone}')) {
		c.string(entry, 'description', at, { required: true });
		if (typeof entry.isDone !== 'boolean') c.add([...at, 'isDone'], 'must be true or false', describeValue(entry.isDone));
	}
	if (c.violations.length > 0) {
		throw violationsError(ctx, itemIndex, c.violations, { name: (path) => taskFieldName(path, body), place: (path) => wirePath(path) });
	}
}
