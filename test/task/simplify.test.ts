import type { IDataObject } from 'n8n-workflow';

import { SEED } from '../../simulator/seed';
import { registerToolVariant } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { NODE, only, runTask, TASKS } from './task.fixtures';

const sim = useSimulator();

const TASK = {
	taskTitle: 'Onboard Erin',
	priority: 'high',
	additionalFields: {
		taskDescription: 'Laptop, accounts and a buddy',
		dueDate: '2025-04-30T09:30:00+02:00',
		assigneeId: SEED.users.bob._id,
		parentId: SEED.tasks.parent,
		checklist: { item: [{ description: 'Order laptop', isDone: false }] },
	},
};

/** The created task as the platform answered it. */
const full = () => JSON.parse(JSON.stringify(sim.state.tasks().find((t) => t.taskTitle === 'Onboard Erin'))) as IDataObject;

function simplified(): IDataObject {
	const { id, taskTitle, status, priority, dueDate, assigneeId, parentId, isSubtask, createdAt, updatedAt } = full();
	return { id, taskTitle, status, priority, dueDate, assigneeId, parentId, isSubtask, createdAt, updatedAt };
}

describe('Workplace Task: Simplify Output', () => {
	it('task, Always: id, title, status, priority, due date, assignee, parent and dates', async () => {
		const { items, error, requests } = await runTask(sim, { ...TASK, simplify: 'always' });
		expect(error).toBeUndefined();
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['POST', TASKS, 201]);
		expect(request.body).toMatchObject({ taskTitle: 'Onboard Erin', priority: 1, dueDate: '2025-04-30T07:30:00Z' });
		expect(items.map((i) => i.json)).toEqual([simplified()]);
		expect(items[0].json).toMatchObject({ priority: 1, parentId: SEED.tasks.parent, isSubtask: true, status: 'open' });
		expect(Object.keys(full())).toEqual(expect.arrayContaining(['taskDescription', 'checklist', 'createdBy']));
	});

	it('task, default in a workflow: the full record, as before', async () => {
		const { items, requests } = await runTask(sim, TASK);
		expect(only(requests).status).toBe(201);
		expect(items.map((i) => i.json)).toEqual([full()]);
	});

	it('task, default when an AI agent calls the node as a tool: simplified', async () => {
		const nodeType = await registerToolVariant(NODE);
		const { items, requests } = await runTask(sim, TASK, { nodeType });
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`POST ${TASKS} 201`]);
		expect(items.map((i) => i.json)).toEqual([simplified()]);
	});
});
