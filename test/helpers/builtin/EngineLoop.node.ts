import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

/**
 * Test-only loop, as a workflow loops back through n8n's Loop Over Items: `runNode` with
 * `loopRuns` wires Manual Trigger → Loop → node under test → Loop. It passes its input on until it
 * has run `runs` times, so the node under test runs `runs` times in one execution (run index 0, 1, ...).
 */
export class EngineLoop implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Engine Test Loop',
		name: 'loop',
		icon: 'fa:sync',
		group: ['transform'],
		version: 1,
		description: 'Passes its input on until it has run "Runs" times',
		defaults: { name: 'Loop' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'Runs', name: 'runs', type: 'number', default: 1 }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const runs = this.getNodeParameter('runs', 0) as number;
		const runIndex = Number(this.getWorkflowDataProxy(0).$runIndex);
		return [runIndex < runs ? this.getInputData() : []];
	}
}
