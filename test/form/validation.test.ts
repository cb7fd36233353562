import type { INodeParameters } from 'n8n-workflow';

import { useSimulator } from '../helpers/simulator';
import { BASE, runForm } from './form.fixtures';

const sim = useSimulator();

const field = (entry: Record<string, unknown>) => ({ formFields: { field: [entry] } }) as INodeParameters;
const staged = (...stage: Array<Record<string, unknown>>) => ({ approval: 'staged', stages: { stage } }) as INodeParameters;
const bob = { allowedResponders: { responder: [{ entityId: 'bob', weight: 1 }] } };

/** [case, parameters on top of BASE, the exact start of the error message] */
const FIELD_CASES: Array<[string, INodeParameters, string]> = [
	['name blank', { name: '  ' }, 'Item 0: "Name" must not be empty, got an empty string'],
	['subject empty', { subject: '={{ "" }}' }, 'Item 0: "Subject" must not be empty, got an empty string'],
	['sender empty', { senderUserId: '={{ "" }}' }, 'Item 0: "Sender Username" must not be empty, got an empty string'],
	['no recipients', { receiverUserIds: ' , ' }, 'Item 0: "Recipient Usernames" must have at least 1 username, got 0 usernames'],
	['recipients not usernames', { receiverUserIds: '={{ { to: "bob" } }}' }, 'Item 0: "Recipient Usernames" must be usernames separated by commas, got {"to":"bob"}'],
	['status not allowed', { status: '={{ "sent" }}' }, 'Item 0: "Status" must be one of "drafted", "published", "completed", "submitted", got "sent"'],
	[
		'due date not a date',
		{ additionalFields: { dueDate: 'tomorrow' } },
		'Item 0: "Due Date" must be a date such as 2025-03-31, an ISO 8601 date-time such as 2025-03-31T17:00:00Z, an n8n date ({{ $now }}) or epoch time, got "tomorrow"',
	],
	['due date impossible', { additionalFields: { dueDate: '2025-02-29' } }, 'Item 0: "Due Date" must be a date such as'],
	['no form fields', { formFields: {} }, 'Item 0: "Form Fields" must have at least 1 field, got 0 fields'],
	['field label empty', field({ type: 'textinput', name: '' }), 'Item 0: "Form Fields > Label" (field 1 of 1) must not be empty, got an empty string'],
	['radio without options', field({ type: 'radio', name: 'Kind' }), 'Item 0: "Form Fields > Options" (field 1 of 1) must have at least 1 option, got 0 options'],
	[
		'radio option without label',
		field({ type: 'radio', name: 'Kind', radioOptions: { option: [{ label: 'A', value: 'a' }, { label: ' ', value: 'b' }] } }),
		'Item 0: "Form Fields > Options > Label" (field 1 of 1, option 2 of 2) must not be empty, got an empty string',
	],
	[
		'action option type not allowed',
		field({ type: 'action', name: 'Decision', actionOptions: { option: [{ label: 'Maybe', type: '={{ "maybe" }}' }] } }),
		'Item 0: "Form Fields > Options > Type" (field 1 of 1, option 1 of 1) must be one of "approved", "rejected", "other", got "maybe"',
	],
	[
		'action option color not hex',
		field({ type: 'action', name: 'Decision', actionOptions: { option: [{ label: 'Yes', type: 'approved', color: 'green' }] } }),
		'Item 0: "Form Fields > Options > Color" (field 1 of 1, option 1 of 1) must be a hex color such as #16A34A, got "green"',
	],
	[
		'other field without type',
		field({ type: 'json', fieldJson: '{"name": "Notes"}' }),
		'Item 0: "Form Fields > Type" (field 1 of 1) is required, got nothing',
	],
	[
		'other field not JSON',
		field({ type: 'json', fieldJson: '{"name": ' }),
		'Item 0: "Form Fields > Field (JSON)" (field 1 of 1) must be valid JSON',
	],
	['staged without stages', staged(), 'Item 0: "Approval Stages" must contain at least one stage for staged approval, got []'],
	['tier above 100', staged({ ...bob, tier: 101 }), 'Item 0: "Approval Stages > Tier" (stage 1 of 1) must be a whole number of at most 100, got 101'],
	['tier below 1', staged({ ...bob, tier: -3 }), 'Item 0: "Approval Stages > Tier" (stage 1 of 1) must be a whole number of at least 1, got -3'],
	['tier not whole', staged({ ...bob, tier: 1.5 }), 'Item 0: "Approval Stages > Tier" (stage 1 of 1) must be a whole number, got 1.5'],
	[
		'duration below 0',
		staged(bob, { ...bob, stageOptions: { duration: -1 } }),
		'Item 0: "Approval Stages > Duration" (stage 2 of 2) must be a number of at least 0, got -1',
	],
	[
		'minimum weight below 0',
		staged({ ...bob, stageOptions: { minimumWeight: -0.5 } }),
		'Item 0: "Approval Stages > Minimum Weight" (stage 1 of 1) must be a number of at least 0, got -0.5',
	],
	[
		'responder weight below 0',
		staged({ allowedResponders: { responder: [{ entityId: 'bob', weight: -2 }] } }),
		'Item 0: "Approval Stages > Allowed Responders > Weight" (stage 1 of 1, responder 1 of 1) must be a number of at least 0, got -2',
	],
	[
		'responder without username',
		staged({ allowedResponders: { responder: [{ entityId: ' ', weight: 1 }] } }),
		'Item 0: "Approval Stages > Allowed Responders > Username" (stage 1 of 1, responder 1 of 1) must not be empty, got an empty string',
	],
	[
		'stage status not allowed',
		staged({ ...bob, stageOptions: { status: '={{ "done" }}' } }),
		'Item 0: "Approval Stages > Status" (stage 1 of 1) must be one of "submitted", "drafted", "approved", "rejected", "mixed", "canceled", got "done"',
	],
	[
		'stage due date not a date',
		staged({ ...bob, stageOptions: { dueDate: 'soon' } }),
		'Item 0: "Approval Stages > Due Date" (stage 1 of 1) must be a date such as',
	],
	['Additional Fields (JSON) not an object', { additionalFields: { additionalJson: '[1]' } }, 'Item 0: "Additional Fields (JSON)" must be a JSON object like {"key": "value"}, got "[1]"'],
];

