import type { IDataObject } from 'n8n-workflow';

import { registerToolVariant } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { BASE, FORMS, NODE, only, runForm } from './form.fixtures';

const sim = useSimulator();

/** A staged form: its input fields and stages make the full record long. */
const STAGED = {
	...BASE,
	approval: 'staged',
	stages: { stage: [{ title: 'Manager', tier: 0, allowedResponders: { responder: [{ entityId: 'carol', weight: 1, type: 'user' }] } }] },
	additionalFields: { dueDate: '2025-03-01' },
};

/** The created form as the platform answered it (the simulator stores what it sent). */
function full(): IDataObject {
	const forms = sim.state.forms();
	expect(forms).toHaveLength(1);
	return JSON.parse(JSON.stringify(forms[0])) as IDataObject;
}

function simplified(): IDataObject {
	const { id, name, subject, status, dueDate, senderUserId, receiverUserIds, responseType, createdAt, updatedAt } = full();
	return { id, name, subject, status, dueDate, senderUserId, receiverUserIds, responseType, createdAt, updatedAt };
}

describe('Workplace Form: Simplify Output', () => {
	it('form, Always: id, name, subject, status, due date, sender, recipients, response type and dates', async () => {
		const { items, error, requests } = await runForm(sim, { ...STAGED, simplify: 'always' });
		expect(error).toBeUndefined();
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['POST', FORMS, 201]);
		expect(request.body).toMatchObject({ name: 'Leave request', responseType: 'hierarchy', dueDate: '2025-03-01' });
		expect(items.map((i) => i.json)).toEqual([simplified()]);
		expect(items[0].json).toMatchObject({ responseType: 'hierarchy', dueDate: '2025-03-01', receiverUserIds: ['bob'] });
		expect(Object.keys(full())).toEqual(expect.arrayContaining(['data', 'responseTiers']));
	});

	it('form, default in a workflow: the full record, as before', async () => {
		const { items, requests } = await runForm(sim, STAGED);
		expect(only(requests).status).toBe(201);
		expect(items.map((i) => i.json)).toEqual([full()]);
	});

	it('form, default when an AI agent calls the node as a tool: simplified', async () => {
		const nodeType = await registerToolVariant(NODE);
		const { items, requests } = await runForm(sim, STAGED, { nodeType });
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`POST ${FORMS} 201`]);
		expect(items.map((i) => i.json)).toEqual([simplified()]);
	});
});
