/**
 * Node parameters read and checked one at a time: each helper throws the item's error
 * (violationsError) at the first problem, before any request is sent.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isPlainObject } from './values';
import type { FieldName } from './violations';
import { invalidInput } from './violations';
import { nodeParameter } from '../parameters';

/** A required text parameter, trimmed; empty is an error. */
export function requireString(
	ctx: IExecuteFunctions,
	itemIndex: number,
	parameter: string,
	field: string,
): string {
	const value = nodeParameter(ctx, parameter, itemIndex, '') as unknown;
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalidInput(ctx, itemIndex, field, 'must be text', value);
	}
	const text = String(value).trim();
	if (text === '') throw invalidInput(ctx, itemIndex, field, 'must not be empty', value);
	return text;
}

/**
 * An ID from a text parameter or a resource locator (From List / By ID), trimmed and checked,
 * returned plain: a request path is built with apiPath (nodes/shared/transport/apiPath.ts), the one
 * place IDs are encoded.
 */
export function requireId(
	ctx: IExecuteFunctions,
	itemIndex: number,
	parameter: string,
	field: string,
): string {
	const value = nodeParameter(ctx, parameter, itemIndex, '', { extractValue: true }) as unknown;
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalidInput(ctx, itemIndex, field, 'must be an ID', value);
	}
	const id = String(value).trim();
	if (id === '') throw invalidInput(ctx, itemIndex, field, 'must not be empty', value);
	if (/[\s/?#]/.test(id)) {
		throw invalidInput(ctx, itemIndex, field, 'must be an ID without spaces, "/", "?" or "#"', value);
	}
	return id;
}

/** "Additional Fields (JSON)": a JSON object given as text or as an object from an expression. */
export function parseJsonObject(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string | FieldName,
	value: unknown,
): IDataObject {
	if (value === undefined || value === null || value === '') return {};
	let parsed: unknown = value;
	if (typeof value === 'string') {
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			throw invalidInput(ctx, itemIndex, field, `must be valid JSON (${(error as Error).message})`, value);
		}
	}
	if (!isPlainObject(parsed)) {
		throw invalidInput(ctx, itemIndex, field, 'must be a JSON object like {"key": "value"}', value);
	}
	return parsed as IDataObject;
}

/** A whole number within bounds. */
export function requireInteger(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	{ min, max }: { min?: number; max?: number } = {},
): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number)) {
		throw invalidInput(ctx, itemIndex, field, 'must be a whole number', value);
	}
	if (min !== undefined && number < min) {
		throw invalidInput(ctx, itemIndex, field, `must be at least ${min}`, value);
	}
	if (max !== undefined && number > max) {
		throw invalidInput(ctx, itemIndex, field, `must be at most ${max}`, value);
	}
	return number;
}
