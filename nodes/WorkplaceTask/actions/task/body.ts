/**
 * The create-task request body from the node's fields, with the spec's wire names: empty optional
 * fields are left out, and Additional Fields (JSON) goes under the fields set in the node.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { readDateInput, toIsoUtc } from '../../../shared/dates';
import { invalidInput, isBlank, parseJsonObject, requireInteger } from '../../../shared/validation';
import { taskFieldName } from './validate';
import { nodeParameter } from '../../../shared/parameters';

/** The number each Priority choice sends. */
export const PRIORITIES: Readonly<Record<string, number>> = { high: 1, medium: 2, low: 3 };

/** Text as given, or undefined for nothing, null or blank text. */
export function optionalText(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(value);
	return text.trim() === '' ? undefined : text;
}

export function priorityValue(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	const priority = nodeParameter(ctx, 'priority', itemIndex, 'none') as unknown;
	if (priority === 'none' || priority === '' || priority === undefined) return undefined;
	if (typeof priority === 'string' && priority in PRIORITIES) return PRIORITIES[priority];
	if (priority === 'custom') {
		const custom = nodeParameter(ctx, 'customPriority', itemIndex, undefined) as unknown;
		return requireInteger(ctx, itemIndex, 'Custom Priority', custom, { min: 0 });
	}
	// An expression may give the number itself.
	return requireInteger(ctx, itemIndex, 'Priority', priority, { min: 0 });
}

function checklistValue(ctx: IExecuteFunctions, itemIndex: number, raw: unknown): IDataObject[] | undefined {
	const entries = (raw as { item?: IDataObject[] } | undefined)?.item;
	if (!Array.isArray(entries) || entries.length === 0) return undefined;
	return entries.map((entry, i) => {
		const text = entry.description;
		if (typeof text !== 'string' || text.trim() === '') {
			throw invalidInput(ctx, itemIndex, taskFieldName(['checklist', i, 'description'], { checklist: entries }), 'must not be empty', text);
		}
		const done = entry.isDone ?? false;
		if (typeof done !== 'boolean') {
			// The UI's toggle is "Done"; the wire name isDone is shown only for a body given as JSON.
			throw invalidInput(ctx, itemIndex, taskFieldName(['checklist', i, 'Done'], { checklist: entries }), 'must be true or false', done);
		}
		return { description: text, isDone: done };
	});
}

/** The body from the title, the priority and the Additional Fields collection. */
export function taskBody(
	ctx: IExecuteFunctions,
	itemIndex: number,
	{ taskTitle, priority, additional }: { taskTitle: string; priority: number | undefined; additional: IDataObject },
): IDataObject {
	const fields: IDataObject = { taskTitle };
	const taskDescription = optionalText(additional.taskDescription);
	if (taskDescription !== undefined) fields.taskDescription = taskDescription;
	if (priority !== undefined) fields.priority = priority;
	if (!isBlank(additional.dueDate)) {
		fields.dueDate = toIsoUtc(readDateInput(ctx, itemIndex, 'Due Date', additional.dueDate), ctx.getTimezone());
	}
	const assigneeId = optionalText(additional.assigneeId)?.trim();
	if (assigneeId !== undefined) fields.assigneeId = assigneeId;
	const checklist = checklistValue(ctx, itemIndex, additional.checklist);
	if (checklist !== undefined) fields.checklist = checklist;
	const parentId = optionalText(additional.parentId)?.trim();
	if (parentId !== undefined) fields.parentId = parentId;

	return {
		...parseJsonObject(ctx, itemIndex, 'Additional Fields (JSON)', additional.additionalJson),
		...fields,
	};
}
