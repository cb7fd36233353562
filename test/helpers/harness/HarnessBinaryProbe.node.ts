import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { Readable } from 'node:stream';

async function streamToString(stream: Readable): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
	return Buffer.concat(chunks).toString('utf8');
}

/**
 * TEST-ONLY node for test/engine/harness.test.ts (not part of the package).
 * - inspect: reports how an input binary arrived (id / inline) and reads it as a stream
 *   through `helpers.getBinaryStream` when it has an id (filesystem mode).
 * - produce: creates a binary output from a stream through `helpers.prepareBinaryData`.
 */
export class HarnessBinaryProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness Binary Probe',
		name: 'harnessBinaryProbe',
		group: ['transform'],
		version: 1,
		description: 'Reads and writes binary data through n8n helpers',
		defaults: { name: 'Binary Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Inspect', value: 'inspect' },
					{ name: 'Produce', value: 'produce' },
				],
				default: 'inspect',
			},
			{
				displayName: 'Binary Property',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
			},
			{
				displayName: 'Text',
				name: 'text',
				type: 'string',
				default: '',
				displayOptions: { show: { operation: ['produce'] } },
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const operation = this.getNodeParameter('operation', 0) as string;
		const returnData: INodeExecutionData[] = [];

		for (let i = 0; i < items.length; i++) {
			const property = this.getNodeParameter('binaryPropertyName', i) as string;
			if (operation === 'inspect') {
				const binary = this.helpers.assertBinaryData(i, property);
				const content = binary.id
					? await streamToString(await this.helpers.getBinaryStream(binary.id))
					: (await this.helpers.getBinaryDataBuffer(i, property)).toString('utf8');
				returnData.push({
					json: {
						id: binary.id ?? null,
						streamed: binary.id !== undefined,
						fileName: binary.fileName ?? null,
						mimeType: binary.mimeType,
						fileSize: binary.fileSize ?? null,
						content,
					},
					pairedItem: { item: i },
				});
			} else {
				const text = this.getNodeParameter('text', i) as string;
				const stream = Readable.from([Buffer.from(text, 'utf8')]);
				const binary = await this.helpers.prepareBinaryData(stream, `out-${i}.txt`, 'text/plain');
				returnData.push({
					json: { produced: true },
					binary: { [property]: binary },
					pairedItem: { item: i },
				});
			}
		}
		return [returnData];
	}
}
