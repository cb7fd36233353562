/**
 * Workplace Form in real n8n: a staged approval form built with the fields ("manager first, then
 * HR and finance in parallel"), a single-stage form given as JSON, and errors.
 */
import * as assert from 'node:assert/strict';

import type { SimulatorState } from '../../../simulator';
import type { Scenario, ScenarioContext, ScenarioCredential, LoggedRequest } from '../types';
import { packageNode } from '../workplace';
import { credentialId, manualTrigger, chain } from '../workflow';

const FORMS = '/v1/forms';

const formCredential: ScenarioCredential = {
	id: credentialId('workplaceFormApi/simulator'),
	name: 'Workplace Form (simulator)',
	type: 'workplaceFormApi',
	data: ({ sim }) => ({ baseUrl: sim.url, apiKey: sim.credentials.formApiKey, token: sim.credentials.formApiToken }),
};

const form = packageNode('workplaceForm', formCredential, { resource: 'form', operation: 'create' });

const state = (ctx: ScenarioContext) => ctx.sim.state as SimulatorState;
const formLog = (ctx: ScenarioContext): LoggedRequest[] => ctx.sim.log.all().filter((r) => r.path === FORMS);

const JSON_BODY = {
	name: 'E2E expense claim',
	subject: 'Taxi to the airport',
	dueDate: '2025-12-31',
	senderUserId: 'bob',
	receiverUserIds: ['alice'],
	status: 'published',
	data: [
		{ type: 'textinput', name: 'Amount', value: '42.50', meta: {}, editable: false },
		{ type: 'radio', name: 'Paid by', meta: { options: [{ label: 'Card', value: 'card' }, { label: 'Cash', value: 'cash' }] } },
	],
};

const create: Scenario = {
	name: 'form: staged approval from fields, single stage from JSON',
	credentials: [formCredential],
	workflow: (ctx) =>
		chain([
			manualTrigger(),
			form('Create Staged', {
				name: `E2E purchase (n8n ${ctx.n8nVersion})`,
				subject: 'Three laptops for the new team',
				senderUserId: 'alice',
				receiverUserIds: 'bob, carol',
				status: 'submitted',
				formFields: {
					field: [
						{ type: 'textinput', name: 'Cost center', value: 'CC-7', editable: true },
						{
							type: 'action',
							name: 'Decision',
							actionOptions: {
								option: [
									{ label: 'Approve', type: 'approved', value: 'yes', color: '#16A34A' },
									{ label: 'Reject', type: 'rejected', value: 'no', color: '#DC2626' },
								],
							},
						},
					],
				},
				approval: 'staged',
				stages: {
					stage: [
						{
							title: 'Manager',
							allowedResponders: { responder: [{ entityId: 'bob', weight: 1, type: 'user' }] },
							stageOptions: { minimumWeight: 1, dueDate: '2025-03-02T12:00:00Z' },
						},
						{
							title: 'HR and finance',
							allowedResponders: {
								responder: [
									{ entityId: 'carol', weight: 1, type: 'user' },
									{ entityId: 'erin', weight: 1, type: 'user' },
								],
							},
							stageOptions: { minimumWeight: 2, duration: 3 },
						},
					],
				},
				additionalFields: { dueDate: '2025-03-05' },
			}),
			form('Create From JSON', { definition: 'json', formJson: JSON.stringify(JSON_BODY) }),
		]),
	assert(result, ctx) {
		const [staged] = result.json('Create Staged');
		const [fromJson] = result.json('Create From JSON');
		// The simulator's state is shared by the scenarios of a target: find this run's forms by name.
		const stagedStored = state(ctx).forms().filter((f) => f.name === `E2E purchase (n8n ${ctx.n8nVersion})`);
		const jsonStored = state(ctx).forms().filter((f) => f.id === fromJson.id);
		assert.equal(stagedStored.length, 1);
		assert.equal(staged.id, stagedStored[0].id);
		assert.equal(staged.responseType, 'hierarchy');
		assert.equal(jsonStored.length, 1);
		assert.equal(fromJson.name, 'E2E expense claim');

		const log = formLog(ctx);
		assert.deepEqual(
			log.map((r) => `${r.method} ${r.status}`),
			['POST 201', 'POST 201'],
		);
		for (const r of log) {
			assert.equal(r.headers['x-api-key'], ctx.sim.credentials.formApiKey);
			assert.equal(r.headers['x-api-token'], ctx.sim.credentials.formApiToken);
			assert.equal(r.headers.accept, 'application/json');
			assert.match(r.headers['content-type'] ?? '', /^application\/json/);
		}
		assert.deepEqual(log[0].body, {
			name: `E2E purchase (n8n ${ctx.n8nVersion})`,
			subject: 'Three laptops for the new team',
			dueDate: '2025-03-05',
			senderUserId: 'alice',
			receiverUserIds: ['bob', 'carol'],
			data: [
				{ type: 'textinput', name: 'Cost center', value: 'CC-7', meta: {}, editable: true },
				{
					type: 'action',
					name: 'Decision',
					meta: {
						options: [
							{ label: 'Approve', value: 'yes', type: 'approved', color: '#16A34A' },
							{ label: 'Reject', value: 'no', type: 'rejected', color: '#DC2626' },
						],
					},
				},
			],
			status: 'submitted',
			responseType: 'hierarchy',
			responseTiers: [
				{
					title: 'Manager',
					tier: 1,
					allowedResponders: [{ type: 'user', entityId: 'bob', weight: 1 }],
					minimumWeight: 1,
					dueDate: '2025-03-02T12:00:00Z',
				},
				{
					title: 'HR and finance',
					tier: 2,
					allowedResponders: [
						{ type: 'user', entityId: 'carol', weight: 1 },
						{ type: 'user', entityId: 'erin', weight: 1 },
					],
					minimumWeight: 2,
					duration: 3,
				},
			],
		});
		assert.deepEqual(log[1].body, JSON_BODY);
	},
};

