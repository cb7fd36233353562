import type { RetryPolicy } from './retryPolicy';
import type {
	IBinaryData,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IExecuteFunctions,
	INodeCredentialTestResult,
	IWebhookFunctions,
} from 'n8n-workflow';

import { apiPath } from './apiPath';
import { BOT_TOKEN } from './botToken';
import { nameForContentType, responseToBinary } from '../binary';
import { runBotCredentialTest } from '../credentialTests/botTest';
import type { ApiDefinition } from './types';
import { apiAt, requestTo } from './index';

/** The bot API (v1, v2 and image retrieval) under {base_url}, signed with the bot's OAuth token. */
export const BOT_API: ApiDefinition = {
	...apiAt('workplaceBotOAuth2Api', 'baseUrl', [
		'the bot is not a member of the group, or cannot reach the user (a direct chat it may not open, a user who left)',
		'the bot\'s role does not allow the call (e.g. a read-only group, or one where only admins may post)',
		'the bot\'s OAuth client lacks a scope the call needs (tokens are requested with the scope "bot profile"; user lookups need "bot")',
	]),
	// One token per process and bot account, fetched by n8n through the credential's preAuthentication.
	expirableToken: BOT_TOKEN,
};

/** One call to the bot API, used by Workplace Bot and Workplace Trigger. */
export const botRequest = requestTo(BOT_API);

/** The bot credential's "Test" button (named by `testedBy` in Workplace Bot and Workplace Trigger). */
export async function testBotCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	return await runBotCredentialTest(this.helpers, credential.data);
}

/** The sizes the platform serves a picture in. */
export const PICTURE_SIZE_OPTIONS = [
	{ name: 'Small', value: 'small' },
	{ name: 'Medium', value: 'medium' },
	{ name: 'Large', value: 'large' },
];

/**
 * A picture a user sent to the bot (the `pictureId` of a message event), streamed into n8n binary
 * data. Its name is `fileName` (the event's), else the one in Content-Disposition, else
 * `fallbackFileName`, with the extension of the content type the platform returned.
 */
export async function downloadPicture(
	ctx: IExecuteFunctions | IWebhookFunctions,
	pictureId: string,
	size: string,
	names: { fileName?: unknown; fallbackFileName: string },
	itemIndex = 0,
	policy?: RetryPolicy,
): Promise<IBinaryData> {
	const response = await botRequest<Parameters<typeof responseToBinary>[1]['body']>(
		ctx,
		{ method: 'GET', path: apiPath`/file/image/${pictureId}`, qs: { size }, stream: true, ...(policy ? { policy } : {}) },
		itemIndex,
	);
	const given = typeof names.fileName === 'string' ? names.fileName.trim().replace(/[/\\]/g, '_') : '';
	const binary = await responseToBinary(ctx, response, names.fallbackFileName);
	const named = nameForContentType(given || (binary.fileName ?? names.fallbackFileName), binary.mimeType, binary.fileExtension);
	binary.fileName = named.fileName;
	binary.fileExtension = named.fileExtension;
	return binary;
}
