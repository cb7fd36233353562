/**
 * Builders for the node UI fields of the message entries, so each field is one line of
 * what differs (name, description, where it shows) instead of a repeated object.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/** Where a field shows, e.g. `{ type: ['image', 'video'] }`. */
export type Show = Record<string, string[]>;

export interface PropertyOptions {
	required?: boolean;
	placeholder?: string;
	show?: Show;
	/** Lines of a text field. */
	rows?: number;
	/** Lowest value of a number field. */
	minValue?: number;
	/** The default when not the type's empty value ('' or 0). */
	default?: string;
}

/** A text, number, color or JSON field; its default is empty ('' or 0) unless given. */
export function property(
	type: 'string' | 'number' | 'color' | 'json',
	displayName: string,
	name: string,
	description: string,
	{ required, placeholder, show, rows, minValue, default: given }: PropertyOptions = {},
): INodeProperties {
	const typeOptions = rows !== undefined ? { rows } : minValue !== undefined ? { minValue } : undefined;
	return {
		displayName,
		name,
		type,
		...(typeOptions ? { typeOptions } : {}),
		default: given ?? (type === 'number' ? 0 : ''),
		...(required !== undefined ? { required } : {}),
		...(placeholder !== undefined ? { placeholder } : {}),
		...(show ? { displayOptions: { show } } : {}),
		description,
	};
}

/** A drop-down of `options`. */
export function optionsProperty(
	displayName: string,
	name: string,
	options: INodePropertyOptions[],
	defaultValue: string,
	{ show, description }: { show?: Show; description?: string } = {},
): INodeProperties {
	return {
		displayName,
		name,
		type: 'options',
		options,
		default: defaultValue,
		...(show ? { displayOptions: { show } } : {}),
		...(description !== undefined ? { description } : {}),
	};
}

/** A list the user adds entries to (a fixedCollection of one kind of entry). */
export function listProperty(
	displayName: string,
	name: string,
	description: string,
	{
		placeholder,
		show,
		sortable,
		entry,
	}: { placeholder: string; show?: Show; sortable?: boolean; entry: { displayName: string; name: string; values: INodeProperties[] } },
): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		typeOptions: sortable ? { multipleValues: true, sortable: true } : { multipleValues: true },
		placeholder,
		default: {},
		...(show ? { displayOptions: { show } } : {}),
		description,
		options: [entry],
	};
}

/** `workflowTemplate` -> `Workflow Template`. */
function titleCase(value: string): string {
	return value.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());
}

/**
 * The options of a drop-down from the spec's value list, sorted by name as n8n wants them.
 * A name is the value in title case unless `names` gives one; `descriptions` names every value.
 */
export function choices<T extends string>(
	values: readonly T[],
	{ names = {}, descriptions }: { names?: Partial<Record<T, string>>; descriptions?: Record<T, string> } = {},
): INodePropertyOptions[] {
	return values
		.map((value) => ({
			name: names[value] ?? titleCase(value),
			value,
			...(descriptions ? { description: descriptions[value] } : {}),
		}))
		.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
