import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { OperationModule, ResourceMap } from './router';

/** The choices of a Resource or Operation selector, and the one selected at first. */
export interface SelectorChoices {
	options: INodePropertyOptions[];
	default: string;
}

/** A resource as its `actions/<resource>/index.ts` exports it. */
export interface Resource {
	operations: Record<string, OperationModule>;
	description: INodeProperties[];
}

/**
 * One resource of a node (`actions/<resource>/index.ts`): its operation map for the router, and
 * its part of the node's properties, the operation selector followed by each operation's fields
 * in the order of the map.
 */
export function defineResource(
	resource: string,
	operations: Record<string, OperationModule>,
	{ options, default: firstOperation }: SelectorChoices,
): Resource {
	const operationSelector: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: firstOperation,
	};
	return {
		operations,
		description: [operationSelector, ...Object.values(operations).flatMap((operation) => operation.description)],
	};
}

/** The router's map from each of a node's resources to its operations. */
export function operationsOf(resources: Record<string, Resource>): ResourceMap {
	return Object.fromEntries(Object.entries(resources).map(([name, resource]) => [name, resource.operations]));
}
