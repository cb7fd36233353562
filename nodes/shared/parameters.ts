/**
 * Parameters of a node run, each read once: on n8n 2 every expression n8n evaluates costs an
 * isolate call (about 0.3 ms), which was most of a send's CPU when a field was read twice (once
 * to group the items by conversation, once to send).
 *
 * - A value without an expression is the same for every item: n8n reads it once per node run.
 * - `={{ $json.field }}` (what dragging an input field into a parameter writes) is the item's own
 *   `json.field`, as n8n documents `$json`; when that is text, a number or true/false it is taken
 *   from the input item without an isolate call. Anything else goes to n8n.
 * - Every other expression: n8n evaluates it once per item.
 * Only reads made through nodeParameter are kept, for as long as the node run (its context) lives.
 *
 * The item's field is checked against n8n's own evaluation on the first item of every run (one
 * isolate call per field and run); should they ever differ, n8n evaluates every such field from
 * then on in this process, and the log says so once (reliance.ts). An AI agent's tool call always
 * goes to n8n.
 */
import type { IDataObject, IExecuteFunctions, IGetNodeParameterOptions } from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';

import { warnOnce } from './reliance';
import { runsAsTool } from './tool';

type Value = unknown;

/** `={{ $json.a.b }}`: an input field path of plain names, with nothing else in the expression. */
const INPUT_FIELD_EXPRESSION = /^=\{\{\s*\$json((?:\.[A-Za-z_$][\w$]*)+)\s*\}\}$/;

function containsExpression(value: Value): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(containsExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(containsExpression);
	return false;
}

function valueAtPath(source: Value, path: string[]): Value {
	let value = source;
	for (const key of path) {
		if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, key)) return undefined;
		value = (value as IDataObject)[key];
	}
	return value;
}

const isLocator = (value: Value): value is IDataObject =>
	value !== null && typeof value === 'object' && (value as IDataObject).__rl === true;

const isPrimitive = (value: Value): value is string | number | boolean =>
	typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean';

/** The copy a caller gets: n8n hands out a fresh value on every read, so a caller may change it. */
const handOut = (value: Value): Value => (value !== null && typeof value === 'object' ? deepCopy(value as IDataObject) : value);

/** Cleared for the process once an item's field and n8n's evaluation differ. */
let inputFieldsAgree = true;

class RunParameters {
	private readonly raw: IDataObject;
	private readonly readsInputFields: boolean;
	/** Fields whose first read this run was compared with n8n's evaluation. */
	private readonly compared = new Set<string>();
	private readonly fixed = new Map<string, Value>();
	private readonly perItem = new Map<string, Value>();

	constructor(private readonly ctx: IExecuteFunctions) {
		this.raw = ctx.getNode().parameters;
		this.readsInputFields = !runsAsTool(ctx);
	}

	read(name: string, itemIndex: number, fallback: Value, options: IGetNodeParameterOptions | undefined): Value {
		const raw = this.rawOf(name);
		if (raw === undefined && fallback !== undefined) return fallback;
		// extractValue changes only a resource locator: one read serves both kinds of call
		const { extractValue, ...others } = options ?? {};
		const keyOptions = isLocator(raw) ? { ...others, extractValue } : others;
		const key = `${name}\u0000${JSON.stringify(keyOptions)}`;
		if (raw !== undefined && !containsExpression(raw)) {
			if (!this.fixed.has(key)) this.fixed.set(key, this.fromN8n(name, itemIndex, fallback, options));
			return handOut(this.fixed.get(key));
		}
		const itemKey = `${itemIndex}\u0000${key}`;
		const fromItem = this.fromInputField(raw, itemIndex, options);
		if (fromItem !== undefined) {
			if (this.compared.has(key)) return fromItem;
			this.compared.add(key);
			const evaluated = this.fromN8n(name, itemIndex, fallback, options);
			if (evaluated === fromItem) return fromItem;
			this.stopReadingInputFields(name);
			this.perItem.set(itemKey, evaluated);
			return handOut(evaluated);
		}
		if (!this.perItem.has(itemKey)) this.perItem.set(itemKey, this.fromN8n(name, itemIndex, fallback, options));
		return handOut(this.perItem.get(itemKey));
	}

	locatorMode(name: string): string | undefined {
		const raw = this.rawOf(name);
		return isLocator(raw) && typeof raw.mode === 'string' ? raw.mode : undefined;
	}

	/** The parameter as saved in the workflow, expressions unevaluated. */
	private rawOf(name: string): Value {
		return valueAtPath(this.raw, name.split('.'));
	}

	private stopReadingInputFields(name: string): void {
		inputFieldsAgree = false;
		warnOnce(
			this.ctx.logger,
			'inputFieldExpressions',
			`Parameter "${name}" = {{ $json.… }} evaluated by n8n differs from the input item's field: n8n evaluates every such parameter from now on.`,
		);
	}

	/** The item's own field for `={{ $json.a.b }}` (also as a resource locator's value, extracted); else undefined. */
	private fromInputField(raw: Value, itemIndex: number, options: IGetNodeParameterOptions | undefined): Value {
		if (!inputFieldsAgree || !this.readsInputFields || options?.ensureType || options?.rawExpressions) return undefined;
		let expression = raw;
		if (isLocator(raw)) {
			if (!options?.extractValue) return undefined;
			expression = raw.value;
		}
		if (typeof expression !== 'string') return undefined;
		const match = INPUT_FIELD_EXPRESSION.exec(expression);
		if (!match) return undefined;
		const item = this.ctx.getInputData()[itemIndex];
		const value = valueAtPath(item?.json, match[1].slice(1).split('.'));
		return isPrimitive(value) ? value : undefined;
	}

	private fromN8n(name: string, itemIndex: number, fallback: Value, options: IGetNodeParameterOptions | undefined): Value {
		return this.ctx.getNodeParameter(name, itemIndex, fallback as never, options);
	}
}

const runs = new WeakMap<IExecuteFunctions, RunParameters>();

function runOf(ctx: IExecuteFunctions): RunParameters {
	let run = runs.get(ctx);
	if (!run) {
		run = new RunParameters(ctx);
		runs.set(ctx, run);
	}
	return run;
}

/**
 * `ctx.getNodeParameter(name, itemIndex, fallback, options)`, read once per node run and item
 * (see above). Operations and the router read every parameter through it.
 */
export function nodeParameter(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback?: unknown,
	options?: IGetNodeParameterOptions,
): unknown {
	if (name.includes('[')) return ctx.getNodeParameter(name, itemIndex, fallback as never, options);
	return runOf(ctx).read(name, itemIndex, fallback, options);
}

/**
 * The mode of a resource locator as saved (By ID, By Username…), without evaluating its value;
 * undefined when the parameter is not a saved locator (e.g. one expression for the whole of it).
 */
export function savedLocatorMode(ctx: IExecuteFunctions, name: string): string | undefined {
	return runOf(ctx).locatorMode(name);
}
