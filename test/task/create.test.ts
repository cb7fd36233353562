import type { INodeParameters } from 'n8n-workflow';

import { SEED } from '../../simulator/seed';
import { useSimulator } from '../helpers/simulator';
import { DERIVED_KEY, only, runTask, TASKS } from './task.fixtures';

const sim = useSimulator();

const BOB = SEED.users.bob._id;

describe('Workplace Task: create', () => {
	it('creates a task from a title alone, signed with the JWT, and outputs the platform response', async () => {
		const { items, error, requests } = await runTask(sim, { taskTitle: '  Renew the office lease  ' });
		expect(error).toBeUndefined();
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['POST', TASKS, 201]);
		expect(request.headers.authorization).toBe(`Bearer ${sim.credentials.taskJwt}`);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.headers['idempotency-key']).toMatch(DERIVED_KEY);
		expect(request.body).toEqual({ taskTitle: 'Renew the office lease' });

		const created = sim.state.tasks().find((t) => t.taskTitle === 'Renew the office lease');
		expect(created).toBeDefined();
		expect(items).toHaveLength(1);
		// The output is the create response as the platform sent it.
		expect(items[0].json).toEqual(JSON.parse(JSON.stringify(created)));
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	it('sends description, priority, due date (UTC), assignee and a checklist exactly', async () => {
		const { items, error, requests } = await runTask(sim, {
			taskTitle: 'Onboard Erin',
			priority: 'high',
			additionalFields: {
				taskDescription: 'Laptop, accounts and a buddy',
				dueDate: '2025-04-30T09:30:00+02:00',
				assigneeId: BOB,
				checklist: {
					item: [
						{ description: 'Order laptop', isDone: true },
						{ description: 'Create accounts', isDone: false },
						{ description: 'Pick a buddy' },
					],
				},
			},
		});
		expect(error).toBeUndefined();
		expect(only(requests).body).toEqual({
			taskTitle: 'Onboard Erin',
			taskDescription: 'Laptop, accounts and a buddy',
			priority: 1,
			dueDate: '2025-04-30T07:30:00Z',
			assigneeId: BOB,
			checklist: [
				{ description: 'Order laptop', isDone: true },
				{ description: 'Create accounts', isDone: false },
				{ description: 'Pick a buddy', isDone: false },
			],
		});
		expect(items[0].json).toMatchObject({ taskTitle: 'Onboard Erin', priority: 1, assigneeId: BOB });
		expect((items[0].json.checklist as unknown[]).length).toBe(3);
	});

	it('creates a subtask under a parent task and under a topic (parentId)', async () => {
		const { items, requests } = await runTask(
			sim,
			{ taskTitle: '={{ $json.title }}', additionalFields: { parentId: '={{ $json.parent }}' } },
			{
				inputItems: [
					{ json: { title: 'Draft agenda', parent: SEED.tasks.parent } },
					{ json: { title: 'Collect ideas', parent: ` ${SEED.taskTopics.roadmap} ` } },
				],
			},
		);
		expect(requests.map((r) => r.body)).toEqual([
			{ taskTitle: 'Draft agenda', parentId: SEED.tasks.parent },
			{ taskTitle: 'Collect ideas', parentId: SEED.taskTopics.roadmap },
		]);
		expect(items.map((i) => [i.json.parentId, i.pairedItem])).toEqual([
			[SEED.tasks.parent, { item: 0 }],
			[SEED.taskTopics.roadmap, { item: 1 }],
		]);
		// Every item gets its own Idempotency-Key.
		expect(new Set(requests.map((r) => r.headers['idempotency-key'])).size).toBe(2);
	});

	it('maps priorities High 1, Medium 2, Low 3, a custom number, or a number from an expression', async () => {
		const cases: Array<[INodeParameters, number | undefined]> = [
			[{ priority: 'high' }, 1],
			[{ priority: 'medium' }, 2],
			[{ priority: 'low' }, 3],
			[{ priority: 'custom', customPriority: 7 }, 7],
			[{ priority: '={{ 4 }}' }, 4],
			[{ priority: 'none' }, undefined],
		];
		for (const [parameters, expected] of cases) {
			const { requests } = await runTask(sim, { taskTitle: 'Prioritised', ...parameters });
			expect(only(requests).body).toEqual(expected === undefined ? { taskTitle: 'Prioritised' } : { taskTitle: 'Prioritised', priority: expected });
		}
	});

	it('converts n8n date values to ISO 8601 UTC, reading zone-less values in the workflow time zone', async () => {
		const inputs = [
			{ due: '2025-01-31T17:00:00Z' },
			{ due: '2025-01-31T12:00:00-05:00' },
			{ due: '={{ DateTime.fromISO("2025-06-01T08:15:00", { zone: "Asia/Tokyo" }) }}' },
			{ due: '={{ new Date(Date.UTC(2025, 6, 4, 12, 0, 0)) }}' },
			{ due: '={{ 1735689600000 }}' },
			{ due: '2025-03-31T17:00:00' }, // the date picker: no zone
			{ due: '2025-03-31' },
		];
		const results: unknown[] = [];
		let zone = '';
		for (const { due } of inputs) {
			const { requests, error } = await runTask(sim, {
				taskTitle: 'Dated',
				additionalFields: { dueDate: due, additionalJson: '={{ JSON.stringify({ probeZone: $now.zoneName }) }}' },
			});
			expect(error).toBeUndefined();
			const body = only(requests).body as { dueDate: string; probeZone: string };
			zone = body.probeZone;
			results.push(body.dueDate);
		}
		// Expected wall-clock conversions in the workflow's zone, computed independently with Intl.
		const utcOf = (wall: string) => {
			const guess = Date.parse(`${wall}Z`);
			const parts = Object.fromEntries(
				new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
					.formatToParts(new Date(guess))
					.map((p) => [p.type, p.value]),
			);
			const offset = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second) - guess;
			return new Date(guess - offset).toISOString().replace('.000Z', 'Z');
		};
		expect(results).toEqual([
			'2025-01-31T17:00:00Z',
			'2025-01-31T17:00:00Z',
			'2025-05-31T23:15:00Z',
			'2025-07-04T12:00:00Z',
			'2025-01-01T00:00:00Z',
			utcOf('2025-03-31T17:00:00'),
			utcOf('2025-03-31T00:00:00'),
		]);
	});

	it('merges Additional Fields (JSON) into the body; fields set in the node win', async () => {
		const { requests, items } = await runTask(sim, {
			taskTitle: 'Tagged',
			priority: 'low',
			additionalFields: { additionalJson: '{"tags": ["finance", "q3"], "priority": 1, "taskTitle": "ignored"}' },
		});
		expect(only(requests).body).toEqual({ tags: ['finance', 'q3'], priority: 3, taskTitle: 'Tagged' });
		expect(items[0].json.tags).toEqual(['finance', 'q3']);
	});

	it('uses a given Idempotency Key, and a repeat with the same key returns the first task instead of a second one', async () => {
		const parameters = { taskTitle: 'Pay invoice 42', options: { idempotencyKey: 'invoice-42' } };
		const first = await runTask(sim, parameters);
		const second = await runTask(sim, parameters);
		expect(only(first.requests).headers['idempotency-key']).toBe('invoice-42');
		expect(only(second.requests).headers['idempotency-key']).toBe('invoice-42');
		expect(second.items[0].json.id).toBe(first.items[0].json.id);
		expect(sim.state.tasks().filter((t) => t.taskTitle === 'Pay invoice 42')).toHaveLength(1);
	});

	it('Continue On Fail: a failing item becomes an error item paired with it; the others are created', async () => {
		const { items, requests, error } = await runTask(
			sim,
			{ taskTitle: '={{ $json.title }}', additionalFields: { parentId: '={{ $json.parent }}' } },
			{
				continueOnFail: true,
				inputItems: [
					{ json: { title: 'First', parent: '' } },
					{ json: { title: '', parent: '' } },
					{ json: { title: 'Orphan', parent: 'no-such-task' } },
					{ json: { title: 'Last', parent: SEED.tasks.parent } },
				],
			},
		);
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([201, 404, 201]);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(items[0].json.taskTitle).toBe('First');
		expect(items[1].json.error).toBe('Item 1: "Title" must not be empty, got an empty string');
		expect(items[2].json.error).toMatch(/^NotFound: Parent topic or task no-such-task not found \[parentId: not found\]$/);
		expect(items[2].json.httpCode).toBe('404');
		expect(items[3].json.parentId).toBe(SEED.tasks.parent);
	});
});
