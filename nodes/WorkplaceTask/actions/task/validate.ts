/** Checks a create-task body (after Additional Fields (JSON)) against the spec's rules before it is sent. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { invalidInput, requireInteger } from '../../../shared/validation';

/** The spec's recommended limits (Limits: task title, task description). */
export const TASK_TITLE_MAX = 200;
export const TASK_DESCRIPTION_MAX = 5000;

const characters = (text: string) => [...text].length;

/** A title or description within the spec's recommended length (Allow Longer Title and Description skips this). */
function checkLength(ctx: IExecuteFunctions, itemIndex: number, field: string, text: string, max: number): void {
	if (characters(text) <= max) return;
	throw invalidInput(
		ctx,
		itemIndex,
		field,
		`must be at most ${max} characters (it has ${characters(text)}; turn on "Allow Longer Title and Description" to send it anyway)`,
		text,
	);
}

/** Throws the first problem as a NodeOperationError naming item, field and value. */
export function checkTaskBody(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, allowLongText: boolean): void {
	const title = body.taskTitle;
	if (typeof title !== 'string') throw invalidInput(ctx, itemIndex, 'Title', 'must be text', title);
	if (!allowLongText) checkLength(ctx, itemIndex, 'Title', title, TASK_TITLE_MAX);
	const text = body.taskDescription;
	if (text !== undefined && text !== null) {
		if (typeof text !== 'string') throw invalidInput(ctx, itemIndex, 'Description', 'must be text', text);
		if (!allowLongText) checkLength(ctx, itemIndex, 'Description', text, TASK_DESCRIPTION_MAX);
	}
	if (body.priority !== undefined && body.priority !== null) {
		requireInteger(ctx, itemIndex, 'Priority', body.priority);
	}
	const checklist = body.checklist;
	if (checklist !== undefined && checklist !== null) {
		if (!Array.isArray(checklist)) {
			throw invalidInput(ctx, itemIndex, 'Checklist', 'must be a list of {description, isDone}', checklist);
		}
		checklist.forEach((entry: unknown, i) => {
			const label = `Checklist › Item ${i + 1}`;
			if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
				throw invalidInput(ctx, itemIndex, label, 'must be an object {description, isDone}', entry);
			}
			const { description: text, isDone } = entry as IDataObject;
			if (typeof text !== 'string' || text.trim() === '') {
				throw invalidInput(ctx, itemIndex, `${label} › Description`, 'must be non-empty text', text);
			}
			if (typeof isDone !== 'boolean') {
				throw invalidInput(ctx, itemIndex, `${label} › Done (isDone)`, 'must be true or false', isDone);
			}
		});
	}
}
