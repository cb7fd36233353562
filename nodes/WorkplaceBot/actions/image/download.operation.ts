import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { downloadPicture, PICTURE_SIZE_OPTIONS } from '../../../shared/transport/botApi';
import { outputBinaryField, requiredTextField } from '../../../shared/descriptions/fields';
import { requireResourceId, requireString } from '../../../shared/validation';

export const description = updateDisplayOptions(
	{ show: { resource: ['image'], operation: ['download'] } },
	[
		requiredTextField(
			'Picture ID',
			'pictureId',
			'e.g. {{ $json.message.pictureId }}',
			'The `pictureId` of a message event the user sent',
		),
		{
			displayName: 'Size',
			name: 'size',
			type: 'options',
			options: PICTURE_SIZE_OPTIONS,
			default: 'medium',
		},
		outputBinaryField('The name of the output binary field to put the picture in'),
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const pictureId = requireResourceId(this, itemIndex, 'pictureId', 'Picture ID');
	const size = this.getNodeParameter('size', itemIndex, 'medium') as string;
	const binaryPropertyName = requireString(this, itemIndex, 'binaryPropertyName', 'Put Output File in Field');
	const binary = await downloadPicture(this, pictureId, size, `${pictureId}-${size}`, itemIndex);
	const input = this.getInputData()[itemIndex];
	return [
		{
			json: { pictureId, size, fileName: binary.fileName, mimeType: binary.mimeType },
			binary: { ...(input?.binary ?? {}), [binaryPropertyName]: binary },
		},
	];
}
