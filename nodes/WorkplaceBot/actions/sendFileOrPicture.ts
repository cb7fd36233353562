import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { botRequest } from '../../shared/transport/botApi';
import { fileUrlOrDataUri } from './fileUrlOrDataUri';
import { nodeParameter } from '../../shared/parameters';

/** File and picture sends at once, at most: each may hold its file in memory in n8n's database binary mode (router's maxAtOnce). */
export const FILE_SENDS_AT_ONCE = 5;

/**
 * Send Picture and Send File of Direct Message and Group Message: the v1 endpoint at `path` gets
 * the recipient fields (uid, or gid and tid), the file string and, for a picture, the caption. A
 * recipient still to look up (a username) is resolved after the file was checked.
 */
export async function sendFileOrPicture(
	ctx: IExecuteFunctions,
	itemIndex: number,
	kind: 'picture' | 'file',
	path: string,
	recipient: IDataObject | (() => Promise<IDataObject>),
): Promise<IDataObject> {
	const field = kind === 'picture' ? 'Picture URL or Reference' : 'File URL or Reference';
	const file = await fileUrlOrDataUri(ctx, itemIndex, field);
	const body: IDataObject = { ...(typeof recipient === 'function' ? await recipient() : recipient), file };
	if (kind === 'picture') body.caption = nodeParameter(ctx, 'caption', itemIndex, '') as string;
	const { body: answer } = await botRequest(ctx, { method: 'POST', path, body }, itemIndex);
	return answer;
}
