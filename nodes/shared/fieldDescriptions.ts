import type { INodeProperties } from 'n8n-workflow';

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
