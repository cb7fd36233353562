import type { INode } from 'n8n-workflow';

import { useSimulator } from '../helpers/simulator';
import { DERIVED_KEY, runTask, TASKS } from './task.fixtures';

const sim = useSimulator();

/** n8n's Retry On Fail: the node runs again after 10 ms, up to 2 tries. */
const RETRY_ON_FAIL: Partial<INode> = { retryOnFail: true, maxTries: 2, waitBetweenTries: 10 };

const keysOf = (requests: Array<{ headers: Record<string, string> }>) => requests.map((r) => r.headers['idempotency-key']);
const stored = (title: string) => sim.state.tasks().filter((t) => t.taskTitle === title);

describe('Workplace Task: the Idempotency-Key comes from the item, so a retried item keeps it', () => {
	it('Retry On Fail after a 500 the platform sent after creating the task: the node sends the same key and body again, and one task exists', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, status: 500, afterHandler: true, times: 1 });
		const { error, items, requests } = await runTask(sim, { taskTitle: 'Created before the 500' }, { nodeSettings: RETRY_ON_FAIL });
		expect(error).toBeUndefined();
		expect(requests.map((r) => [r.method, r.path, r.status])).toEqual([
			['POST', TASKS, 500],
			['POST', TASKS, 201],
		]);
		expect(keysOf(requests)[1]).toBe(keysOf(requests)[0]);
		expect(keysOf(requests)[0]).toMatch(DERIVED_KEY);
		expect(requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${sim.credentials.taskJwt}`, `Bearer ${sim.credentials.taskJwt}`]);
		expect(requests.map((r) => r.body)).toEqual([{ taskTitle: 'Created before the 500' }, { taskTitle: 'Created before the 500' }]);
		// The platform answered the repeated key with the first task.
		expect(stored('Created before the 500')).toHaveLength(1);
		expect(items.map((i) => [i.json.id, i.pairedItem])).toEqual([[stored('Created before the 500')[0].id, { item: 0 }]]);
	});

	it('Retry On Fail after a connection reset once the task was created: same key, one task', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, reset: true, afterHandler: true, times: 1 });
		const { error, items, requests } = await runTask(sim, { taskTitle: 'Created before the reset' }, { nodeSettings: RETRY_ON_FAIL });
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([0, 201]);
		expect(new Set(keysOf(requests)).size).toBe(1);
		expect(requests[1].body).toEqual(requests[0].body);
		expect(stored('Created before the reset')).toHaveLength(1);
		expect(items[0].json.id).toBe(stored('Created before the reset')[0].id);
	});

	it('the key is the same for the same execution, node, run, item and body, and differs when the body, the item or the execution differs', async () => {
		const titles = { taskTitle: '={{ $json.title }}' };
		const inputItems = [{ json: { title: 'Alpha' } }, { json: { title: 'Beta' } }, { json: { title: 'Beta' } }];
		const run = async (executionId: string) => keysOf((await runTask(sim, titles, { inputItems, executionId, nodeId: 'node-1' })).requests);

		const first = await run('exec-1');
		expect(first).toHaveLength(3);
		// Another body (Alpha, Beta) or another item with the same body (the two Betas): another key.
		expect(new Set(first).size).toBe(3);
		expect(sim.state.tasks().map((t) => t.taskTitle)).toEqual(['Quarterly planning', 'Alpha', 'Beta', 'Beta']);

		// The same execution and node (what Retry On Fail runs again): the same keys, nothing created twice.
		expect(await run('exec-1')).toEqual(first);
		expect(sim.state.tasks()).toHaveLength(4);
		first.forEach((key) => expect(key).toMatch(DERIVED_KEY));

		// Another execution: other keys, new tasks.
		const next = await run('exec-2');
		expect(next.filter((key) => first.includes(key))).toEqual([]);
		expect(sim.state.tasks()).toHaveLength(7);
	});

	it('a loop that runs the node again in the same execution with the same body creates again (the run index is part of the key)', async () => {
		const { error, requests } = await runTask(sim, { taskTitle: 'Weekly check' }, { loopRuns: 2 });
		expect(error).toBeUndefined();
		expect(requests.map((r) => [r.status, r.body])).toEqual([
			[201, { taskTitle: 'Weekly check' }],
			[201, { taskTitle: 'Weekly check' }],
		]);
		expect(new Set(keysOf(requests)).size).toBe(2);
		expect(stored('Weekly check')).toHaveLength(2);
	});

	it('a key set in Options is sent as it is, by Retry On Fail too', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, status: 500, afterHandler: true, times: 1 });
		const { error, requests } = await runTask(
			sim,
			{ taskTitle: 'Pay invoice 43', options: { idempotencyKey: 'invoice-43' } },
			{ nodeSettings: RETRY_ON_FAIL },
		);
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([500, 201]);
		expect(keysOf(requests)).toEqual(['invoice-43', 'invoice-43']);
		expect(stored('Pay invoice 43')).toHaveLength(1);
	});
});
