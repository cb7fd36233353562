import type { INodeParameters, NodeApiError } from 'n8n-workflow';

import { useSimulator } from '../helpers/simulator';
import { only, runTask, TASKS } from './task.fixtures';

const sim = useSimulator();

const count = () => sim.state.tasks().length;
const SEEDED = 1;

function description(error: unknown): string {
	return String((error as NodeApiError).description ?? '');
}

describe('Workplace Task: platform errors', () => {
	it('401: an invalid JWT becomes a NodeApiError, not retried, without the token', async () => {
		const token = 'not-a-valid-jwt-must-not-leak';
		const { error, items, requests } = await runTask(sim, { taskTitle: 'Nope' }, { token });
		expect(only(requests).status).toBe(401);
		expect(only(requests).headers.authorization).toBe(`Bearer ${token}`);
		expect(items).toHaveLength(0);
		expect(error?.constructor.name).toBe('NodeApiError');
		expect((error as NodeApiError).httpCode).toBe('401');
		expect(error?.message).toBe('Unauthorized: Invalid or expired token');
		const context = JSON.stringify({ message: error?.message, description: description(error), context: (error as NodeApiError).context });
		expect(context).not.toContain(token);
		expect(count()).toBe(SEEDED);
	});

	it('401: a JWT pasted with its "Bearer " prefix is sent once-prefixed', async () => {
		const { error, requests } = await runTask(sim, { taskTitle: 'Prefixed' }, { token: `Bearer ${sim.credentials.taskJwt}` });
		expect(error).toBeUndefined();
		expect(only(requests).headers.authorization).toBe(`Bearer ${sim.credentials.taskJwt}`);
	});

	it('403: a JWT without tasks:write gives the platform\'s words and lists scope and role as causes', async () => {
		const { error, requests } = await runTask(sim, { taskTitle: 'Read only' }, { token: sim.state.taskReadOnlyJwt });
		expect([only(requests).method, only(requests).path, only(requests).status]).toEqual(['POST', TASKS, 403]);
		expect(only(requests).body).toMatchObject({ taskTitle: 'Read only' });
		expect((error as NodeApiError).httpCode).toBe('403');
		expect(error?.message).toBe('Forbidden: Insufficient scope: tasks:write is required');
		expect(description(error).split('\n')).toEqual([
			'HTTP status 403 (Forbidden)',
			'Error: Forbidden',
			'Message: Insufficient scope: tasks:write is required',
			'The platform refused the request. Possible causes:',
			'- the JWT lacks the scope needed to create tasks (e.g. a read-only token)',
			'- the user of the JWT has no role that may create tasks in this project, or under this parent task or topic',
		]);
		expect(count()).toBe(SEEDED);
	});

	it('404: a missing parent lists the failing detail (parentId)', async () => {
		const { error, requests } = await runTask(sim, { taskTitle: 'Orphan', additionalFields: { parentId: 'task-missing' } });
		expect(only(requests).status).toBe(404);
		expect((error as NodeApiError).httpCode).toBe('404');
		expect(error?.message).toBe('NotFound: Parent topic or task task-missing not found [parentId: not found]');
		expect(description(error)).toContain('Field "parentId": not found');
	});

	it('404: a missing assignee lists assigneeId', async () => {
		const { error } = await runTask(sim, { taskTitle: 'Nobody', additionalFields: { assigneeId: '64f0a00000000000000000ff' } });
		expect(error?.message).toBe('NotFound: Assignee 64f0a00000000000000000ff not found [assigneeId: not found]');
	});

	it('409: the same Idempotency Key with a different body is a conflict', async () => {
		await runTask(sim, { taskTitle: 'Original', options: { idempotencyKey: 'key-1' } });
		const { error, requests } = await runTask(sim, { taskTitle: 'Different', options: { idempotencyKey: 'key-1' } });
		expect(only(requests).status).toBe(409);
		expect((error as NodeApiError).httpCode).toBe('409');
		expect(error?.message).toBe('Conflict: Idempotency-Key key-1 was already used with a different request body');
		expect(sim.state.tasks().map((t) => t.taskTitle)).toEqual(['Quarterly planning', 'Original']);
	});

	it('422: the NodeApiError lists every detail {path, message}', async () => {
		const { error, requests } = await runTask(sim, {
			taskTitle: 'X'.repeat(201),
			additionalFields: { additionalJson: '{"tags": "finance", "images": 3}' },
			options: { enforceRecommendedLimits: false },
		});
		expect(only(requests).status).toBe(422);
		expect((error as NodeApiError).httpCode).toBe('422');
		expect(error?.message).toBe(
			'ValidationError: Validation failed [taskTitle: taskTitle must be at most 200 characters; tags: tags must be an array of strings; images: images must be an array]',
		);
		const text = description(error);
		expect(text).toContain('Field "taskTitle": taskTitle must be at most 200 characters');
		expect(text).toContain('Field "tags": tags must be an array of strings');
		expect(text).toContain('Field "images": images must be an array');
		expect(count()).toBe(SEEDED);
	});

	it('429: waits for Retry-After, then sends the same request with the same key once more', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, status: 429, retryAfter: 1, times: 1 });
		const started = Date.now();
		const { error, items, requests } = await runTask(sim, { taskTitle: 'After the rate limit' });
		expect(error).toBeUndefined();
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
		expect(requests.map((r) => r.status)).toEqual([429, 201]);
		expect(requests[0].headers['idempotency-key']).toBe(requests[1].headers['idempotency-key']);
		expect(requests[0].body).toEqual(requests[1].body);
		expect(items[0].json.taskTitle).toBe('After the rate limit');
		expect(sim.state.tasks().filter((t) => t.taskTitle === 'After the rate limit')).toHaveLength(1);
	});

	it('503 after the task was created, at default settings: not sent again (the spec does not promise the key is honoured); the error says 503', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, status: 503, afterHandler: true, times: 1 });
		const { error, requests } = await runTask(sim, { taskTitle: 'Sent once' });
		expect(only(requests).status).toBe(503);
		expect((error as NodeApiError).httpCode).toBe('503');
		expect(sim.state.tasks().filter((t) => t.taskTitle === 'Sent once')).toHaveLength(1);
	});

	it('a lost connection at default settings: not sent again', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, reset: true, afterHandler: true, times: 1 });
		const { error, requests } = await runTask(sim, { taskTitle: 'Reset, sent once' });
		expect(error).toBeDefined();
		expect(only(requests).status).toBe(0);
		expect(sim.state.tasks().filter((t) => t.taskTitle === 'Reset, sent once')).toHaveLength(1);
	});

	it('"Retry After Server Errors" on, 503 after the task was created: the retry with the same key gets the first task back, nothing is created twice', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, status: 503, afterHandler: true, times: 1 });
		const { error, items, requests } = await runTask(sim, { taskTitle: 'Created once', options: { retryWithIdempotencyKey: true } });
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([503, 201]);
		expect(new Set(requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
		const stored = sim.state.tasks().filter((t) => t.taskTitle === 'Created once');
		expect(stored).toHaveLength(1);
		expect(items[0].json.id).toBe(stored[0].id);
	});

	it('"Retry After Server Errors" on, 503 before processing: retried with backoff until it succeeds', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, status: 503, times: 2 });
		const started = Date.now();
		const { error, requests } = await runTask(sim, { taskTitle: 'Third time lucky', options: { retryWithIdempotencyKey: true } });
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([503, 503, 201]);
		// backoff 0.5 s then 1 s
		expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
		expect(sim.state.tasks().filter((t) => t.taskTitle === 'Third time lucky')).toHaveLength(1);
	});

	it('"Retry After Server Errors" on, a lost connection after the task was created is retried with the same key: one task', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, reset: true, afterHandler: true, times: 1 });
		const { error, requests, items } = await runTask(sim, { taskTitle: 'Reset once', options: { retryWithIdempotencyKey: true } });
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([0, 201]);
		const stored = sim.state.tasks().filter((t) => t.taskTitle === 'Reset once');
		expect(stored).toHaveLength(1);
		expect(items[0].json.id).toBe(stored[0].id);
	});

	it('503 retries are bounded by "Max Server Error Retries"', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, status: 503, times: Infinity });
		const bounded = await runTask(sim, { taskTitle: 'Never', requestOptions: { maxServerErrorRetries: 1 }, options: { retryWithIdempotencyKey: true } });
		expect(bounded.requests.map((r) => r.status)).toEqual([503, 503]);
		expect((bounded.error as NodeApiError).httpCode).toBe('503');
		expect(bounded.error?.message).toMatch(/^ServiceUnavailable: /);

		const defaults = await runTask(sim, { taskTitle: 'Never', options: { retryWithIdempotencyKey: true } });
		expect(defaults.requests).toHaveLength(3);

		const none = await runTask(sim, { taskTitle: 'Never', requestOptions: { maxServerErrorRetries: 0 }, options: { retryWithIdempotencyKey: true } });
		expect(none.requests).toHaveLength(1);
		expect(count()).toBe(SEEDED);
	});

	it('400 and other 4xx answers are not retried', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, status: 400, times: 1 });
		const { error, requests } = await runTask(sim, { taskTitle: 'Bad' });
		expect(only(requests).status).toBe(400);
		expect((error as NodeApiError).httpCode).toBe('400');
	});
});

