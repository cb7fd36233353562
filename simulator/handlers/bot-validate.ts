/** Validation of bot v2 push message objects against every limit of the spec. */
import { FieldError } from '../errors';
import { charLength, HEX_COLOR, isPlainObject } from '../util';

export const LIMITS = {
	url: 1000,
	label: 20,
	title: 40,
	textPlain: 160,
	textWithImageOrTitle: 60,
	buttonsActions: 4,
	carouselColumns: 10,
	columnActions: 3,
	imagemapActions: 50,
	/** not in the spec (chosen) */
	textMessage: 5000,
	/** not in the spec (chosen) */
	messagesPerPush: 5,
	/** not in the spec (chosen) */
	quickReplyItems: 13,
	/** not in the spec (chosen) */
	altText: 400,
};

export const MESSAGE_TYPES = ['text', 'image', 'video', 'audio', 'imagemap', 'template'];
export const ACTION_TYPES = ['message', 'postback', 'workflowTemplate', 'workflow', 'workflows', 'library', 'uri'];
export const WORKFLOW_STATUSES = ['awaiting', 'processing', 'completed', 'rejected', 'canceled'];

type Errs = FieldError[];

function typeName(v: unknown): string {
	return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** String check. Returns the string when valid. */
function str(o: Record<string, unknown>, key: string, path: string, errs: Errs, opts: { required?: boolean; max?: number; allowEmpty?: boolean } = {}): string | undefined {
	const v = o[key];
	const field = `${path}.${key}`;
	if (v === undefined || v === null) {
		if (opts.required) errs.push({ field, message: 'is required' });
		return undefined;
	}
	if (typeof v !== 'string') {
		errs.push({ field, message: `must be a string (got ${typeName(v)})` });
		return undefined;
	}
	if (!opts.allowEmpty && v.length === 0 && opts.required) {
		errs.push({ field, message: 'must not be empty' });
		return undefined;
	}
	if (opts.max !== undefined && charLength(v) > opts.max) {
		errs.push({ field, message: `must be at most ${opts.max} characters (got ${charLength(v)})` });
		return undefined;
	}
	return v;
}

function url(o: Record<string, unknown>, key: string, path: string, errs: Errs, required: boolean): string | undefined {
	const v = str(o, key, path, errs, { required, max: LIMITS.url });
	if (v === undefined) return undefined;
	if (!/^https?:\/\/[^\s]+$/i.test(v)) {
		errs.push({ field: `${path}.${key}`, message: 'must be an absolute http(s) URL' });
		return undefined;
	}
	return v;
}

function oneOf(o: Record<string, unknown>, key: string, path: string, errs: Errs, values: string[]): void {
	const v = o[key];
	if (v === undefined) return;
	if (typeof v !== 'string' || !values.includes(v)) errs.push({ field: `${path}.${key}`, message: `must be one of ${values.join(', ')}` });
}

function color(o: Record<string, unknown>, key: string, path: string, errs: Errs): void {
	const v = o[key];
	if (v === undefined) return;
	if (typeof v !== 'string' || !HEX_COLOR.test(v)) errs.push({ field: `${path}.${key}`, message: 'must be a hex color such as #FFFFFF' });
}

function array(o: Record<string, unknown>, key: string, path: string, errs: Errs, opts: { required?: boolean; min?: number; max?: number }): unknown[] | undefined {
	const v = o[key];
	const field = `${path}.${key}`;
	if (v === undefined || v === null) {
		if (opts.required) errs.push({ field, message: 'is required' });
		return undefined;
	}
	if (!Array.isArray(v)) {
		errs.push({ field, message: `must be an array (got ${typeName(v)})` });
		return undefined;
	}
	if (opts.min !== undefined && v.length < opts.min) errs.push({ field, message: `must contain at least ${opts.min} item(s)` });
	if (opts.max !== undefined && v.length > opts.max) errs.push({ field, message: `must contain at most ${opts.max} items (got ${v.length})` });
	return v;
}

function isInt(v: unknown): v is number {
	return typeof v === 'number' && Number.isInteger(v);
}

export function validateAction(a: unknown, path: string, errs: Errs, ctx: { labelRequired: boolean; areaRequired: boolean }): void {
	if (!isPlainObject(a)) {
		errs.push({ field: path, message: `must be an action object (got ${typeName(a)})` });
		return;
	}
	const type = a.type;
	if (type === undefined) errs.push({ field: `${path}.type`, message: 'is required' });
	else if (typeof type !== 'string' || !ACTION_TYPES.includes(type)) errs.push({ field: `${path}.type`, message: `must be one of ${ACTION_TYPES.join(', ')}` });
	str(a, 'label', path, errs, { required: ctx.labelRequired, max: LIMITS.label });
	if (ctx.areaRequired || a.area !== undefined) {
		const area = a.area;
		if (area === undefined || area === null) errs.push({ field: `${path}.area`, message: 'is required' });
		else if (!isPlainObject(area)) errs.push({ field: `${path}.area`, message: 'must be an object with x, y, width, height' });
		else {
			for (const k of ['x', 'y']) {
				const v = area[k];
				if (v === undefined) errs.push({ field: `${path}.area.${k}`, message: 'is required' });
				else if (!isInt(v) || v < 0) errs.push({ field: `${path}.area.${k}`, message: 'must be an integer >= 0' });
			}
			for (const k of ['width', 'height']) {
				const v = area[k];
				if (v === undefined) errs.push({ field: `${path}.area.${k}`, message: 'is required' });
				else if (!isInt(v) || v <= 0) errs.push({ field: `${path}.area.${k}`, message: 'must be an integer > 0' });
			}
		}
	}
	switch (type) {
		case 'message':
			str(a, 'text', path, errs, { required: true });
			break;
		case 'postback':
			str(a, 'data', path, errs, { required: true });
			str(a, 'text', path, errs, {});
			break;
		case 'workflowTemplate':
			str(a, 'templateId', path, errs, { required: true });
			break;
		case 'workflow':
			str(a, 'workflowId', path, errs, { required: true });
			break;
		case 'workflows':
			oneOf(a, 'status', path, errs, WORKFLOW_STATUSES);
			break;
		case 'library':
			url(a, 'url', path, errs, true);
			break;
		case 'uri':
			// `linkUri` per the action table; `uri` (used by one template sample) is tolerated
			if (a.linkUri !== undefined || a.uri === undefined) url(a, 'linkUri', path, errs, true);
			else url(a, 'uri', path, errs, true);
			break;
		default:
			break;
	}
}

function validateActions(list: unknown[] | undefined, path: string, errs: Errs, ctx: { labelRequired: boolean; areaRequired: boolean }): void {
	list?.forEach((a, i) => validateAction(a, `${path}[${i}]`, errs, ctx));
}

/** text: max 160 without image or title, max 60 with an image or title. */
function templateText(o: Record<string, unknown>, path: string, errs: Errs): void {
	const hasImage = typeof o.thumbnailImageUrl === 'string' && o.thumbnailImageUrl.length > 0;
	const hasTitle = typeof o.title === 'string' && o.title.length > 0;
	const max = hasImage || hasTitle ? LIMITS.textWithImageOrTitle : LIMITS.textPlain;
	const v = str(o, 'text', path, errs, { required: true });
	if (v !== undefined && charLength(v) > max) {
		errs.push({ field: `${path}.text`, message: `must be at most ${max} characters ${max === LIMITS.textPlain ? 'without image or title' : 'with an image or title'} (got ${charLength(v)})` });
	}
}

function validateTemplate(t: unknown, path: string, errs: Errs): void {
	if (t === undefined || t === null) {
		errs.push({ field: path, message: 'is required' });
		return;
	}
	if (!isPlainObject(t)) {
		errs.push({ field: path, message: 'must be an object' });
		return;
	}
	if (t.type === 'buttons') {
		url(t, 'thumbnailImageUrl', path, errs, false);
		oneOf(t, 'imageAspectRatio', path, errs, ['rectangle', 'square']);
		oneOf(t, 'imageSize', path, errs, ['cover', 'contain']);
		color(t, 'imageBackgroundColor', path, errs);
		str(t, 'title', path, errs, { max: LIMITS.title });
		templateText(t, path, errs);
		const actions = array(t, 'actions', path, errs, { required: true, min: 1, max: LIMITS.buttonsActions });
		validateActions(actions, `${path}.actions`, errs, { labelRequired: true, areaRequired: false });
		if (t.defaultAction !== undefined) validateAction(t.defaultAction, `${path}.defaultAction`, errs, { labelRequired: false, areaRequired: false });
	} else if (t.type === 'carousel') {
		oneOf(t, 'imageAspectRatio', path, errs, ['rectangle', 'square']);
		oneOf(t, 'imageSize', path, errs, ['cover', 'contain']);
		const columns = array(t, 'columns', path, errs, { required: true, min: 1, max: LIMITS.carouselColumns });
		columns?.forEach((c, i) => {
			const cp = `${path}.columns[${i}]`;
			if (!isPlainObject(c)) {
				errs.push({ field: cp, message: 'must be an object' });
				return;
			}
			url(c, 'thumbnailImageUrl', cp, errs, false);
			color(c, 'imageBackgroundColor', cp, errs);
			str(c, 'title', cp, errs, { max: LIMITS.title });
			templateText(c, cp, errs);
			const actions = array(c, 'actions', cp, errs, { required: true, min: 1, max: LIMITS.columnActions });
			validateActions(actions, `${cp}.actions`, errs, { labelRequired: true, areaRequired: false });
			if (c.defaultAction !== undefined) validateAction(c.defaultAction, `${cp}.defaultAction`, errs, { labelRequired: false, areaRequired: false });
		});
	} else if (t.type === undefined) {
		errs.push({ field: `${path}.type`, message: 'is required' });
	} else {
		errs.push({ field: `${path}.type`, message: 'must be one of buttons, carousel' });
	}
}

function validateQuickReply(q: unknown, path: string, errs: Errs): void {
	if (!isPlainObject(q)) {
		errs.push({ field: path, message: 'must be an object with items' });
		return;
	}
	const items = array(q, 'items', path, errs, { required: true, min: 1, max: LIMITS.quickReplyItems });
	items?.forEach((it, i) => {
		const ip = `${path}.items[${i}]`;
		if (!isPlainObject(it)) {
			errs.push({ field: ip, message: 'must be an object' });
			return;
		}
		if (it.type === undefined) errs.push({ field: `${ip}.type`, message: 'is required' });
		else if (it.type !== 'action') errs.push({ field: `${ip}.type`, message: 'must be "action"' });
		url(it, 'imageUrl', ip, errs, false);
		if (it.action !== undefined) validateAction(it.action, `${ip}.action`, errs, { labelRequired: true, areaRequired: false });
	});
}

export function validateMessage(m: unknown, path: string, errs: Errs): void {
	if (!isPlainObject(m)) {
		errs.push({ field: path, message: `must be a message object (got ${typeName(m)})` });
		return;
	}
	const type = m.type;
	if (type === undefined) {
		errs.push({ field: `${path}.type`, message: 'is required' });
		return;
	}
	if (typeof type !== 'string' || !MESSAGE_TYPES.includes(type)) {
		errs.push({ field: `${path}.type`, message: `must be one of ${MESSAGE_TYPES.join(', ')}` });
		return;
	}
	switch (type) {
		case 'text':
			str(m, 'text', path, errs, { required: true, max: LIMITS.textMessage });
			break;
		case 'image':
			url(m, 'originalContentUrl', path, errs, true);
			url(m, 'previewImageUrl', path, errs, true);
			break;
		case 'video':
			url(m, 'originalContentUrl', path, errs, true);
			url(m, 'previewImageUrl', path, errs, true);
			str(m, 'trackingId', path, errs, {});
			break;
		case 'audio': {
			url(m, 'originalContentUrl', path, errs, true);
			const d = m.duration;
			if (d === undefined || d === null) errs.push({ field: `${path}.duration`, message: 'is required' });
			else if (typeof d !== 'number' || !Number.isFinite(d) || d <= 0) errs.push({ field: `${path}.duration`, message: 'must be a positive number (milliseconds)' });
			break;
		}
		case 'imagemap': {
			url(m, 'baseUrl', path, errs, true);
			const bs = m.baseSize;
			if (bs === undefined || bs === null) errs.push({ field: `${path}.baseSize`, message: 'is required' });
			else if (!isPlainObject(bs)) errs.push({ field: `${path}.baseSize`, message: 'must be an object with width and height' });
			else {
				for (const k of ['width', 'height']) {
					const v = bs[k];
					if (v === undefined) errs.push({ field: `${path}.baseSize.${k}`, message: 'is required' });
					else if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) errs.push({ field: `${path}.baseSize.${k}`, message: 'must be a positive number (pixels)' });
				}
			}
			str(m, 'altText', path, errs, { max: LIMITS.altText });
			const actions = array(m, 'actions', path, errs, { required: true, min: 1, max: LIMITS.imagemapActions });
			validateActions(actions, `${path}.actions`, errs, { labelRequired: false, areaRequired: true });
			break;
		}
		case 'template':
			str(m, 'altText', path, errs, { max: LIMITS.altText });
			validateTemplate(m.template, `${path}.template`, errs);
			break;
		default:
			break;
	}
	if (m.quickReply !== undefined) validateQuickReply(m.quickReply, `${path}.quickReply`, errs);
}

export function validateMessages(messages: unknown, errs: Errs): void {
	if (messages === undefined || messages === null) {
		errs.push({ field: 'messages', message: 'is required' });
		return;
	}
	if (!Array.isArray(messages)) {
		errs.push({ field: 'messages', message: `must be an array (got ${typeName(messages)})` });
		return;
	}
	if (messages.length === 0) errs.push({ field: 'messages', message: 'must contain at least 1 message' });
	if (messages.length > LIMITS.messagesPerPush) errs.push({ field: 'messages', message: `must contain at most ${LIMITS.messagesPerPush} messages (got ${messages.length})` });
	messages.forEach((m, i) => validateMessage(m, `messages[${i}]`, errs));
}