const VALID_JSON = {
	name: 'Expense claim',
	subject: 'Taxi',
	senderUserId: 'bob',
	receiverUserIds: ['alice'],
	status: 'submitted',
	data: [{ type: 'action', name: 'Decision', meta: { options: [{ label: 'OK', type: 'approved' }] } }],
};

const JSON_CASES: Array<[string, Record<string, unknown>, string]> = [
	['name missing', { name: undefined }, 'Item 0: "name" is required, got nothing'],
	['due date not YYYY-MM-DD', { dueDate: '31/12/2025' }, 'Item 0: "dueDate" must be a date in the format YYYY-MM-DD, got "31/12/2025"'],
	['receivers not a list', { receiverUserIds: 'alice' }, 'Item 0: "receiverUserIds" must be a list of usernames, got "alice"'],
	['data missing', { data: undefined }, 'Item 0: "data" is required, got nothing'],
	[
		'action option without type',
		{ data: [{ type: 'action', name: 'Decision', meta: { options: [{ label: 'OK' }] } }] },
		'Item 0: "data[0].meta.options[0].type" is required, got nothing',
	],
	[
		'radio option not an object',
		{ data: [{ type: 'radio', name: 'Kind', meta: { options: ['a'] } }] },
		'Item 0: "data[0].meta.options[0]" must be an object {label, value}, got "a"',
	],
	['editable not boolean', { data: [{ type: 'textinput', name: 'X', editable: 'yes' }] }, 'Item 0: "data[0].editable" must be true or false, got "yes"'],
	['status missing', { status: undefined }, 'Item 0: "status" is required, got nothing'],
	['responseType unknown', { responseType: 'parallel' }, 'Item 0: "responseType" must be "hierarchy" (staged approval) or left out (single stage), got "parallel"'],
	[
		'tiers without hierarchy',
		{ responseTiers: [{ tier: 1 }] },
		'Item 0: "responseType" must be "hierarchy" when approval stages (responseTiers) are given, got nothing',
	],
	['tier 0', { responseType: 'hierarchy', responseTiers: [{ tier: 0 }] }, 'Item 0: "responseTiers[0].tier" must be a whole number of at least 1, got 0'],
	['tier as text', { responseType: 'hierarchy', responseTiers: [{ tier: '2' }] }, 'Item 0: "responseTiers[0].tier" must be a whole number, got "2"'],
	[
		'weight missing',
		{ responseType: 'hierarchy', responseTiers: [{ tier: 1, allowedResponders: [{ type: 'user', entityId: 'bob' }] }] },
		'Item 0: "responseTiers[0].allowedResponders[0].weight" is required, got nothing',
	],
	[
		'responder without userId',
		{ responseType: 'hierarchy', responseTiers: [{ tier: 1, responders: [{ user: 'bob' }] }] },
		'Item 0: "responseTiers[0].responders[0].userId" is required, got nothing',
	],
	[
		'tier due date not a timestamp',
		{ responseType: 'hierarchy', responseTiers: [{ tier: 1, dueDate: 'Friday' }] },
		'Item 0: "responseTiers[0].dueDate" must be an ISO 8601 timestamp such as 2025-03-31T17:00:00Z, got "Friday"',
	],
	['duration negative', { responseType: 'hierarchy', responseTiers: [{ tier: 1, duration: -5 }] }, 'Item 0: "responseTiers[0].duration" must be a number of at least 0, got -5'],
];

