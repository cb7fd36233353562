import type {
	IBinaryKeyData,
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeOperationError, jsonParse } from 'n8n-workflow';

/**
 * Serialised form of one start item, as stored in the start node's `items` parameter.
 * Binary payloads travel as base64 and are turned into real n8n binary data by the node
 * itself (through `helpers.prepareBinaryData`) when the execution runs.
 */
export interface SerializedStartItem {
	json: IDataObject;
	binary?: Record<string, { base64: string; fileName?: string; mimeType?: string }>;
}

/**
 * Test-only start node, modelled on n8n's Manual Trigger: a trigger node without inputs
 * whose `manualTriggerFunction` emits the configured items when the workflow is executed
 * manually. Unlike the real Manual Trigger it emits the test's `inputItems`.
 */
export class EngineManualTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Engine Test Manual Trigger',
		name: 'manualTrigger',
		icon: 'fa:mouse-pointer',
		group: ['trigger'],
		version: 1,
		description: 'Starts the engine test workflow and emits the test input items',
		maxNodes: 1,
		defaults: {
			name: 'Manual Trigger',
		},
		inputs: [],
		outputs: ['main'],
		properties: [
			{
				displayName: 'Items (JSON)',
				name: 'items',
				type: 'string',
				default: '[{"json":{}}]',
				description: 'Serialised items to emit (written by the engine test bed)',
			},
		],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const raw = this.getNodeParameter('items', '[{"json":{}}]') as string;
		const serialized = jsonParse<SerializedStartItem[]>(raw, {
			errorMessage: 'Engine test start node: "items" is not valid JSON',
		});
		if (!Array.isArray(serialized)) {
			throw new NodeOperationError(this.getNode(), 'Engine test start node: "items" must be an array');
		}

		const manualTriggerFunction = async () => {
			const items: INodeExecutionData[] = [];
			for (const item of serialized) {
				const out: INodeExecutionData = { json: item.json ?? {} };
				if (item.binary) {
					const binary: IBinaryKeyData = {};
					for (const [key, value] of Object.entries(item.binary)) {
						binary[key] = await this.helpers.prepareBinaryData(
							Buffer.from(value.base64, 'base64'),
							value.fileName,
							value.mimeType,
						);
					}
					out.binary = binary;
				}
				items.push(out);
			}
			this.emit([items]);
		};

		return { manualTriggerFunction };
	}
}
