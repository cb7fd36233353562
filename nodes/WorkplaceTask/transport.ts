import type { IDataObject } from 'n8n-workflow';

import { credentialText, madeUpCredential } from '../shared/credentialTests/probe';
import { credentialTestMethod, postBelowBaseUrl, refusedCreate } from '../shared/credentialTests/testMethod';
import type { RequestContext, WorkplaceResponse } from '../shared/transport';
import { apiAt, requestTo } from '../shared/transport';

export const TASK_API = apiAt('workplaceTaskApi', 'baseUrl', [
	'the JWT lacks the scope needed to create tasks (e.g. a read-only token)',
	'the user of the JWT has no role that may create tasks in this project, or under this parent task or topic',
]);

const taskRequest = requestTo(TASK_API);

export const TASKS_PATH = '/api/v1/task-projects/tasks';

/**
 * POST a task with an `Idempotency-Key`. Only when the user says the platform honours the key
 * (`retryWithKey`) is it retried after a 5xx or a lost connection (same key and body, with
 * backoff, up to "Max Server Error Retries"); by default a create is sent at most once, as the
 * spec does not promise that a repeat returns the first task.
 */
export async function createTaskRequest(
	ctx: RequestContext,
	body: IDataObject,
	key: { idempotencyKey: string; retryWithKey: boolean },
	itemIndex: number,
): Promise<WorkplaceResponse<IDataObject>> {
	return await taskRequest(ctx, { method: 'POST', path: TASKS_PATH, body, ...key }, itemIndex);
}

/**
 * The body of the credential test's POST /api/v1/task-projects/tasks. The task API has no
 * read-only call, so the test sends a create request that cannot be a task by the spec: no
 * `taskTitle` (the one required field), a `priority` that is not an integer, a `dueDate` that is
 * not an ISO 8601 date-time, and a checklist item without its required `description` and
 * `isDone`. Even a platform that one day filled in a missing title would have to ignore every
 * documented type to create a task from it.
 */
export const TASK_TEST_BODY: IDataObject = {
	priority: 'n8n credential test, not an integer',
	dueDate: 'n8n credential test, not a date',
	checklist: [{}],
};

/** The JWT as the credential sends it: a leading "Bearer " and surrounding white space removed. */
export function taskJwt(token: string): string {
	return token.replace(/^\s*Bearer\s+/i, '').trim();
}

/**
 * The credential's "Test" button: POST TASK_TEST_BODY. With a valid JWT the platform refuses the
 * body (422 or 400); the same request with a made-up JWT must then be refused with 401 or 403,
 * which shows the platform checks the token before the body.
 */
export const testTaskCredential = credentialTestMethod((data) => {
	const raw = credentialText(data, 'token');
	const jwt = taskJwt(raw);
	if (jwt === '') return 'Enter the JSON Web Token in the "JWT" field';
	const json = { accept: 'application/json', 'Content-Type': 'application/json' };
	return {
		api: 'task API',
		...postBelowBaseUrl(data),
		urlHint: "It is the platform's address without /api/v1, e.g. https://workplace.example.com.",
		path: TASKS_PATH,
		headers: { Authorization: `Bearer ${jwt}`, ...json },
		body: TASK_TEST_BODY,
		secretName: 'JWT',
		rejectedSecret: 'JWT (missing, invalid or expired)',
		secretFields: 'the "JWT" field',
		forbiddenHint: 'the JWT is valid but lacks the scope or role needed to create tasks',
		secrets: [raw, jwt],
		invalidBody: refusedCreate('the test task, which is invalid on purpose', {
			Authorization: `Bearer ${madeUpCredential()}`,
		}),
	};
});
