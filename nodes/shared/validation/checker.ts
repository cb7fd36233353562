/** Collects every problem of a request body (or of node parameters) as Violations. */
import { charLength, describeKind, describeValue, isPlainObject } from './values';
import type { FieldPath, Violation } from './violations';

type Obj = Record<string, unknown>;

/** `required`: present and not blank; `max`: at most that many characters. */
interface TextRules {
	required?: boolean;
	max?: number;
}

/** `"a", "b", "c"`: the allowed values in a rule. */
export function quotedList(allowed: readonly string[]): string {
	return allowed.map((a) => `"${a}"`).join(', ');
}

/**
 * Each check reads `obj[key]`, records what is wrong at `[...path, key]` and goes on, so one
 * pass finds every problem. Checks return the value when it has the right kind, for nested checks.
 */
export class Checker {
	readonly violations: Violation[] = [];

	/** Records a problem; `got` is already described (see describeValue, describeKind). */
	add(path: FieldPath, rule: string, got: string): void {
		this.violations.push({ path, rule, got });
	}

	/** A text field; `required` means present and not blank; `max` counts characters. */
	string(obj: Obj, key: string, path: FieldPath, rules: TextRules = {}): string | undefined {
		return this.text(obj[key], [...path, key], rules);
	}

	/** A text value at `at` (a list entry, say), judged as string judges a field. */
	text(value: unknown, at: FieldPath, { required = false, max }: TextRules = {}): string | undefined {
		if (value === undefined || value === null) {
			if (required) this.add(at, 'is required', describeValue(value));
			return undefined;
		}
		if (typeof value !== 'string') {
			this.add(at, 'must be text', describeKind(value));
			return undefined;
		}
		if (required && value.trim() === '') {
			this.add(at, 'must not be empty', describeValue(value));
			return value;
		}
		if (max !== undefined && charLength(value) > max) {
			this.add(at, `must be at most ${max} characters`, describeValue(value, { withLength: true }));
		}
		return value;
	}

	/** One of `allowed` when given; `required` also reports a missing value (undefined or null). */
	oneOf(obj: Obj, key: string, path: FieldPath, allowed: readonly string[], { required = false } = {}): void {
		const value = obj[key];
		if (value === undefined || (required && value === null)) {
			if (required) this.add([...path, key], 'is required', describeValue(value));
			return;
		}
		if (typeof value !== 'string' || !allowed.includes(value)) {
			this.add([...path, key], `must be one of ${quotedList(allowed)}`, describeValue(value));
		}
	}

	/**
	 * A list of `min`..`max` entries; `noun` names them in the rule ("actions"). An `optional` list
	 * may be left out (undefined or null).
	 */
	list(
		obj: Obj,
		key: string,
		path: FieldPath,
		{ min, max, noun, optional = false }: { min: number; max?: number; noun: string; optional?: boolean },
	): unknown[] | undefined {
		const value = obj[key];
		const at = [...path, key];
		if (value === undefined || value === null) {
			if (!optional) this.add(at, 'is required', describeValue(value));
			return undefined;
		}
		if (!Array.isArray(value)) {
			this.add(at, `must be a list of ${noun}`, describeKind(value));
			return undefined;
		}
		const got = `${value.length} ${noun}`;
		if (value.length < min) {
			this.add(at, `must have at least ${min} ${min === 1 ? noun.replace(/s$/, '') : noun}`, got);
		} else if (max !== undefined && value.length > max) {
			this.add(at, `must have at most ${max} ${noun}`, got);
		}
		return value;
	}

	/**
	 * The entries of a list (from list, at `path`) that are objects, each with its path, to check
	 * each one; an entry that is not is reported, `what` describing an entry ("an object {userId}").
	 */
	objectEntries(list: unknown[] | undefined, path: FieldPath, what: string): Array<[Obj, FieldPath]> {
		const objects: Array<[Obj, FieldPath]> = [];
		list?.forEach((entry, i) => {
			if (isPlainObject(entry)) objects.push([entry, [...path, i]]);
			else this.add([...path, i], `must be ${what}`, describeKind(entry));
		});
		return objects;
	}

	/**
	 * A required number; `integer`; bounds `min` (inclusive) or `above` (exclusive) and `max`
	 * (inclusive); `unit` is added to the rule (` (pixels)`).
	 */
	number(
		obj: Obj,
		key: string,
		path: FieldPath,
		{
			integer = false,
			min,
			above,
			max,
			unit = '',
		}: { integer?: boolean; min?: number; above?: number; max?: number; unit?: string },
	): number | undefined {
		const value = obj[key];
		const at = [...path, key];
		const noun = integer ? 'a whole number' : 'a number';
		if (value === undefined || value === null) {
			this.add(at, 'is required', describeValue(value));
		} else if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
			this.add(at, `must be ${noun}${unit}`, describeValue(value));
		} else if (min !== undefined && value < min) {
			this.add(at, `must be ${noun} of at least ${min}${unit}`, describeValue(value));
		} else if (above !== undefined && value <= above) {
			this.add(at, `must be ${noun} greater than ${above}${unit}`, describeValue(value));
		} else if (max !== undefined && value > max) {
			this.add(at, `must be ${noun} of at most ${max}${unit}`, describeValue(value));
		} else {
			return value;
		}
		return undefined;
	}

	/** A required object (not a list); `what` describes it in the rule ("an object with x and y"). */
	object(obj: Obj, key: string, path: FieldPath, what: string): Obj | undefined {
		const value = obj[key];
		if (value === undefined || value === null) {
			this.add([...path, key], 'is required', describeValue(value));
			return undefined;
		}
		if (!isPlainObject(value)) {
			this.add([...path, key], `must be ${what}`, describeKind(value));
			return undefined;
		}
		return value;
	}
}