describe('Workplace Form: checks before sending (no request)', () => {
	it.each(FIELD_CASES)('fields: %s', async (_name, parameters, message) => {
		const { error, requests, items } = await runForm(sim, { ...BASE, ...parameters });
		expect(requests).toHaveLength(0);
		expect(items).toHaveLength(0);
		expect(error?.constructor.name).toBe('NodeOperationError');
		expect(error?.message.startsWith(message) ? message : error?.message).toBe(message);
		expect(sim.state.forms()).toHaveLength(0);
	});

	it.each(JSON_CASES)('JSON: %s', async (_name, change, message) => {
		const body = JSON.stringify({ ...VALID_JSON, ...change });
		const { error, requests } = await runForm(sim, { definition: 'json', formJson: body });
		expect(requests).toHaveLength(0);
		expect(error?.message.startsWith(message) ? message : error?.message).toBe(message);
	});

	it('JSON: a body that is not JSON', async () => {
		const { error, requests } = await runForm(sim, { definition: 'json', formJson: '{"name": ' });
		expect(requests).toHaveLength(0);
		expect(error?.message).toMatch(/^Item 0: "Form \(JSON\)" must be valid JSON/);
	});

	it('the valid JSON body used above is accepted', async () => {
		const { error, requests } = await runForm(sim, { definition: 'json', formJson: JSON.stringify(VALID_JSON) });
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([201]);
	});

	it('names the item that failed and sends nothing for it', async () => {
		const { error, requests } = await runForm(
			sim,
			{ ...BASE, name: '={{ $json.name }}' },
			{ inputItems: [{ json: { name: 'First' } }, { json: { name: 'Second' } }, { json: { name: '' } }] },
		);
		expect(requests).toHaveLength(2);
		expect(error?.message).toBe('Item 2: "Name" must not be empty, got an empty string');
	});
});
