/**
 * Checks a create-form body against the spec (Form, Response tier object, Limits) before it is
 * sent, collecting every problem (nodes/shared/validation). The field is named as in the node's
 * UI ("Approval Stages > Tier" (stage 2 of 3)) or, for a body given as JSON, by its place in the
 * body ("responseTiers[1].tier").
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isCalendarDate, isWireTimestamp } from '../../../shared/dates';
import type { FieldName, FieldNames, FieldPath, ReportOptions } from '../../../shared/validation';
import { Checker, describeValue, nameField, violationsError, wirePath } from '../../../shared/validation';
import { ACTION_OPTION_TYPES, FORM_STATUSES, TIER_MAX, TIER_MIN, TIER_STATUSES } from './values';

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

export type FieldNaming = 'ui' | 'path';

/** Directly on a form field (data[i].x), `name` is its label and `value` its preset value. */
const ON_FORM_FIELD: Readonly<Record<string, string>> = { name: 'Label', value: 'Preset Value' };

/** The body's keys and list entries as the node UI names them. */
const FORM_NAMES: FieldNames = {
	keys: {
		// The UI shows a field's options directly, without the body's meta object.
		meta: '',
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
	},
	entries: {
		receiverUserIds: 'recipient',
		data: 'field',
		options: 'option',
		responseTiers: 'stage',
		allowedResponders: 'responder',
		responders: 'responder',
	},
	// Directly on a form field (data[i].x), `name` is its label and `value` its preset value.
	keyAt: (path, k) => (k === 2 && path[0] === 'data' ? ON_FORM_FIELD[path[k] as string] : undefined),
};

/**
 * `['responseTiers', 1, 'allowedResponders', 0, 'weight']` -> `"Approval Stages > Allowed
 * Responders > Weight" (stage 2 of 3, responder 1 of 2)`; `body` (or anything of its shape) gives the totals.
 */
export function formFieldName(path: FieldPath, body?: unknown): FieldName {
	return nameField(undefined, path, FORM_NAMES, body);
}

function optionalNumber(c: Checker, obj: Record<string, unknown>, key: string, path: FieldPath, bounds: Parameters<Checker['number']>[3]): void {
	if (obj[key] !== undefined && obj[key] !== null) c.number(obj, key, path, bounds);
}

function checkField(c: Checker, field: Record<string, unknown>, p: FieldPath): void {
	const type = c.string(field, 'type', p, { required: true });
	c.string(field, 'name', p, { required: true });
	c.string(field, 'value', p);
	if (field.editable !== undefined && typeof field.editable !== 'boolean') {
		c.add([...p, 'editable'], 'must be true or false', describeValue(field.editable));
	}
	const meta = field.meta === undefined ? {} : c.object(field, 'meta', p, 'an object {options?}');
	if (meta === undefined || (type !== 'radio' && type !== 'action')) return;
	const mp = [...p, 'meta'];
	const optionShape = type === 'action' ? 'an object {label, value?, type, color?}' : 'an object {label, value}';
	for (const [option, op] of c.objectEntries(c.list(meta, 'options', mp, { min: 1, noun: 'options' }), [...mp, 'options'], optionShape)) {
		c.string(option, 'label', op, { required: true });
		if (type === 'radio' && (option.value === undefined || option.value === null)) {
			c.add([...op, 'value'], 'is required', describeValue(option.value));
		} else {
			c.string(option, 'value', op);
		}
		if (type === 'action') c.oneOf(option, 'type', op, ACTION_OPTION_TYPES, { required: true });
		if (option.color !== undefined && (typeof option.color !== 'string' || !HEX_COLOR.test(option.color))) {
			c.add([...op, 'color'], 'must be a hex color such as #16A34A', describeValue(option.color));
		}
	}
}

