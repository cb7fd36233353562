import type { INodeProperties } from 'n8n-workflow';

/** An ID as it may appear in a path: no spaces, "/", "?" or "#" (n8n anchors the pattern). */
export const ID_PATTERN = '[^\\s/?#]+';

export interface IdLocator {
	displayName: string;
	name: string;
	description: string;
	/** The node's `methods.listSearch` entry that fills "From List". */
	searchListMethod: string;
	placeholder: string;
	invalidIdMessage: string;
	/** Optional locators accept an empty value (it means something, e.g. the main chat). */
	required?: boolean;
	/** Parameters the list depends on: the editor searches again when one of them changes. */
	dependsOn?: string[];
}

/** A resource locator: pick from a searchable list, or give the ID. */
export function idLocator(locator: IdLocator): INodeProperties {
	const required = locator.required ?? true;
	return {
		displayName: locator.displayName,
		name: locator.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		...(required ? { required: true } : {}),
		...(locator.dependsOn ? { typeOptions: { loadOptionsDependsOn: locator.dependsOn } } : {}),
		description: locator.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: locator.searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: locator.placeholder,
				validation: [
					{
						type: 'regex',
						properties: {
							regex: required ? ID_PATTERN : `(${ID_PATTERN})?`,
							errorMessage: locator.invalidIdMessage,
						},
					},
				],
			},
		],
	};
}
