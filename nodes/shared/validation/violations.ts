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
	/** Display names of keys, as the node UI names the fields (`imageUrl` -> `Image URL`). */
	keys?: Readonly<Record<string, string>>;
	/** Names of the entries of a list, by the list's key (`responseTiers` -> `Stage`, shown `Stage 2`). */
	entries?: Readonly<Record<string, string>>;
}

/**
 * The field as the user knows it: `Messages > 2 > Template > Actions > 1 > Label`.
 * `root` (optional) comes first; keys go through `names.keys` (unknown keys are shown as
 * they are, so a path may hold display names directly); positions count from 1, after the
 * entry name of their list when `names.entries` has one (`Approval Stages > Stage 2`).
 */
export function displayPath(root: string | undefined, path: FieldPath, names: FieldNames = {}): string {
	const parts: string[] = root === undefined || root === '' ? [] : [root];
	let parent: string | number | undefined;
	for (const segment of path) {
		if (typeof segment === 'number') {
			const entry = typeof parent === 'string' ? names.entries?.[parent] : undefined;
			parts.push(entry === undefined ? String(segment + 1) : `${entry} ${segment + 1}`);
		} else {
			parts.push(names.keys?.[segment] ?? segment);
		}
		parent = segment;
	}
	return parts.join(PATH_SEPARATOR);
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
	/** How a path is named in quotes; default: displayPath without a root or names. */
	name?: (path: FieldPath) => string;
	/** The place in the request body, listed in brackets in the description. */
	place?: (path: FieldPath) => string;
	/** A closing line of the description (or the whole description for a single problem without `place`). */
	note?: string;
}

/**
 * The one error for bad input of an item, raised before anything is sent. Its message is
 * the first problem, `Item 3: "Messages > 2 > Template > Actions > 1 > Label" must be at most
 * 20 characters, got "A label that is far too long" (28 characters) (and 2 more problems)`:
 * the item index as n8n counts it (from 0), positions in the field name counted from 1.
 * With more than one problem, or with `place`, the description lists every problem.
 */
export function violationsError(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	itemIndex: number,
	violations: readonly Violation[],
	{ name = (path) => displayPath(undefined, path), place, note }: ReportOptions = {},
): NodeOperationError {
	const lines = violations.map((v) => `"${name(v.path)}" ${v.rule}, got ${v.got}`);
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
	field: string,
	rule: string,
	actual: unknown,
	description?: string,
): NodeOperationError {
	return violationsError(ctx, itemIndex, [violation([field], rule, actual)], { note: description });
}