describe('Workplace Task: checks before sending (no request)', () => {
	const cases: Array<[string, INodeParameters, string]> = [
		['empty title', { taskTitle: '   ' }, 'Item 0: "Title" must not be empty, got "   "'],
		[
			'title over 200 characters',
			{ taskTitle: 'A'.repeat(201) },
			`Item 0: "Title" must be at most 200 characters (recommended by the platform; turn off "Enforce Recommended Limits" to send it anyway), got "${'A'.repeat(115)}..." (201 characters)`,
		],
		[
			'description over 5000 characters',
			{ taskTitle: 'Ok', additionalFields: { taskDescription: 'é'.repeat(5001) } },
			`Item 0: "Description" must be at most 5000 characters (recommended by the platform; turn off "Enforce Recommended Limits" to send it anyway), got "${'é'.repeat(115)}..." (5001 characters)`,
		],
		['custom priority not a whole number', { taskTitle: 'Ok', priority: 'custom', customPriority: 1.5 }, 'Item 0: "Custom Priority" must be a whole number, got 1.5'],
		['priority expression not a number', { taskTitle: 'Ok', priority: '={{ "urgent" }}' }, 'Item 0: "Priority" must be a whole number, got "urgent"'],
		[
			'due date not a date',
			{ taskTitle: 'Ok', additionalFields: { dueDate: 'next friday' } },
			'Item 0: "Due Date" must be a date such as 2025-03-31, an ISO 8601 date-time such as 2025-03-31T17:00:00Z, an n8n date ({{ $now }}) or epoch time, got "next friday"',
		],
		['impossible date', { taskTitle: 'Ok', additionalFields: { dueDate: '2025-02-30' } }, 'Item 0: "Due Date" must be a date such as'],
		[
			'checklist item without description',
			{ taskTitle: 'Ok', additionalFields: { checklist: { item: [{ description: 'Fine', isDone: false }, { description: ' ', isDone: true }] } } },
			'Item 0: "Checklist > Description" (checklist item 2 of 2) must not be empty, got " "',
		],
		[
			'checklist from JSON with isDone missing',
			{ taskTitle: 'Ok', additionalFields: { additionalJson: '{"checklist": [{"description": "Step"}]}' } },
			'Item 0: "Checklist > Done (isDone)" (checklist item 1 of 1) must be true or false, got nothing',
		],
		[
			'Additional Fields (JSON) not JSON',
			{ taskTitle: 'Ok', additionalFields: { additionalJson: '{tags: [}' } },
			'Item 0: "Additional Fields (JSON)" must be valid JSON',
		],
	];

	it.each(cases)('%s', async (_name, parameters, message) => {
		const { error, requests, items } = await runTask(sim, parameters);
		expect(requests).toHaveLength(0);
		expect(items).toHaveLength(0);
		expect(error?.constructor.name).toBe('NodeOperationError');
		expect(error?.message.slice(0, message.length)).toBe(message);
		expect(count()).toBe(SEEDED);
	});

	it('names the item that failed', async () => {
		const { error, requests } = await runTask(
			sim,
			{ taskTitle: '={{ $json.title }}' },
			{ inputItems: [{ json: { title: 'Fine' } }, { json: { title: 'B'.repeat(250) } }] },
		);
		expect(requests).toHaveLength(1);
		expect(error?.message).toMatch(/^Item 1: "Title" must be at most 200 characters/);
	});
});
