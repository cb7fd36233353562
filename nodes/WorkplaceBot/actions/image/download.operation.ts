import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { downloadPicture, PICTURE_SIZE_OPTIONS } from '../../../shared/transport/botApi';
import { outputBinaryField, requiredTextField } from '../../../shared/descriptions/fields';
import { invalidInput, requireId, requireString } from '../../../shared/validation';
import { nodeParameter } from '../../../shared/parameters';

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
		{
			displayName: 'File Name',
			name: 'fileName',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.message.fileName }}',
			description:
				'Name to give the downloaded file, usually the `fileName` of the message event. Its extension is made to match the type the platform returned (e.g. .jpg for image/jpeg). Empty: the Picture ID and the size (e.g. pic-0001-medium.png).',
		},
		outputBinaryField('The name of the output binary field to put the picture in'),
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const pictureId = requireId(this, itemIndex, 'pictureId', 'Picture ID');
	const size = nodeParameter(this, 'size', itemIndex, 'medium') as string;
	const binaryPropertyName = requireString(this, itemIndex, 'binaryPropertyName', 'Put Output File in Field');
	const fileName = nodeParameter(this, 'fileName', itemIndex, '') as unknown;
	// null or undefined: an expression naming an event without fileName, taken as empty.
	if (fileName !== undefined && fileName !== null && typeof fileName !== 'string' && typeof fileName !== 'number') {
		throw invalidInput(this, itemIndex, 'File Name', 'must be text', fileName);
	}
	const binary = await downloadPicture(
		this,
		pictureId,
		size,
		{ fileName: fileName === undefined || fileName === null ? '' : String(fileName), fallbackFileName: `${pictureId}-${size}` },
		itemIndex,
	);
	const input = this.getInputData()[itemIndex];
	return [
		{
			json: { pictureId, size, fileName: binary.fileName, mimeType: binary.mimeType },
			binary: { ...(input?.binary ?? {}), [binaryPropertyName]: binary },
		},
	];
}
