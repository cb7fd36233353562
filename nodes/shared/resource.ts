import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { OperationModule } from './router';

/** The operation selector of a resource: its choices and the one selected at first. */
export interface OperationSelector {
	options: INodePropertyOptions[];
	default: string;
}

/**
 * One resource of a node (`actions/<resource>/index.ts`): its operation map for the router, and
 * its part of the node's properties, the operation selector followed by each operation's fields
 * in the order of the map.
 */
export function defineResource(
	resource: string,
	operations: Record<string, OperationModule>,
	{ options, default: firstOperation }: OperationSelector,
): { operations: Record<string, OperationModule>; description: INodeProperties[] } {
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
