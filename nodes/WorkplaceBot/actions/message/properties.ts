/**
 * Builders for the node UI fields of the message entries, so each field is one line of
 * what differs (name, description, where it shows) instead of a repeated object.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { Show } from '../../../shared/descriptions/fields';

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
