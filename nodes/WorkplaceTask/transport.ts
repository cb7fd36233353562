import type { IDataObject } from 'n8n-workflow';

import type { ApiDefinition, RequestContext, WorkplaceResponse } from '../shared/transport';
import { workplaceRequest } from '../shared/transport';

export const TASK_API: ApiDefinition = {
	credentialType: 'workplaceTaskApi',
	baseUrl: (credentials) => String(credentials.baseUrl ?? ''),
};

export const TASKS_PATH = '/api/v1/task-projects/tasks';

/**
 * POST a task with an `Idempotency-Key`: the platform answers a repeat with the first result
 * instead of creating a second task, so the shared transport may retry it after a 5xx or a lost
 * connection (same key and body, with backoff, up to "Max Server Error Retries").
 */
export async function createTaskRequest(
	ctx: RequestContext,
	body: IDataObject,
	idempotencyKey: string,
	itemIndex: number,
): Promise<WorkplaceResponse<IDataObject>> {
	return await workplaceRequest<IDataObject>(
		ctx,
		TASK_API,
		{ method: 'POST', path: TASKS_PATH, body, idempotencyKey },
		itemIndex,
	);
}
