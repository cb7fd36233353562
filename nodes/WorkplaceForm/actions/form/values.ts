import type { INodePropertyOptions } from 'n8n-workflow';

/**
 * The value lists of the spec's Form and Response tier objects, each written once: the wire
 * value and its name in the node UI, in the spec's order (errors list the values in it).
 */
export type ValueNames = Readonly<Record<string, string>>;

export const FORM_STATUSES: ValueNames = {
	drafted: 'Drafted',
	published: 'Published',
	completed: 'Completed',
	submitted: 'Submitted',
};

export const TIER_STATUSES: ValueNames = {
	submitted: 'Submitted',
	drafted: 'Drafted',
	approved: 'Approved',
	rejected: 'Rejected',
	mixed: 'Mixed',
	canceled: 'Canceled',
};

/** The range of a response tier's number. */
export const TIER_MIN = 1;
export const TIER_MAX = 100;

/** What choosing an action button means (its option type). */
export const ACTION_OPTION_TYPES: ValueNames = {
	approved: 'Approved',
	rejected: 'Rejected',
	other: 'Other',
};

/** The wire values of a list, in its order. */
export function valuesOf(list: ValueNames): string[] {
	return Object.keys(list);
}

/** The list as UI options, in its order or sorted by name. */
export function optionsOf(list: ValueNames, order: 'as listed' | 'by name'): INodePropertyOptions[] {
	const options = Object.entries(list).map(([value, name]) => ({ name, value }));
	return order === 'by name' ? options.sort((a, b) => a.name.localeCompare(b.name)) : options;
}
