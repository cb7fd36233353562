/** Small predicates and the one way a value is shown after "got" in an error text. */
import type { IDataObject } from 'n8n-workflow';

/** Length in characters (Unicode code points, so an emoji counts once). */
export function charLength(text: string): number {
	return Array.from(text).length;
}

const SHOWN_MAX = 120;

/**
 * The actual value as shown after "got": `nothing`, `null`, `an empty string`, or JSON cut
 * to 120 characters (a cut string keeps its closing quote). `withLength` adds a string's
 * length in characters: `"Too long a label" (16 characters)`.
 */
export function describeValue(value: unknown, { withLength = false }: { withLength?: boolean } = {}): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	if (value === '') return 'an empty string';
	let text: string;
	try {
		text = JSON.stringify(value) ?? String(value);
	} catch {
		text = String(value);
	}
	if (typeof value === 'string') {
		const shown = text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX - 4)}..."` : text;
		return withLength ? `${shown} (${charLength(value)} characters)` : shown;
	}
	return text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX - 3)}...` : text;
}

/** What a value of the wrong kind is: `a list`, `an object`, `null`, else the value itself. */
export function describeKind(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	return describeValue(value);
}

/** An object that is not null and not a list. */
export function isPlainObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Not given: undefined, null, or text that is empty or only spaces. */
export function isBlank(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/**
 * The entries of a comma-separated text, or of a list from an expression: trimmed, empty ones
 * dropped, blank gives []. `undefined` when the value is neither text nor a list of texts and
 * numbers: report it as "must be ... separated by commas" with the whole value.
 */
export function parseCommaList(value: unknown): string[] | undefined {
	if (isBlank(value)) return [];
	const list: unknown[] | undefined = Array.isArray(value)
		? value
		: typeof value === 'string' || typeof value === 'number'
			? String(value).split(',')
			: undefined;
	if (list === undefined || list.some((entry) => typeof entry !== 'string' && typeof entry !== 'number')) {
		return undefined;
	}
	return list.map((entry) => String(entry).trim()).filter((entry) => entry !== '');
}