function checkTier(c: Checker, tier: Record<string, unknown>, p: FieldPath): void {
	c.string(tier, 'title', p);
	c.string(tier, 'description', p);
	optionalNumber(c, tier, 'tier', p, { integer: true, min: TIER_MIN, max: TIER_MAX });
	const responders = c.list(tier, 'responders', p, { min: 0, noun: 'responders {userId}', optional: true });
	for (const [responder, rp] of c.objectEntries(responders, [...p, 'responders'], 'an object {userId}')) {
		c.string(responder, 'userId', rp, { required: true });
	}
	const allowed = c.list(tier, 'allowedResponders', p, { min: 0, noun: 'responders {type, entityId, weight}', optional: true });
	for (const [responder, rp] of c.objectEntries(allowed, [...p, 'allowedResponders'], 'an object {type, entityId, weight}')) {
		c.string(responder, 'type', rp, { required: true });
		c.string(responder, 'entityId', rp, { required: true });
		c.number(responder, 'weight', rp, { min: 0 });
	}
	if (tier.status !== null) c.oneOf(tier, 'status', p, TIER_STATUSES);
	if (tier.dueDate !== undefined && tier.dueDate !== null && !isWireTimestamp(tier.dueDate)) {
		c.add([...p, 'dueDate'], 'must be an ISO 8601 timestamp such as 2025-03-31T17:00:00Z', describeValue(tier.dueDate));
	}
	optionalNumber(c, tier, 'duration', p, { min: 0 });
	optionalNumber(c, tier, 'minimumWeight', p, { min: 0 });
}

/** Every problem of a create-form body, in the order of the body's fields. */
function checkBody(c: Checker, body: IDataObject): void {
	c.string(body, 'name', [], { required: true });
	c.string(body, 'subject', [], { required: true });
	if (body.dueDate !== undefined && body.dueDate !== null && !isCalendarDate(body.dueDate)) {
		c.add(['dueDate'], 'must be a date in the format YYYY-MM-DD', describeValue(body.dueDate));
	}
	c.string(body, 'senderUserId', [], { required: true });
	c.list(body, 'receiverUserIds', [], { min: 1, noun: 'usernames' })?.forEach((user, i) =>
		c.text(user, ['receiverUserIds', i], { required: true }),
	);
	const fields = c.list(body, 'data', [], { min: 1, noun: 'fields' });
	for (const [field, fp] of c.objectEntries(fields, ['data'], 'an object {type, name, value, meta, editable}')) {
		checkField(c, field, fp);
	}
	c.oneOf(body, 'status', [], FORM_STATUSES, { required: true });
	const type = body.responseType;
	const single = type === undefined || type === null;
	if (!single && type !== 'hierarchy') {
		c.add(['responseType'], 'must be "hierarchy" (staged approval) or left out (single stage)', describeValue(type));
	}
	const tiers = c.list(body, 'responseTiers', [], { min: 0, noun: 'stages', optional: true });
	if (single && tiers !== undefined && tiers.length > 0) {
		c.add(['responseType'], 'must be "hierarchy" when approval stages (responseTiers) are given', describeValue(type));
	}
	if (type === 'hierarchy' && (tiers?.length === 0 || body.responseTiers === undefined || body.responseTiers === null)) {
		c.add(['responseTiers'], 'must contain at least one stage for staged approval', describeValue(body.responseTiers));
	}
	for (const [tier, tp] of c.objectEntries(tiers, ['responseTiers'], 'an object {title, description, tier, responders, allowedResponders, status, dueDate, duration, minimumWeight}')) {
		checkTier(c, tier, tp);
	}
}

/** Throws every problem of a create-form body as one NodeOperationError naming the item, the fields and their values. */
export function checkFormBody(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, naming: FieldNaming): void {
	const c = new Checker();
	checkBody(c, body);
	if (c.violations.length === 0) return;
	const report: ReportOptions =
		naming === 'ui' ? { name: (path) => formFieldName(path, body), place: (path) => wirePath(path) } : { name: (path) => wirePath(path) };
	throw violationsError(ctx, itemIndex, c.violations, report);
}
