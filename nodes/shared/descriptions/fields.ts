import type { IDisplayOptions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/** A collection: optional fields the user adds one by one under `displayName`. */
export function collectionOf(
	displayName: string,
	name: string,
	placeholder: string,
	options: INodeProperties[],
): INodeProperties {
	return { displayName, name, type: 'collection', placeholder, default: {}, options };
}

/** The "Options" collection of a node or an operation. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return collectionOf('Options', 'options', 'Add option', options);
}

/** A required one-line text field: an ID, a username, a name. */
export function requiredTextField(
	displayName: string,
	name: string,
	placeholder: string,
	description: string,
): INodeProperties {
	return { displayName, name, type: 'string', default: '', required: true, placeholder, description };
}

/** The required "Name" of what a create operation makes. */
export function requiredNameField(placeholder: string, description: string): INodeProperties {
	return requiredTextField('Name', 'name', placeholder, description);
}

/** Where a download puts the file it fetched: "Put Output File in Field". */
export function outputBinaryField(hint: string): INodeProperties {
	return {
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint,
	};
}

/** "Additional Fields (JSON)": body fields the node has no field for (read by parseJsonObject). */
export function additionalJsonOption(description: string): INodeProperties {
	return { displayName: 'Additional Fields (JSON)', name: 'additionalJson', type: 'json', default: '{}', description };
}

/** Where a field shows, e.g. `{ type: ['image', 'video'] }`. */
export type Show = NonNullable<IDisplayOptions['show']>;

/** One kind of entry of an entry list: its name in the UI and its fields. */
export interface ListEntry {
	displayName: string;
	name: string;
	values: INodeProperties[];
}

/** A list the user adds entries to (a fixedCollection of one kind of entry); `sortable` lets them reorder it. */
export function entryList(
	displayName: string,
	name: string,
	entry: ListEntry,
	{ placeholder, description, show, sortable = false }: { placeholder: string; description?: string; show?: Show; sortable?: boolean },
): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		typeOptions: sortable ? { multipleValues: true, sortable: true } : { multipleValues: true },
		placeholder,
		default: {},
		...(show ? { displayOptions: { show } } : {}),
		...(description !== undefined ? { description } : {}),
		options: [entry],
	};
}

/** `workflowTemplate` -> `Workflow Template`. */
function titleCase(value: string): string {
	return value.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());
}

/**
 * The options of a drop-down from a value list: a name is the value in title case unless `names`
 * gives one, `descriptions` describes every value. Sorted by name as n8n wants them, unless the
 * list's own order means something ('as listed').
 */
export function valueOptions<T extends string>(
	values: readonly T[],
	{
		names = {},
		descriptions,
		order = 'by name',
	}: { names?: Partial<Record<T, string>>; descriptions?: Record<T, string>; order?: 'by name' | 'as listed' } = {},
): INodePropertyOptions[] {
	const options = values.map((value) => ({
		name: names[value] ?? titleCase(value),
		value,
		...(descriptions ? { description: descriptions[value] } : {}),
	}));
	return order === 'by name' ? options.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) : options;
}
