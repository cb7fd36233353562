import { SEED } from '../../simulator';
import { useSimulator } from '../helpers/simulator';
import { call } from './helpers';

describe('simulator: form and task API', () => {
	const sim = useSimulator();

	const form = {
		name: 'Leave request',
		subject: 'Vacation',
		dueDate: '2025-03-31',
		senderUserId: 'alice',
		receiverUserIds: ['bob'],
		data: [
			{ type: 'textinput', name: 'Reason', value: '', meta: {}, editable: true },
			{ type: 'radio', name: 'Kind', meta: { options: [{ label: 'Paid', value: 'paid' }] } },
			{ type: 'action', name: 'Decision', meta: { options: [{ label: 'Approve', type: 'approved', color: '#00FF00' }, { label: 'Reject', type: 'rejected' }] } },
		],
		status: 'submitted',
		responseType: 'hierarchy',
		responseTiers: [{ title: '', description: null, tier: 1, responders: [{ userId: 'bob' }], allowedResponders: [{ type: 'user', entityId: 'carol', weight: 1 }], status: 'submitted', duration: 0, minimumWeight: 1 }],
	};

	test('form: auth, content type, validation and 201', async () => {
		const c = sim.credentials;
		const H = { 'x-api-key': c.formApiKey, 'x-api-token': c.formApiToken, accept: 'application/json' };
		expect((await call(`${sim.url}/v1/forms`, { json: form })).status).toBe(401);
		expect((await call(`${sim.url}/v1/forms`, { headers: { ...H, 'x-api-token': 'bad' }, json: form })).status).toBe(401);
		expect((await call(`${sim.url}/v1/forms`, { headers: { ...H, 'content-type': 'text/plain' }, body: JSON.stringify(form) })).status).toBe(415);
		const ok = await call(`${sim.url}/v1/forms`, { headers: H, json: form });
		expect(ok.status).toBe(201);
		expect(ok.json).toMatchObject({ id: expect.any(String), name: 'Leave request', status: 'submitted', createdAt: expect.any(String) });
		expect(sim.state.forms()).toHaveLength(1);

		const bad = await call(`${sim.url}/v1/forms`, { headers: H, json: { ...form, dueDate: '31.03.2025', responseTiers: [{ tier: 101, duration: -1 }] } });
		expect(bad.status).toBe(400);
		expect(bad.json.errors.map((e: { field: string }) => e.field)).toEqual(['dueDate', 'responseTiers[0].tier', 'responseTiers[0].duration']);
		const noStatus = await call(`${sim.url}/v1/forms`, { headers: H, json: { ...form, status: 'open' } });
		expect(noStatus.json.errors[0].field).toBe('status');
		const unknownUser = await call(`${sim.url}/v1/forms`, { headers: H, json: { ...form, receiverUserIds: ['nobody'] } });
		expect(unknownUser.status).toBe(404);
	});

	test('task: 401/403, 400 invalid JSON, 422 validation details, 404 parent/assignee, 201, idempotency 409', async () => {
		const url = `${sim.url}/api/v1/task-projects/tasks`;
		const H = { authorization: `Bearer ${sim.credentials.taskJwt}` };
		expect((await call(url, { json: { taskTitle: 'x' } })).status).toBe(401);
		const ro = await call(url, { headers: { authorization: `Bearer ${sim.state.taskReadOnlyJwt}` }, json: { taskTitle: 'x' } });
		expect(ro.status).toBe(403);
		const invalid = await call(url, { headers: { ...H, 'content-type': 'application/json' }, body: '{"taskTitle":' });
		expect(invalid.status).toBe(400);
		const v = await call(url, { headers: H, json: { priority: 1.5, dueDate: '2025-13-01', checklist: [{ description: 'a' }] } });
		expect(v.status).toBe(422);
		expect(v.json.error).toBe('ValidationError');
		expect(v.json.details.map((d: { path: string }) => d.path)).toEqual(['taskTitle', 'priority', 'dueDate', 'checklist[0].isDone']);
		expect((await call(url, { headers: H, json: { taskTitle: 'x', parentId: 'nope' } })).status).toBe(404);
		expect((await call(url, { headers: H, json: { taskTitle: 'x', assigneeId: 'nope' } })).status).toBe(404);

		const body = { taskTitle: 'Write docs', priority: 2, dueDate: '2025-01-31T17:00:00Z', assigneeId: SEED.users.bob._id, parentId: SEED.tasks.parent, checklist: [{ description: 'outline', isDone: false }] };
		const ok = await call(url, { headers: { ...H, 'idempotency-key': 'k1' }, json: body });
		expect(ok.status).toBe(201);
		expect(ok.json).toMatchObject({ id: expect.any(String), taskTitle: 'Write docs', isSubtask: true, checklist: [{ description: 'outline', isDone: false }] });
		const replay = await call(url, { headers: { ...H, 'idempotency-key': 'k1' }, json: body });
		expect(replay.status).toBe(201);
		expect(replay.json.id).toBe(ok.json.id);
		const conflict = await call(url, { headers: { ...H, 'idempotency-key': 'k1' }, json: { ...body, taskTitle: 'Other' } });
		expect(conflict.status).toBe(409);
		expect(sim.state.tasks()).toHaveLength(2);
	});
});
