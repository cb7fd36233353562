/**
 * "Simplify Output" (descriptions/simplify.ts): an operation that returns platform records names
 * a function that keeps the fields an agent needs of its record (`OperationModule.simplify`); the
 * router applies it to the record of every item the operation returns when shouldSimplify says so.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { SimplifyMode } from './descriptions/simplify';
import { SIMPLIFY_MODES } from './descriptions/simplify';
import { runsAsTool } from './tool';
import { invalidInput, isPlainObject } from './validation';
import { nodeParameter } from './parameters';

/** Keeps the fields an agent needs of one record; the result is a subset of the record. */
export type Simplifier = (record: IDataObject) => IDataObject;

/** Whether an item's records are simplified: always, never, or when the node runs as an agent's tool. */
export function shouldSimplify(ctx: IExecuteFunctions, itemIndex: number): boolean {
	const mode = nodeParameter(ctx, 'simplify', itemIndex, 'asTool') as SimplifyMode;
	if (!SIMPLIFY_MODES.includes(mode)) {
		throw invalidInput(ctx, itemIndex, 'Simplify Output', 'must be "asTool", "always" or "never"', mode);
	}
	return mode === 'always' || (mode === 'asTool' && runsAsTool(ctx));
}

/**
 * The fields of `record` named in `keys` that it has, in the order of `keys`, names and values as
 * the platform gave them. A record with none of them (a shape the node does not know) is kept whole.
 */
export function pickFields(record: IDataObject, keys: readonly string[]): IDataObject {
	const picked: IDataObject = {};
	for (const key of keys) {
		if (Object.prototype.hasOwnProperty.call(record, key) && record[key] !== undefined) picked[key] = record[key];
	}
	return Object.keys(picked).length > 0 ? picked : record;
}

/** `{ [key]: record }` with the record simplified: an answer that wraps its record (`{ group: {...} }`). */
export function pickWrapped(body: IDataObject, key: string, keys: readonly string[]): IDataObject {
	const record = body[key];
	return isPlainObject(record) ? { [key]: pickFields(record as IDataObject, keys) } : body;
}
