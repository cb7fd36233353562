import { useSimulator } from '../helpers/simulator';
import { BASE, FORMS, only, runForm } from './form.fixtures';

const sim = useSimulator();

describe('Workplace Form: create', () => {
	it('single stage: text input, radio and action fields, sent exactly, with the form headers', async () => {
		const { items, error, requests } = await runForm(sim, {
			name: ' Leave request ',
			subject: 'Leave from 3 to 5 March',
			senderUserId: 'alice',
			receiverUserIds: 'bob, carol ,',
			status: 'submitted',
			formFields: {
				field: [
					{ type: 'textinput', name: 'Reason', value: 'Family visit', editable: false },
					{ type: 'textinput', name: 'Comments' },
					{
						type: 'radio',
						name: 'Kind of leave',
						radioOptions: { option: [{ label: 'Paid', value: 'paid' }, { label: 'Unpaid', value: '' }] },
					},
					{
						type: 'action',
						name: 'Decision',
						actionOptions: {
							option: [
								{ label: 'Approve', type: 'approved', value: 'yes', color: '#16A34A' },
								{ label: 'Reject', type: 'rejected' },
								{ label: 'Ask HR', type: 'other', value: 'hr' },
							],
						},
					},
					{ type: 'json', fieldJson: '{"type": "textarea", "name": "Notes", "meta": {"rows": 3}}' },
				],
			},
			additionalFields: { dueDate: '2025-03-01T00:00:00' },
		});
		expect(error).toBeUndefined();
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['POST', FORMS, 201]);
		expect(request.headers['x-api-key']).toBe(sim.credentials.formApiKey);
		expect(request.headers['x-api-token']).toBe(sim.credentials.formApiToken);
		expect(request.headers.accept).toBe('application/json');
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.body).toEqual({
			name: 'Leave request',
			subject: 'Leave from 3 to 5 March',
			dueDate: '2025-03-01',
			senderUserId: 'alice',
			receiverUserIds: ['bob', 'carol'],
			data: [
				{ type: 'textinput', name: 'Reason', value: 'Family visit', meta: {}, editable: false },
				{ type: 'textinput', name: 'Comments', meta: {}, editable: true },
				{
					type: 'radio',
					name: 'Kind of leave',
					meta: { options: [{ label: 'Paid', value: 'paid' }, { label: 'Unpaid', value: 'Unpaid' }] },
				},
				{
					type: 'action',
					name: 'Decision',
					meta: {
						options: [
							{ label: 'Approve', value: 'yes', type: 'approved', color: '#16A34A' },
							{ label: 'Reject', type: 'rejected' },
							{ label: 'Ask HR', value: 'hr', type: 'other' },
						],
					},
				},
				{ type: 'textarea', name: 'Notes', meta: { rows: 3 } },
			],
			status: 'submitted',
		});
		const [stored] = sim.state.forms();
		expect(items).toHaveLength(1);
		expect(items[0].json).toEqual(JSON.parse(JSON.stringify(stored)));
		expect(items[0].json.responseType).toBeNull();
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	it('sequential two-tier approval: stage 1 then stage 2, tiers numbered by position', async () => {
		const { error, requests, items } = await runForm(sim, {
			...BASE,
			approval: 'staged',
			stages: {
				stage: [
					{
						title: 'Manager',
						tier: 0,
						allowedResponders: { responder: [{ entityId: 'bob', weight: 1, type: 'user' }] },
						stageOptions: {
							description: 'Line manager signs off',
							minimumWeight: 1,
							duration: 2,
							dueDate: '2025-03-02T12:00:00Z',
						},
					},
					{
						title: 'Director',
						allowedResponders: { responder: [{ entityId: 'carol' }] },
						stageOptions: { responders: 'carol', status: 'drafted' },
					},
				],
			},
		});
		expect(error).toBeUndefined();
		const body = only(requests).body as Record<string, unknown>;
		expect(body.responseType).toBe('hierarchy');
		expect(body.responseTiers).toEqual([
			{
				title: 'Manager',
				description: 'Line manager signs off',
				tier: 1,
				allowedResponders: [{ type: 'user', entityId: 'bob', weight: 1 }],
				minimumWeight: 1,
				duration: 2,
				dueDate: '2025-03-02T12:00:00Z',
			},
			{
				title: 'Director',
				tier: 2,
				responders: [{ userId: 'carol' }],
				allowedResponders: [{ type: 'user', entityId: 'carol', weight: 1 }],
				status: 'drafted',
			},
		]);
		expect(Object.keys(body)).toEqual([
			'name',
			'subject',
			'senderUserId',
			'receiverUserIds',
			'data',
			'status',
			'responseType',
			'responseTiers',
		]);
		expect(items[0].json.responseTiers).toEqual(body.responseTiers);
	});

	it('"manager first, then HR and finance in parallel": a parallel tier with weights and a minimum weight', async () => {
		const { error, requests } = await runForm(sim, {
			...BASE,
			name: 'Purchase: 3 laptops',
			receiverUserIds: 'bob',
			formFields: {
				field: [
					{
						type: 'action',
						name: 'Decision',
						actionOptions: { option: [{ label: 'Approve', type: 'approved' }, { label: 'Reject', type: 'rejected' }] },
					},
				],
			},
			approval: 'staged',
			stages: {
				stage: [
					{ title: 'Manager', allowedResponders: { responder: [{ entityId: 'bob', weight: 1 }] }, stageOptions: { minimumWeight: 1 } },
					{
						title: 'HR and finance',
						allowedResponders: {
							responder: [
								{ entityId: 'carol', weight: 2 },
								{ entityId: 'erin', weight: 1.5 },
							],
						},
						stageOptions: { minimumWeight: 3.5 },
					},
				],
			},
		});
		expect(error).toBeUndefined();
		expect(only(requests).body).toEqual({
			name: 'Purchase: 3 laptops',
			subject: 'Leave from 3 to 5 March',
			senderUserId: 'alice',
			receiverUserIds: ['bob'],
			data: [
				{
					type: 'action',
					name: 'Decision',
					meta: { options: [{ label: 'Approve', type: 'approved' }, { label: 'Reject', type: 'rejected' }] },
				},
			],
			status: 'submitted',
			responseType: 'hierarchy',
			responseTiers: [
				{ title: 'Manager', tier: 1, allowedResponders: [{ type: 'user', entityId: 'bob', weight: 1 }], minimumWeight: 1 },
				{
					title: 'HR and finance',
					tier: 2,
					allowedResponders: [
						{ type: 'user', entityId: 'carol', weight: 2 },
						{ type: 'user', entityId: 'erin', weight: 1.5 },
					],
					minimumWeight: 3.5,
				},
			],
		});
	});

	it('explicit tiers are sent as set (two stages on the same tier)', async () => {
		const { requests } = await runForm(sim, {
			...BASE,
			approval: 'staged',
			stages: {
				stage: [
					{ title: 'HR', tier: 2, allowedResponders: { responder: [{ entityId: 'carol' }] } },
					{ title: 'Finance', tier: 2, allowedResponders: { responder: [{ entityId: 'erin' }] } },
					{ title: 'CEO', tier: 100, allowedResponders: { responder: [{ entityId: 'bob' }] } },
				],
			},
		});
		const tiers = (only(requests).body as { responseTiers: Array<{ tier: number }> }).responseTiers;
		expect(tiers.map((t) => t.tier)).toEqual([2, 2, 100]);
	});

	it('whole body as JSON: checked, then sent as given', async () => {
		const body = {
			name: 'Expense claim',
			subject: 'Taxi to the airport',
			dueDate: '2025-12-31',
			senderUserId: 'bob',
			receiverUserIds: ['alice'],
			status: 'published',
			data: [{ type: 'textinput', name: 'Amount', value: '42.50', meta: {}, editable: true }],
			responseType: 'hierarchy',
			responseTiers: [
				{ title: '', description: null, tier: 1, allowedResponders: [{ type: 'user', entityId: 'alice', weight: 1 }], minimumWeight: 1, duration: 0, status: 'submitted', dueDate: '2025-12-30T17:00:00Z' },
			],
			custom: { costCenter: 'CC-7' },
		};
		const { error, requests, items } = await runForm(sim, { definition: 'json', formJson: JSON.stringify(body) });
		expect(error).toBeUndefined();
		expect(only(requests).body).toEqual(body);
		expect(items[0].json).toMatchObject({ name: 'Expense claim', responseType: 'hierarchy' });
	});

	it('converts n8n date values to YYYY-MM-DD', async () => {
		const inputs: Array<[string, string]> = [
			['2025-03-01', '2025-03-01'],
			['2025-03-01T23:30:00-05:00', '2025-03-01'],
			['={{ DateTime.fromISO("2025-06-01T08:15:00", { zone: "Asia/Tokyo" }) }}', '2025-06-01'],
			['={{ $now.toISODate() }}', 'today'],
		];
		for (const [input, expected] of inputs) {
			const { requests, error } = await runForm(sim, {
				...BASE,
				additionalFields: { dueDate: input, additionalJson: '={{ JSON.stringify({ probe: $now.toISODate() }) }}' },
			});
			expect(error).toBeUndefined();
			const body = only(requests).body as { dueDate: string; probe: string };
			expect(body.dueDate).toBe(expected === 'today' ? body.probe : expected);
		}
	});

	it('merges Additional Fields (JSON) into the body; fields set in the node win', async () => {
		const { requests } = await runForm(sim, {
			...BASE,
			additionalFields: { additionalJson: '{"category": "HR", "name": "ignored", "priority": 2}' },
		});
		const body = only(requests).body as Record<string, unknown>;
		expect(body.category).toBe('HR');
		expect(body.priority).toBe(2);
		expect(body.name).toBe('Leave request');
	});

	it('takes recipient usernames as a list from an expression', async () => {
		const { requests } = await runForm(
			sim,
			{ ...BASE, receiverUserIds: '={{ $json.to }}' },
			{ inputItems: [{ json: { to: ['bob', 'erin'] } }] },
		);
		expect((only(requests).body as { receiverUserIds: string[] }).receiverUserIds).toEqual(['bob', 'erin']);
	});
});
