import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { botRequest } from '../../../shared/transport/botApi';
import { requiredTextField } from '../../../shared/descriptions/fields';
import { requireString } from '../../../shared/validation';
import { simplifyProperty } from '../../../shared/descriptions/simplify';

const usernameField = requiredTextField(
	'Username',
	'username',
	'e.g. alice',
	'The exact username to look up (not the display name), e.g. `source.username` of a Workplace Trigger message event',
);

export const description = updateDisplayOptions(
	{ show: { resource: ['user'], operation: ['getByUsername'] } },
	[usernameField, simplifyProperty],
);

/** One output item per matching user; none when nobody has that username. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const username = requireString(this, itemIndex, 'username', 'Username');
	const { body } = await botRequest<{ users?: IDataObject[] }>(
		this,
		{ method: 'GET', path: '/bot/v1/users', qs: { username } },
		itemIndex,
	);
	return Array.isArray(body?.users) ? body.users : [];
}

export { simplifyUser as simplify } from './simplify';
