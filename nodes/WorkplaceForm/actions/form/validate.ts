/**
 * Checks a create-form body against the spec (Form, Response tier object, Limits) before it is
 * sent. The first problem becomes `Item 0: "<field>" <rule>, got <value>`; the field is named as
 * in the node's UI ("Approval Stages › Stage 2 › Tier") or, for a body given as JSON, by its
 * path in the body ("responseTiers[1].tier").
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isCalendarDate, isWireTimestamp } from '../../../shared/dates';
import { invalidInput } from '../../../shared/validation';
import { ACTION_OPTION_TYPES, FORM_STATUSES, TIER_MAX, TIER_MIN, TIER_STATUSES, valuesOf } from './values';

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

export type FieldNaming = 'ui' | 'path';

const NAMES: Record<string, string> = {
	name: 'Name',
	subject: 'Subject',
	dueDate: 'Due Date',
	senderUserId: 'Sender Username',
	receiverUserIds: 'Recipient Usernames',
	data: 'Form Fields',
	status: 'Status',
	responseType: 'Approval',
	responseTiers: 'Approval Stages',
	type: 'Type',
	value: 'Value',
	editable: 'Editable',
	options: 'Options',
	label: 'Label',
	color: 'Color',
	title: 'Title',
	description: 'Description',
	tier: 'Tier',
	allowedResponders: 'Allowed Responders',
	responders: 'Responders',
	entityId: 'Username',
	userId: 'Username',
	weight: 'Weight',
	minimumWeight: 'Minimum Weight',
	duration: 'Duration',
};

const ENTRY_NAMES: Record<string, string> = {
	receiverUserIds: 'Recipient',
	data: 'Field',
	options: 'Option',
	responseTiers: 'Stage',
	allowedResponders: 'Responder',
	responders: 'Responder',
};

/** `responseTiers[1].allowedResponders[0].weight` -> `Approval Stages › Stage 2 › Allowed Responders › Responder 1 › Weight` */
export function uiFieldName(path: string): string {
	const tokens = path.match(/[^.[\]]+|\[\d+\]/g) ?? [];
	const parts: string[] = [];
	let parent = '';
	tokens.forEach((token, position) => {
		const index = /^\[(\d+)\]$/.exec(token);
		if (index) {
			parts.push(`${ENTRY_NAMES[parent] ?? 'Entry'} ${Number(index[1]) + 1}`);
			return;
		}
		parent = token;
		if (token === 'meta') return;
		// Directly on a form field (data[i].x), `name` is its label and `value` its preset value.
		const onFormField = position === 2 && tokens[0] === 'data';
		if (onFormField && token === 'name') parts.push('Label');
		else if (onFormField && token === 'value') parts.push('Preset Value');
		else parts.push(NAMES[token] ?? token);
	});
	return parts.join(' › ');
}

class FormChecker {
	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly itemIndex: number,
		private readonly naming: FieldNaming,
	) {}

	fail(path: string, rule: string, value: unknown): never {
		const field = this.naming === 'ui' ? uiFieldName(path) : path;
		throw invalidInput(this.ctx, this.itemIndex, field, rule, value);
	}

	requiredText(value: unknown, path: string): void {
		if (value === undefined || value === null) this.fail(path, 'is required', value);
		if (typeof value !== 'string') this.fail(path, 'must be text', value);
		if (value.trim() === '') this.fail(path, 'must not be empty', value);
	}

	optionalText(value: unknown, path: string): void {
		if (value !== undefined && value !== null && typeof value !== 'string') this.fail(path, 'must be text', value);
	}

	optionalNumber(value: unknown, path: string, { min, max, integer }: { min?: number; max?: number; integer?: boolean }): void {
		if (value === undefined || value === null) return;
		if (typeof value !== 'number' || !Number.isFinite(value)) this.fail(path, 'must be a number', value);
		if (integer && !Number.isInteger(value)) this.fail(path, 'must be a whole number', value);
		if (min !== undefined && max !== undefined && (value < min || value > max)) {
			this.fail(path, `must be between ${min} and ${max}`, value);
		}
		if (min !== undefined && value < min) this.fail(path, `must be at least ${min}`, value);
	}

	oneOf(value: unknown, path: string, allowed: string[]): void {
		if (typeof value !== 'string' || !allowed.includes(value)) {
			this.fail(path, `must be one of ${allowed.join(', ')}`, value);
		}
	}

	object(value: unknown, path: string, shape: string): asserts value is IDataObject {
		if (value === null || typeof value !== 'object' || Array.isArray(value)) this.fail(path, `must be an object ${shape}`, value);
	}

	list(value: unknown, path: string, what: string, { required = false, nonEmpty = false } = {}): unknown[] | undefined {
		if (value === undefined || value === null) {
			if (required) this.fail(path, 'is required', value);
			return undefined;
		}
		if (!Array.isArray(value)) this.fail(path, `must be a list of ${what}`, value);
		if (nonEmpty && value.length === 0) this.fail(path, `must contain at least one ${what.replace(/s$/, '')}`, value);
		return value;
	}
}

