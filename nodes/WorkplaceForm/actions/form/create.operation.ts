import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { parseJsonObject } from '../../../shared/validation';
import { formRequest } from '../../transport';
import { bodyFromFields } from './body';
import { checkFormBody } from './validate';
import { nodeParameter } from '../../../shared/parameters';

export { description } from './create.description';
export { simplifyForm as simplify } from './simplify';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const definition = nodeParameter(this, 'definition', itemIndex, 'fields') as string;
	let body: IDataObject;
	if (definition === 'json') {
		body = parseJsonObject(this, itemIndex, 'Form (JSON)', nodeParameter(this, 'formJson', itemIndex, '{}'));
		checkFormBody(this, itemIndex, body, 'path');
	} else {
		body = bodyFromFields(this, itemIndex);
		checkFormBody(this, itemIndex, body, 'ui');
	}
	const { body: created } = await formRequest(this, { method: 'POST', path: '/v1/forms', body }, itemIndex);
	return created;
}
