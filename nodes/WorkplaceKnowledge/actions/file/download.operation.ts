import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { isTextFile, responseToBinary, textStartOf } from '../../../shared/binary';
import { runsAsTool } from '../../../shared/tool';
import { outputBinaryField } from '../../../shared/descriptions/fields';
import { requireString } from '../../../shared/validation';
import { knowledgeRequest } from '../../transport';
import { readFileAddress } from './fileAddress';
import { fileLocator, knowledgeBaseLocator } from '../common.descriptions';

const properties: INodeProperties[] = [
	knowledgeBaseLocator,
	fileLocator,
	outputBinaryField('The name of the output binary field to put the file in'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['file'], operation: ['download'] } },
	properties,
);

/** The most of a text file an AI agent reads from a download (bytes, about as many characters). */
export const TOOL_TEXT_MAX_BYTES = 20_000;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const { knowledgeBaseId, fileId, path } = readFileAddress(this, itemIndex);
	const binaryPropertyName = requireString(this, itemIndex, 'binaryPropertyName', 'Put Output File in Field');
	const response = await knowledgeRequest<never>(
		this,
		{ method: 'GET', path: `${path}/download`, stream: true },
		itemIndex,
	);
	const binary = await responseToBinary(this, response, fileId);
	const input = this.getInputData()[itemIndex];
	// An AI agent reads only the item's JSON: a text file's content goes there, its start when long.
	const forAgent = runsAsTool(this) && isTextFile(binary) ? await textStartOf(this, binary, TOOL_TEXT_MAX_BYTES) : undefined;
	return [
		{
			json: {
				knowledgeBaseId,
				fileId,
				fileName: binary.fileName,
				mimeType: binary.mimeType,
				...(forAgent ? { text: forAgent.text, ...(forAgent.truncated ? { textTruncated: true } : {}) } : {}),
			},
			binary: { ...(input?.binary ?? {}), [binaryPropertyName]: binary },
		},
	];
}

export { fileTransferConversationKey as conversationKey } from '../conversations';
