import type {
	IDataObject,
	IExecuteFunctions,
	JsonObject,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** What an operation returns for one input item: records, or ready-made items (binary). */
export type OperationResult = IDataObject | IDataObject[] | INodeExecutionData[];

/** One `actions/<resource>/<operation>.operation.ts` module. */
export interface OperationModule {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult>;
}

export type ResourceMap = Record<string, Record<string, OperationModule>>;

function isExecutionData(value: unknown): value is INodeExecutionData {
	return (
		value !== null &&
		typeof value === 'object' &&
		'json' in value &&
		typeof (value as INodeExecutionData).json === 'object'
	);
}

function toItems(result: OperationResult, itemIndex: number): INodeExecutionData[] {
	const list = Array.isArray(result) ? result : [result];
	return list.map((entry) =>
		isExecutionData(entry)
			? { ...entry, pairedItem: { item: itemIndex } }
			: { json: entry, pairedItem: { item: itemIndex } },
	);
}

/** The error item of continueOnFail: message plus what the platform said, never request details. */
function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.description) json.description = error.description;
	}
	if (error instanceof NodeApiError) {
		if (error.httpCode) json.httpCode = error.httpCode;
		if (error.context.platformError) json.platformError = error.context.platformError as IDataObject;
	}
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * Runs the selected operation for every input item. With "Continue On Fail" a failing
 * item becomes an error item and the others go on; every output item is paired with
 * the input item it came from.
 */
export async function routeOperations(
	this: IExecuteFunctions,
	resources: ResourceMap,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const returnData: INodeExecutionData[] = [];

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const resource = this.getNodeParameter('resource', itemIndex) as string;
			const operation = this.getNodeParameter('operation', itemIndex) as string;
			const module = resources[resource]?.[operation];
			if (module === undefined) {
				throw new NodeOperationError(
					this.getNode(),
					`The operation "${operation}" is not supported for resource "${resource}"`,
					{ itemIndex },
				);
			}
			const result = await module.execute.call(this, itemIndex);
			returnData.push(...toItems(result, itemIndex));
		} catch (error) {
			if (this.continueOnFail()) {
				returnData.push(errorItem(error as Error, itemIndex));
				continue;
			}
			if (error instanceof NodeApiError) {
				if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
				// Given an existing NodeApiError, the constructor hands back that same error.
				throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
			}
			// Likewise for NodeOperationError; anything else is wrapped with the item index.
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
		}
	}
	return [returnData];
}
