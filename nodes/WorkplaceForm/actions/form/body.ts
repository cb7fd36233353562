/**
 * The create-form request body from the node's fields (Define Form: Using Fields Below), with
 * the spec's wire names. It rejects only what it cannot shape (a number, date or JSON that does
 * not read); validate.ts checks the result against the spec.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { readDateInput, toDateOnly, toIsoUtc } from '../../../shared/dates';
import type { FieldPath } from '../../../shared/validation';
import { invalidInput, isBlank, parseCommaList, parseJsonObject } from '../../../shared/validation';
import { formFieldName } from './validate';
import { nodeParameter } from '../../../shared/parameters';

/** The node's lists in the body's shape, so that errors can say "stage 2 of 3". */
type Lists = Record<string, unknown>;

/** Usernames from a comma-separated text or a list from an expression. */
function usernames(ctx: IExecuteFunctions, itemIndex: number, value: unknown, path: FieldPath, lists: Lists): string[] {
	const list = parseCommaList(value);
	if (list === undefined) {
		throw invalidInput(ctx, itemIndex, formFieldName(path, lists), 'must be usernames separated by commas', value);
	}
	return list;
}

function number(ctx: IExecuteFunctions, itemIndex: number, value: unknown, path: FieldPath, lists: Lists): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isFinite(n)) {
		throw invalidInput(ctx, itemIndex, formFieldName(path, lists), 'must be a number', value);
	}
	return n;
}

function formField(ctx: IExecuteFunctions, itemIndex: number, entry: IDataObject, index: number, lists: Lists): IDataObject {
	const type = (entry.type as string | undefined) ?? 'textinput';
	if (type === 'json') {
		return parseJsonObject(ctx, itemIndex, formFieldName(['data', index, 'Field (JSON)'], lists), entry.fieldJson);
	}
	const name = typeof entry.name === 'string' ? entry.name.trim() : entry.name;
	if (type === 'textinput') {
		const field: IDataObject = { type, name };
		if (!isBlank(entry.value)) field.value = String(entry.value);
		field.meta = {};
		field.editable = entry.editable ?? true;
		return field;
	}
	const entries = ((type === 'radio' ? entry.radioOptions : entry.actionOptions) as { option?: IDataObject[] } | undefined)
		?.option ?? [];
	const options = entries.map((option) => {
		const label = typeof option.label === 'string' ? option.label.trim() : option.label;
		if (type === 'radio') {
			return { label, value: isBlank(option.value) ? label : String(option.value) };
		}
		const action: IDataObject = { label };
		if (!isBlank(option.value)) action.value = String(option.value);
		action.type = option.type;
		if (!isBlank(option.color)) action.color = String(option.color).trim();
		return action;
	});
	return { type, name, meta: { options } };
}

function respondersOf(entry: IDataObject): IDataObject[] {
	return (entry.allowedResponders as { responder?: IDataObject[] } | undefined)?.responder ?? [];
}

function stage(ctx: IExecuteFunctions, itemIndex: number, entry: IDataObject, index: number, timeZone: string, lists: Lists): IDataObject {
	const at = ['responseTiers', index];
	const tierValue = isBlank(entry.tier) ? 0 : number(ctx, itemIndex, entry.tier, [...at, 'tier'], lists);
	const tier: IDataObject = { title: typeof entry.title === 'string' ? entry.title : '' };
	const options = (entry.stageOptions as IDataObject | undefined) ?? {};
	if (!isBlank(options.description)) tier.description = options.description;
	tier.tier = tierValue === 0 ? index + 1 : tierValue;
	const responders = usernames(ctx, itemIndex, options.responders, [...at, 'responders'], lists);
	if (responders.length) tier.responders = responders.map((userId) => ({ userId }));
	const allowed = respondersOf(entry).map(
		(responder, i) => ({
			type: isBlank(responder.type) ? 'user' : responder.type,
			entityId: typeof responder.entityId === 'string' ? responder.entityId.trim() : responder.entityId,
			weight: isBlank(responder.weight)
				? 1
				: number(ctx, itemIndex, responder.weight, [...at, 'allowedResponders', i, 'weight'], lists),
		}),
	);
	if (allowed.length) tier.allowedResponders = allowed;
	if (options.minimumWeight !== undefined) {
		tier.minimumWeight = number(ctx, itemIndex, options.minimumWeight, [...at, 'minimumWeight'], lists);
	}
	if (options.duration !== undefined) tier.duration = number(ctx, itemIndex, options.duration, [...at, 'duration'], lists);
	if (!isBlank(options.dueDate)) {
		const dueDate = readDateInput(ctx, itemIndex, formFieldName([...at, 'dueDate'], lists), options.dueDate);
		tier.dueDate = toIsoUtc(dueDate, timeZone);
	}
	if (!isBlank(options.status)) tier.status = options.status;
	return tier;
}

/** The request body from the node's fields. */
export function bodyFromFields(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const timeZone = ctx.getTimezone();
	const additional = nodeParameter(ctx, 'additionalFields', itemIndex, {}) as IDataObject;
	const text = (parameter: string) => {
		const value = nodeParameter(ctx, parameter, itemIndex, '') as IDataObject[string];
		return typeof value === 'string' ? value.trim() : value;
	};
	const fields: IDataObject = { name: text('name'), subject: text('subject') };
	if (!isBlank(additional.dueDate)) {
		fields.dueDate = toDateOnly(readDateInput(ctx, itemIndex, formFieldName(['dueDate']), additional.dueDate), timeZone);
	}
	fields.senderUserId = text('senderUserId');
	const recipients = nodeParameter(ctx, 'receiverUserIds', itemIndex, '') as unknown;
	const formFields = (nodeParameter(ctx, 'formFields', itemIndex, {}) as { field?: IDataObject[] }).field ?? [];
	const staged = nodeParameter(ctx, 'approval', itemIndex, 'single') === 'staged';
	const stages = staged ? ((nodeParameter(ctx, 'stages', itemIndex, {}) as { stage?: IDataObject[] }).stage ?? []) : [];
	const lists: Lists = {
		data: formFields,
		responseTiers: stages.map((entry) => ({ allowedResponders: respondersOf(entry) })),
	};
	fields.receiverUserIds = usernames(ctx, itemIndex, recipients, ['receiverUserIds'], lists);
	fields.data = formFields.map((entry, i) => formField(ctx, itemIndex, entry, i, lists));
	fields.status = text('status');
	if (staged) {
		fields.responseType = 'hierarchy';
		fields.responseTiers = stages.map((entry, i) => stage(ctx, itemIndex, entry, i, timeZone, lists));
	}
	return {
		...parseJsonObject(ctx, itemIndex, 'Additional Fields (JSON)', additional.additionalJson),
		...fields,
	};
}
