/**
 * Checks a create-task body (after Additional Fields (JSON)) against the spec's rules before it
 * is sent, collecting every problem (nodes/shared/validation).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { FieldName, FieldNames, FieldPath } from '../../../shared/validation';
import { charLength, Checker, describeValue, nameField, violationsError, wirePath } from '../../../shared/validation';

/** The spec's recommended limits (Limits: task title, task description). */
export const TASK_TITLE_MAX = 200;
export const TASK_DESCRIPTION_MAX = 5000;

/** The body's keys and list entries as the node UI names them. */
const TASK_NAMES: FieldNames = {
	keys: {
		taskTitle: 'Title',
		taskDescription: 'Description',
		priority: 'Priority',
		checklist: 'Checklist',
		description: 'Description',
		isDone: 'Done (isDone)',
	},
	entries: { checklist: 'checklist item' },
};

/** `['checklist', 1, 'description']` -> `"Checklist > Description" (checklist item 2 of 3)`; `body` gives the totals. */
export function taskFieldName(path: FieldPath, body?: unknown): FieldName {
	return nameField(undefined, path, TASK_NAMES, body);
}

/** A title or description within the spec's recommended length (Allow Longer Title and Description skips this). */
function checkLength(c: Checker, text: string | undefined, at: FieldPath, max: number): void {
	if (text === undefined || charLength(text) <= max) return;
	c.add(
		at,
		`must be at most ${max} characters (turn on "Allow Longer Title and Description" to send it anyway)`,
		describeValue(text, { withLength: true }),
	);
}

/** Throws every problem of a create-task body as one NodeOperationError naming the item, the fields and their values. */
export function checkTaskBody(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, allowLongText: boolean): void {
	const c = new Checker();
	const title = c.string(body, 'taskTitle', [], { required: true });
	if (!allowLongText) checkLength(c, title, ['taskTitle'], TASK_TITLE_MAX);
	const text = c.string(body, 'taskDescription', []);
	if (!allowLongText) checkLength(c, text, ['taskDescription'], TASK_DESCRIPTION_MAX);
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
