import type { INodeProperties } from 'n8n-workflow';

/** A list the user adds entries to and reorders in the UI (a fixedCollection), with one kind of entry. */
export function sortableList(
	list: Pick<INodeProperties, 'displayName' | 'name' | 'placeholder' | 'description' | 'displayOptions'>,
	entry: { displayName: string; name: string; values: INodeProperties[] },
): INodeProperties {
	const { displayName, name, ...rest } = list;
	return {
		displayName,
		name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		...rest,
		options: [entry],
	};
}
