/**
 * Workplace Task in real n8n: a task with checklist, priority, due date and assignee, then a
 * subtask under it; the first create meets a 503 after the platform created the task and then a
 * 429, and still exists once. Errors: Continue On Fail items, and a 403 that stops the workflow.
 */
import * as assert from 'node:assert/strict';

import type { SimulatorState } from '../../../simulator';
import { SEED } from '../../../simulator/seed';
import type { Scenario, ScenarioContext, ScenarioCredential, LoggedRequest } from '../types';
import { packageNode } from '../workplace';
import { credentialId, manualTrigger, chain, set } from '../workflow';

const TASKS = '/api/v1/task-projects/tasks';

const taskCredential: ScenarioCredential = {
	id: credentialId('workplaceTaskApi/simulator'),
	name: 'Workplace Task (simulator)',
	type: 'workplaceTaskApi',
	data: ({ sim }) => ({ baseUrl: sim.url, token: sim.credentials.taskJwt }),
};

const readOnlyTaskCredential: ScenarioCredential = {
	id: credentialId('workplaceTaskApi/simulator-read-only'),
	name: 'Workplace Task (simulator, read-only JWT)',
	type: 'workplaceTaskApi',
	data: ({ sim }) => ({ baseUrl: sim.url, token: (sim.state as SimulatorState).taskReadOnlyJwt }),
};

const task = packageNode('workplaceTask', taskCredential, { resource: 'task', operation: 'create' });

const state = (ctx: ScenarioContext) => ctx.sim.state as SimulatorState;
const taskLog = (ctx: ScenarioContext): LoggedRequest[] => ctx.sim.log.all().filter((r) => r.path === TASKS);

const create: Scenario = {
	name: 'task: checklist, subtask, 503 and 429 retried once-only (Retry After Server Errors on)',
	credentials: [taskCredential],
	before(ctx) {
		// The first create is processed but answered 503; its retry meets a 429 (Retry-After: 1).
		ctx.sim.faults?.add({ method: 'POST', path: TASKS, status: 503, afterHandler: true, times: 1 });
		ctx.sim.faults?.add({ method: 'POST', path: TASKS, status: 429, retryAfter: 1, times: 1 });
	},
	workflow: (ctx) =>
		chain([
			manualTrigger(),
			task('Create Task', {
				taskTitle: `E2E onboarding (n8n ${ctx.n8nVersion})`,
				priority: 'high',
				additionalFields: {
					taskDescription: 'Laptop, accounts and a buddy ✓',
					dueDate: '2025-04-30T09:30:00+02:00',
					assigneeId: SEED.users.bob._id,
					checklist: {
						item: [
							{ description: 'Order laptop', isDone: true },
							{ description: 'Create accounts', isDone: false },
						],
					},
					additionalJson: '{"tags": ["e2e"]}',
				},
				// The simulator honours Idempotency-Key; without this option a create is sent once.
				options: { retryWithIdempotencyKey: true },
			}),
			task('Create Subtask', {
				taskTitle: 'E2E subtask',
				priority: 'custom',
				customPriority: 5,
				additionalFields: { parentId: "={{ $('Create Task').first().json.id }}" },
			}),
		]),
	assert(result, ctx) {
		const [created] = result.json('Create Task');
		const [subtask] = result.json('Create Subtask');
		const title = `E2E onboarding (n8n ${ctx.n8nVersion})`;
		const stored = state(ctx).tasks().filter((t) => t.taskTitle === title);
		assert.equal(stored.length, 1, 'the task exists once although its create was sent three times');
		assert.equal(created.id, stored[0].id);
		assert.equal(created.priority, 1);
		assert.equal(subtask.parentId, created.id);
		assert.equal(subtask.priority, 5);

		const log = taskLog(ctx);
		assert.deepEqual(
			log.map((r) => r.status),
			[503, 429, 201, 201],
		);
		const [first, second, third, sub] = log;
		const key = first.headers['idempotency-key'];
		assert.match(key, /^[0-9a-f-]{36}$/);
		assert.equal(second.headers['idempotency-key'], key);
		assert.equal(third.headers['idempotency-key'], key);
		assert.notEqual(sub.headers['idempotency-key'], key);
		for (const r of log) {
			assert.equal(r.headers.authorization, `Bearer ${ctx.sim.credentials.taskJwt}`);
			assert.match(r.headers['content-type'] ?? '', /^application\/json/);
		}
		assert.deepEqual(first.body, {
			tags: ['e2e'],
			taskTitle: title,
			taskDescription: 'Laptop, accounts and a buddy ✓',
			priority: 1,
			dueDate: '2025-04-30T07:30:00Z',
			assigneeId: SEED.users.bob._id,
			checklist: [
				{ description: 'Order laptop', isDone: true },
				{ description: 'Create accounts', isDone: false },
			],
		});
		assert.deepEqual(third.body, first.body);
		assert.deepEqual(sub.body, { taskTitle: 'E2E subtask', priority: 5, parentId: created.id });
	},
};

const errors: Scenario = {
	name: 'task: errors, Continue On Fail and a 403',
	credentials: [taskCredential, readOnlyTaskCredential],
	expectError: true,
	workflow: () =>
		chain([
			manualTrigger(),
			set('Items', { title: 'x' }),
			task(
				'Create (continue)',
				{
					taskTitle: "={{ $itemIndex === 0 ? 'T'.repeat(201) : 'Orphan' }}",
					additionalFields: { parentId: 'task-missing' },
				},
				{ settings: { onError: 'continueRegularOutput' } },
			),
			task('Create (read-only)', { taskTitle: 'Not allowed' }, { credentials: readOnlyTaskCredential }),
		]),
	assert(result, ctx) {
		const [item] = result.items('Create (continue)');
		assert.match(String(item.json.error), /^Item 0: "Title" must be at most 200 characters/);
		assert.equal(result.status, 'error');
		assert.equal(result.error?.node?.name, 'Create (read-only)');
		assert.match(String(result.error?.message), /Forbidden: Insufficient scope: tasks:write is required/);
		const log = taskLog(ctx);
		// The over-long title never left n8n; the read-only JWT got its 403 once.
		assert.deepEqual(
			log.map((r) => r.status),
			[403],
		);
		assert.equal(log[0].headers.authorization, `Bearer ${state(ctx).taskReadOnlyJwt}`);
	},
};

export const scenarios: Scenario[] = [create, errors];
