/** Violations (what is wrong where) and the one error that reports them for an item. */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { describeValue } from './values';

/** Where a value sits: keys and list positions (0-based, shown from 1). */
export type FieldPath = ReadonlyArray<string | number>;

export interface Violation {
	path: FieldPath;
	/** What the field must be, e.g. `must be at most 20 characters`. */
	rule: string;
	/** How the actual value is shown after "got" (see describeValue), e.g. `"Too long" (8 characters)`. */
	got: string;
}

/** A violation with the actual value described by describeValue. */
export function violation(path: FieldPath, rule: string, actual: unknown): Violation {
	return { path, rule, got: describeValue(actual) };
}

/** Between the parts of a field name: `Messages > 2 > Template > Label`. */
export const PATH_SEPARATOR = ' > ';

export interface FieldNames {
	/**
	 * Display names of keys, as the node UI names the fields (`imageUrl` -> `Image URL`); an
	 * empty name hides the key (a wrapper object the UI does not show).
	 */
	keys?: Readonly<Record<string, string>>;
	/**
	 * The display name of a key where it depends on its place (`name` on a form field is its
	 * `Label`); undefined falls back to `keys`.
	 */
	keyAt?: (path: FieldPath, k: number) => string | undefined;
	/**
	 * What one entry of a list is called in words, by the list's key or by the root for a path
	 * that starts in a list (`responseTiers` -> `stage`, `Messages` -> `message`).
	 */
	entries?: Readonly<Record<string, string>>;
}

/**
 * A field as the user finds it: `field` names it as the UI does (`Messages > Template > Actions >
 * Label`), `at` says where it sits in its lists, in words (`message 2 of 3, action 1 of 4`).
 */
export interface FieldName {
	field: string;
	at: string;
}

/** The length of each list on the path, read from the checked value (undefined where unknown). */
function listLength(value: unknown, path: FieldPath, upTo: number): number | undefined {
	let current = value;
	for (let k = 0; k < upTo; k++) {
		const segment = path[k];
		if (current === null || typeof current !== 'object') return undefined;
		current = (current as Record<string | number, unknown>)[segment];
	}
	return Array.isArray(current) ? current.length : undefined;
}

/**
 * The one counting convention of every error: items from 0 as n8n numbers them (`Item 0`, said
 * by violationsError), positions in a list in words from 1 with the total when `value` (what
 * the path points into) shows it: `{ field: 'Approval Stages > Allowed Responders > Weight',
 * at: 'stage 2 of 3, responder 1 of 2' }`. Keys go through `names`; unknown keys are shown as
 * they are, so a path may hold display names directly.
 */
export function nameField(root: string | undefined, path: FieldPath, names: FieldNames = {}, value?: unknown): FieldName {
	const parts: string[] = root === undefined || root === '' ? [] : [root];
	const positions: string[] = [];
	let parent: string | number | undefined = root;
	for (const [k, segment] of path.entries()) {
		if (typeof segment === 'number') {
			const noun = (typeof parent === 'string' ? names.entries?.[parent] : undefined) ?? 'entry';
			const total = listLength(value, path, k);
			positions.push(`${noun} ${segment + 1}${total === undefined ? '' : ` of ${total}`}`);
		} else {
			const shown = names.keyAt?.(path, k) ?? names.keys?.[segment] ?? segment;
			if (shown !== '') parts.push(shown);
		}
		parent = segment;
	}
	return { field: parts.join(PATH_SEPARATOR), at: positions.join(', ') };
}

/** `"Messages > Template > Actions > Label" (message 2 of 3, action 1 of 4)`, as errors show a field. */
export function quoteField(name: string | FieldName): string {
	if (typeof name === 'string') return `"${name}"`;
	return `"${name.field}"${name.at === '' ? '' : ` (${name.at})`}`;
}

/** nameField as one line: `Messages > Template > Actions > Label (message 2 of 3, action 1 of 4)`. */
export function displayPath(root: string | undefined, path: FieldPath, names: FieldNames = {}, value?: unknown): string {
	const { field, at } = nameField(root, path, names, value);
	return at === '' ? field : `${field} (${at})`;
}

/** `messages[1].template.actions[0].label`: the place in the request body, positions 0-based. */
export function wirePath(path: FieldPath, root = ''): string {
	let text = root;
	for (const segment of path) {
		if (typeof segment === 'number') text += `[${segment}]`;
		else text += text === '' ? segment : `.${segment}`;
	}
	return text;
}

export interface ReportOptions {
	/** How a path is named (see nameField); default: nameField without a root or names. */
	name?: (path: FieldPath) => string | FieldName;
	/** The place in the request body, listed in brackets in the description. */
	place?: (path: FieldPath) => string;
	/** A closing line of the description (or the whole description for a single problem without `place`). */
	note?: string;
}

/**
 * The one error for bad input of an item, raised before anything is sent. Its message is
 * the first problem, `Item 3: "Messages > Template > Actions > Label" (message 2 of 3, action 1
 * of 4) must be at most 20 characters, got "A label that is far too long" (28 characters) (and 2
 * more problems)`: the item index as n8n counts it (from 0), list positions in words (nameField).
 * With more than one problem, or with `place`, the description lists every problem.
 */
export function violationsError(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	itemIndex: number,
	violations: readonly Violation[],
	{ name = (path) => nameField(undefined, path), place, note }: ReportOptions = {},
): NodeOperationError {
	const lines = violations.map((v) => `${quoteField(name(v.path))} ${v.rule}, got ${v.got}`);
	const more = violations.length - 1;
	const message = `Item ${itemIndex}: ${lines[0]}${more > 0 ? ` (and ${more} more problem${more > 1 ? 's' : ''})` : ''}`;
	const parts: string[] = [];
	if (violations.length > 1 || place !== undefined) {
		parts.push(
			`Nothing was sent for this item. ${violations.length === 1 ? 'Problem' : `${violations.length} problems`}:`,
			...lines.map((line, k) => `${k + 1}. ${line}${place ? ` [${place(violations[k].path)}]` : ''}`),
		);
	}
	if (note !== undefined) parts.push(note);
	const description = parts.length > 0 ? parts.join('\n') : undefined;
	return new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
}

/**
 * One problem of a field named in the UI's words, as violationsError reports it:
 * `Item 2: "Knowledge Base" must not be empty, got an empty string`.
 */
export function invalidInput(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	itemIndex: number,
	field: string | FieldName,
	rule: string,
	actual: unknown,
	description?: string,
): NodeOperationError {
	return violationsError(ctx, itemIndex, [violation([], rule, actual)], { name: () => field, note: description });
}
