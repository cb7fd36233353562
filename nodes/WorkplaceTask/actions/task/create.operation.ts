import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { requireString } from '../../../shared/validation';
import { createTaskRequest } from '../../transport';
import { optionalText, priorityValue, taskBody } from './body';
import { derivedIdempotencyKey } from './idempotencyKey';
import { checkTaskBody } from './validate';
import { nodeParameter } from '../../../shared/parameters';

export { description } from './create.description';
export { simplifyTask as simplify } from './simplify';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const taskTitle = requireString(this, itemIndex, 'taskTitle', 'Title');
	const priority = priorityValue(this, itemIndex);
	const additional = nodeParameter(this, 'additionalFields', itemIndex, {}) as IDataObject;
	const options = nodeParameter(this, 'options', itemIndex, {}) as IDataObject;
	const body = taskBody(this, itemIndex, { taskTitle, priority, additional });
	checkTaskBody(this, itemIndex, body, options.enforceRecommendedLimits !== false);

	const idempotencyKey = optionalText(options.idempotencyKey)?.trim() ?? derivedIdempotencyKey(this, itemIndex, body);
	const retryWithKey = options.retryWithIdempotencyKey === true;
	const { body: created } = await createTaskRequest(this, body, { idempotencyKey, retryWithKey }, itemIndex);
	return created;
}
