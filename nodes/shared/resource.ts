import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { OperationModule, ResourceMap } from './router';

/** The choices of a Resource selector, and the one selected at first. */
export interface SelectorChoices {
	options: INodePropertyOptions[];
	default: string;
}

/** A resource as its `actions/<resource>/index.ts` exports it. */
export interface Resource {
	operations: Record<string, OperationModule>;
	description: INodeProperties[];
}

/** One operation of a resource: its module and how the Operation selector shows it. */
export interface OperationEntry {
	module: OperationModule;
	name: string;
	description: string;
	action: string;
}

/**
 * One resource of a node (`actions/<resource>/index.ts`) from its one table of operations, keyed
 * by the Operation selector's values: the operation map for the router, and its part of the node's
 * properties, the operation selector (in the table's order) followed by each operation's fields.
 * The compiler checks the table: the first operation must be one of its keys, and each entry needs
 * its module, so an operation cannot be offered without its module or the reverse.
 */
export function defineResource<K extends string>(resource: string, table: Record<K, OperationEntry>, firstOperation: NoInfer<K>): Resource {
	const entries = Object.entries(table) as Array<[K, OperationEntry]>;
	const operationSelector: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: entries.map(([value, { name, description, action }]) => ({ name, value, description, action })),
		default: firstOperation,
	};
	const operations = Object.fromEntries(entries.map(([value, entry]) => [value, entry.module])) as Record<string, OperationModule>;
	return {
		operations,
		description: [operationSelector, ...entries.flatMap(([, entry]) => entry.module.description)],
	};
}

/** The router's map from each of a node's resources to its operations. */
export function operationsOf(resources: Record<string, Resource>): ResourceMap {
	return Object.fromEntries(Object.entries(resources).map(([name, resource]) => [name, resource.operations]));
}