function checkField(c: FormChecker, field: unknown, p: string): void {
	c.object(field, p, '{type, name, value, meta, editable}');
	c.requiredText(field.type, `${p}.type`);
	c.requiredText(field.name, `${p}.name`);
	c.optionalText(field.value, `${p}.value`);
	if (field.editable !== undefined && typeof field.editable !== 'boolean') c.fail(`${p}.editable`, 'must be true or false', field.editable);
	if (field.meta !== undefined) c.object(field.meta, `${p}.meta`, '{options?}');
	const type = field.type as string;
	if (type !== 'radio' && type !== 'action') return;
	const options = c.list((field.meta as IDataObject | undefined)?.options, `${p}.meta.options`, 'options', {
		required: true,
		nonEmpty: true,
	}) as unknown[];
	options.forEach((option, i) => {
		const op = `${p}.meta.options[${i}]`;
		c.object(option, op, type === 'action' ? '{label, value?, type, color?}' : '{label, value}');
		c.requiredText(option.label, `${op}.label`);
		if (type === 'radio') {
			if (typeof option.value !== 'string') c.fail(`${op}.value`, 'must be text', option.value);
		} else {
			c.optionalText(option.value, `${op}.value`);
			c.oneOf(option.type, `${op}.type`, valuesOf(ACTION_OPTION_TYPES));
		}
		if (option.color !== undefined && (typeof option.color !== 'string' || !HEX_COLOR.test(option.color))) {
			c.fail(`${op}.color`, 'must be a hex color such as #16A34A', option.color);
		}
	});
}

function checkTier(c: FormChecker, tier: unknown, p: string): void {
	c.object(tier, p, '{title, description, tier, responders, allowedResponders, status, dueDate, duration, minimumWeight}');
	c.optionalText(tier.title, `${p}.title`);
	c.optionalText(tier.description, `${p}.description`);
	c.optionalNumber(tier.tier, `${p}.tier`, { min: TIER_MIN, max: TIER_MAX, integer: true });
	c.list(tier.responders, `${p}.responders`, 'responders {userId}')?.forEach((responder, i) => {
		c.object(responder, `${p}.responders[${i}]`, '{userId}');
		c.requiredText(responder.userId, `${p}.responders[${i}].userId`);
	});
	c.list(tier.allowedResponders, `${p}.allowedResponders`, 'responders {type, entityId, weight}')?.forEach((responder, i) => {
		const rp = `${p}.allowedResponders[${i}]`;
		c.object(responder, rp, '{type, entityId, weight}');
		c.requiredText(responder.type, `${rp}.type`);
		c.requiredText(responder.entityId, `${rp}.entityId`);
		if (responder.weight === undefined || responder.weight === null) c.fail(`${rp}.weight`, 'is required', responder.weight);
		c.optionalNumber(responder.weight, `${rp}.weight`, { min: 0 });
	});
	if (tier.status !== undefined && tier.status !== null) c.oneOf(tier.status, `${p}.status`, valuesOf(TIER_STATUSES));
	if (tier.dueDate !== undefined && tier.dueDate !== null && !isWireTimestamp(tier.dueDate)) {
		c.fail(`${p}.dueDate`, 'must be an ISO 8601 timestamp such as 2025-03-31T17:00:00Z', tier.dueDate);
	}
	c.optionalNumber(tier.duration, `${p}.duration`, { min: 0 });
	c.optionalNumber(tier.minimumWeight, `${p}.minimumWeight`, { min: 0 });
}

/** Throws the first problem of a create-form body as a NodeOperationError naming item, field and value. */
export function checkFormBody(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, naming: FieldNaming): void {
	const c = new FormChecker(ctx, itemIndex, naming);
	c.requiredText(body.name, 'name');
	c.requiredText(body.subject, 'subject');
	if (body.dueDate !== undefined && body.dueDate !== null) {
		if (!isCalendarDate(body.dueDate)) {
			c.fail('dueDate', 'must be a date in the format YYYY-MM-DD', body.dueDate);
		}
	}
	c.requiredText(body.senderUserId, 'senderUserId');
	c.list(body.receiverUserIds, 'receiverUserIds', 'usernames', { required: true, nonEmpty: true })?.forEach((user, i) =>
		c.requiredText(user, `receiverUserIds[${i}]`),
	);
	c.list(body.data, 'data', 'fields', { required: true, nonEmpty: true })?.forEach((field, i) => checkField(c, field, `data[${i}]`));
	if (body.status === undefined || body.status === null) c.fail('status', 'is required', body.status);
	c.oneOf(body.status, 'status', valuesOf(FORM_STATUSES));
	if (body.responseType !== undefined && body.responseType !== null && body.responseType !== 'hierarchy') {
		c.fail('responseType', 'must be "hierarchy" (staged approval) or left out (single stage)', body.responseType);
	}
	const tiers = c.list(body.responseTiers, 'responseTiers', 'stages');
	if (tiers !== undefined && tiers.length > 0 && body.responseType !== 'hierarchy') {
		c.fail('responseType', 'must be "hierarchy" when approval stages (responseTiers) are given', body.responseType);
	}
	if (body.responseType === 'hierarchy' && (tiers === undefined || tiers.length === 0)) {
		c.fail('responseTiers', 'must contain at least one stage for staged approval', body.responseTiers);
	}
	tiers?.forEach((tier, i) => checkTier(c, tier, `responseTiers[${i}]`));
}
