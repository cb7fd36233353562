import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiPath } from '../../../shared/apiPath';
import { responseToBinary } from '../../../shared/binary';
import { requireResourceId, requireString } from '../../../shared/validation';
import { botRequest } from '../../transport';

export const description = updateDisplayOptions(
	{ show: { resource: ['image'], operation: ['download'] } },
	[
		{
			displayName: 'Picture ID',
			name: 'pictureId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. {{ $json.message.pictureId }}',
			description: 'The `pictureId` of a message event the user sent',
		},
		{
			displayName: 'Size',
			name: 'size',
			type: 'options',
			options: [
				{ name: 'Small', value: 'small' },
				{ name: 'Medium', value: 'medium' },
				{ name: 'Large', value: 'large' },
			],
			default: 'medium',
		},
		{
			displayName: 'Put Output File in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			hint: 'The name of the output binary field to put the picture in',
		},
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const pictureId = requireResourceId(this, itemIndex, 'pictureId', 'Picture ID');
	const size = this.getNodeParameter('size', itemIndex, 'medium') as string;
	const binaryPropertyName = requireString(this, itemIndex, 'binaryPropertyName', 'Put Output File in Field');
	const response = await botRequest<never>(
		this,
		{ method: 'GET', path: apiPath`/file/image/${pictureId}`, qs: { size }, stream: true },
		itemIndex,
	);
	const binary = await responseToBinary(this, response, `${pictureId}-${size}`);
	const input = this.getInputData()[itemIndex];
	return [
		{
			json: { pictureId, size, fileName: binary.fileName, mimeType: binary.mimeType },
			binary: { ...(input?.binary ?? {}), [binaryPropertyName]: binary },
		},
	];
}
