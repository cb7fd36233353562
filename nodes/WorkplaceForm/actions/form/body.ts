/**
 * The create-form request body from the node's fields (Define Form: Using Fields Below), with
 * the spec's wire names. It rejects only what it cannot shape (a number, date or JSON that does
 * not read); validate.ts checks the result against the spec.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { invalidInput, parseJsonObject } from '../../../shared/validation';
import { DATE_FORMS_HINT, parseDateInput, toDateOnly, toIsoUtc } from '../../../shared/dates';

function isBlank(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** Usernames from a comma-separated text or a list from an expression. */
function usernames(ctx: IExecuteFunctions, itemIndex: number, value: unknown, field: string): string[] {
	if (isBlank(value)) return [];
	const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
	if (list === undefined) throw invalidInput(ctx, itemIndex, field, 'must be usernames separated by commas', value);
	return list.map((entry) => {
		if (typeof entry !== 'string' && typeof entry !== 'number') {
			throw invalidInput(ctx, itemIndex, field, 'must contain only usernames', value);
		}
		return String(entry).trim();
	}).filter((name) => name !== '');
}

function number(ctx: IExecuteFunctions, itemIndex: number, value: unknown, field: string): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isFinite(n)) throw invalidInput(ctx, itemIndex, field, 'must be a number', value);
	return n;
}

function formField(ctx: IExecuteFunctions, itemIndex: number, entry: IDataObject, position: number): IDataObject {
	const label = `Form Fields › Field ${position}`;
	const type = (entry.type as string | undefined) ?? 'textinput';
	if (type === 'json') {
		return parseJsonObject(ctx, itemIndex, `${label} › Field (JSON)`, entry.fieldJson);
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

function stage(ctx: IExecuteFunctions, itemIndex: number, entry: IDataObject, position: number, timeZone: string): IDataObject {
	const label = `Approval Stages › Stage ${position}`;
	const tierValue = isBlank(entry.tier) ? 0 : number(ctx, itemIndex, entry.tier, `${label} › Tier`);
	const tier: IDataObject = { title: typeof entry.title === 'string' ? entry.title : '' };
	const options = (entry.stageOptions as IDataObject | undefined) ?? {};
	if (!isBlank(options.description)) tier.description = options.description;
	tier.tier = tierValue === 0 ? position : tierValue;
	const responders = usernames(ctx, itemIndex, options.responders, `${label} › Responders`);
	if (responders.length) tier.responders = responders.map((userId) => ({ userId }));
	const allowed = ((entry.allowedResponders as { responder?: IDataObject[] } | undefined)?.responder ?? []).map(
		(responder, i) => ({
			type: isBlank(responder.type) ? 'user' : responder.type,
			entityId: typeof responder.entityId === 'string' ? responder.entityId.trim() : responder.entityId,
			weight: isBlank(responder.weight)
				? 1
				: number(ctx, itemIndex, responder.weight, `${label} › Allowed Responders › Responder ${i + 1} › Weight`),
		}),
	);
	if (allowed.length) tier.allowedResponders = allowed;
	if (options.minimumWeight !== undefined) {
		tier.minimumWeight = number(ctx, itemIndex, options.minimumWeight, `${label} › Minimum Weight`);
	}
	if (options.duration !== undefined) tier.duration = number(ctx, itemIndex, options.duration, `${label} › Duration`);
	if (!isBlank(options.dueDate)) {
		const parsed = parseDateInput(options.dueDate);
		if (!parsed) throw invalidInput(ctx, itemIndex, `${label} › Due Date`, `must be ${DATE_FORMS_HINT}`, options.dueDate);
		tier.dueDate = toIsoUtc(parsed, timeZone);
	}
	if (!isBlank(options.status)) tier.status = options.status;
	return tier;
}

/** The request body from the node's fields. */
export function bodyFromFields(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const timeZone = ctx.getTimezone();
	const additional = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const text = (parameter: string) => {
		const value = ctx.getNodeParameter(parameter, itemIndex, '') as IDataObject[string];
		return typeof value === 'string' ? value.trim() : value;
	};
	const fields: IDataObject = { name: text('name'), subject: text('subject') };
	if (!isBlank(additional.dueDate)) {
		const parsed = parseDateInput(additional.dueDate);
		if (!parsed) throw invalidInput(ctx, itemIndex, 'Due Date', `must be ${DATE_FORMS_HINT}`, additional.dueDate);
		fields.dueDate = toDateOnly(parsed, timeZone);
	}
	fields.senderUserId = text('senderUserId');
	fields.receiverUserIds = usernames(
		ctx,
		itemIndex,
		ctx.getNodeParameter('receiverUserIds', itemIndex, '') as unknown,
		'Recipient Usernames',
	);
	const formFields = (ctx.getNodeParameter('formFields', itemIndex, {}) as { field?: IDataObject[] }).field ?? [];
	fields.data = formFields.map((entry, i) => formField(ctx, itemIndex, entry, i + 1));
	fields.status = text('status');
	if (ctx.getNodeParameter('approval', itemIndex, 'single') === 'staged') {
		const stages = (ctx.getNodeParameter('stages', itemIndex, {}) as { stage?: IDataObject[] }).stage ?? [];
		fields.responseType = 'hierarchy';
		fields.responseTiers = stages.map((entry, i) => stage(ctx, itemIndex, entry, i + 1, timeZone));
	}
	return {
		...parseJsonObject(ctx, itemIndex, 'Additional Fields (JSON)', additional.additionalJson),
		...fields,
	};
}