const errors: Scenario = {
	name: 'form: checks before sending, Continue On Fail and an unknown username',
	credentials: [formCredential],
	expectError: true,
	workflow: () =>
		chain([
			manualTrigger(),
			form(
				'Tier Out Of Range (continue)',
				{
					name: 'Bad tier',
					subject: 'x',
					senderUserId: 'alice',
					receiverUserIds: 'bob',
					formFields: { field: [{ type: 'textinput', name: 'Reason' }] },
					approval: 'staged',
					stages: { stage: [{ title: 'Too far', tier: 101, allowedResponders: { responder: [{ entityId: 'bob', weight: 1 }] } }] },
				},
				{ settings: { onError: 'continueRegularOutput' } },
			),
			form('Unknown Recipient', {
				name: 'Nobody home',
				subject: 'x',
				senderUserId: 'alice',
				receiverUserIds: 'zed',
				formFields: { field: [{ type: 'textinput', name: 'Reason' }] },
			}),
		]),
	assert(result, ctx) {
		const [item] = result.items('Tier Out Of Range (continue)');
		assert.equal(item.json.error, 'Item 0: "Approval Stages > Tier" (stage 1 of 1) must be a whole number of at most 100, got 101');
		assert.equal(result.status, 'error');
		assert.equal(result.error?.node?.name, 'Unknown Recipient');
		assert.match(String(result.error?.message), /Unknown username\(s\): zed \[receiverUserIds\[0\]: user zed not found\]/);
		assert.deepEqual(
			formLog(ctx).map((r) => r.status),
			[404],
			'the out-of-range tier was never sent',
		);
		assert.equal(state(ctx).forms().filter((f) => f.name === 'Bad tier' || f.name === 'Nobody home').length, 0);
	},
};

export const scenarios: Scenario[] = [create, errors];
