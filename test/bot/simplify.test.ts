import type { IDataObject } from 'n8n-workflow';

import { SEED } from '../../simulator/seed';
import { registerToolVariant } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { only, runBot } from './bot.fixtures';

const { alice, bob } = SEED.users;
const project = SEED.groups.project;

const sim = useSimulator();

const INFO_PATH = `/bot/v2/groups/${project._id}/users/${alice._id}/info`;

/**
 * A user as the platform keeps it (the fields of the spec's user event record): what a platform
 * may answer beyond the fields the spec documents for a lookup or a member's info.
 */
const PLATFORM_USER: IDataObject = {
	_id: alice._id,
	username: 'alice',
	email: 'alice@example.com',
	firstname: 'Alice',
	lastname: 'Anderson',
	position: 'Product Manager',
	deleted: false,
	avatar: 'https://workplace.example.com/avatars/alice.png',
	network_admin: true,
	admin_panel_access: true,
	contacts: [],
	extras: { team: 'product' },
	isBot: false,
	loginCount: 42,
	nid: 'net-1',
	roleIDs: ['role-admin'],
	settings: { workHours: { enabled: true, lastUpdate: '2025-01-02T08:00:00.000Z', workDays: [1, 2, 3, 4, 5] } },
	stickerPacks: [],
	totalPoints: 120,
};

const SIMPLIFIED_MEMBER = {
	_id: alice._id,
	firstname: 'Alice',
	lastname: 'Anderson',
	avatar: 'https://workplace.example.com/avatars/alice.png',
	network_admin: true,
};
const SIMPLIFIED_USER = {
	_id: alice._id,
	username: 'alice',
	email: 'alice@example.com',
	firstname: 'Alice',
	lastname: 'Anderson',
	position: 'Product Manager',
	deleted: false,
};

const memberInfo = { resource: 'group', operation: 'getMemberInfo', groupId: project._id, userId: alice._id };
const lookup = { resource: 'user', operation: 'getByUsername', username: 'alice' };
const createGroup = { resource: 'group', operation: 'create', name: 'Launch', memberIds: `${alice._id}, ${bob._id}` };

/** The platform answers the member info with a full user record. */
const answerMemberInfoWithFullUser = () => sim.faults.add({ method: 'GET', path: INFO_PATH, status: 200, body: PLATFORM_USER });
const answerLookupWithFullUser = () =>
	sim.faults.add({ method: 'GET', path: '/bot/v1/users', status: 200, body: { users: [PLATFORM_USER] } });

function createdGroup(name: string) {
	const group = sim.state.groups().find((g) => g.name === name)!;
	return { _id: group._id, name, type: 'group_chatv2', settings: group.settings, userCount: group.memberIds.length };
}

describe('Workplace Bot: Simplify Output', () => {
	it('group, Always: id, name, type and member count, without settings', async () => {
		const { items, error, requests } = await runBot(sim, { ...createGroup, simplify: 'always' });
		expect(error).toBeUndefined();
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['POST', '/bot/v1/groups', 201]);
		expect(request.multipart?.fields).toEqual({ name: 'Launch', 'uids[]': [alice._id, bob._id] });
		const { settings: _settings, ...simplified } = createdGroup('Launch');
		expect(items.map((i) => i.json)).toEqual([{ group: simplified }]);
		expect(simplified.userCount).toBe(3);
	});

	it('group, default in a workflow: the full answer, as before', async () => {
		const { items } = await runBot(sim, createGroup);
		expect(items.map((i) => i.json)).toEqual([{ group: createdGroup('Launch') }]);
	});

	it('group, default when an AI agent calls the node as a tool: simplified', async () => {
		const nodeType = await registerToolVariant('workplaceBot');
		const { items, requests } = await runBot(sim, createGroup, { nodeType });
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['POST /bot/v1/groups 201']);
		const { settings: _settings, ...simplified } = createdGroup('Launch');
		expect(items.map((i) => i.json)).toEqual([{ group: simplified }]);
	});

	it('member, Always: the fields the spec documents, whatever else the platform sends', async () => {
		answerMemberInfoWithFullUser();
		const { items, requests } = await runBot(sim, { ...memberInfo, simplify: 'always' });
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET ${INFO_PATH} 200`]);
		expect(items.map((i) => i.json)).toEqual([SIMPLIFIED_MEMBER]);
	});

	it('member, default in a workflow: the full answer, as before', async () => {
		answerMemberInfoWithFullUser();
		const { items } = await runBot(sim, memberInfo);
		expect(items.map((i) => i.json)).toEqual([PLATFORM_USER]);
	});

	it('member, default when an AI agent calls the node as a tool: simplified', async () => {
		const nodeType = await registerToolVariant('workplaceBot');
		answerMemberInfoWithFullUser();
		const { items, requests } = await runBot(sim, memberInfo, { nodeType });
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET ${INFO_PATH} 200`]);
		expect(items.map((i) => i.json)).toEqual([SIMPLIFIED_MEMBER]);
	});

	it('user, Always: the fields the spec documents, whatever else the platform sends', async () => {
		answerLookupWithFullUser();
		const { items, requests } = await runBot(sim, { ...lookup, simplify: 'always' });
		expect(requests.map((r) => [r.method, r.path, r.query, r.status])).toEqual([['GET', '/bot/v1/users', { username: 'alice' }, 200]]);
		expect(items.map((i) => i.json)).toEqual([SIMPLIFIED_USER]);
	});

	it('user, default in a workflow: the full record, as before', async () => {
		answerLookupWithFullUser();
		const { items } = await runBot(sim, lookup);
		expect(items.map((i) => i.json)).toEqual([PLATFORM_USER]);
	});

	it('user, default when an AI agent calls the node as a tool: simplified', async () => {
		const nodeType = await registerToolVariant('workplaceBot');
		answerLookupWithFullUser();
		const { items, requests } = await runBot(sim, lookup, { nodeType });
		expect(requests.map((r) => [r.method, r.path, r.query, r.status])).toEqual([['GET', '/bot/v1/users', { username: 'alice' }, 200]]);
		expect(items.map((i) => i.json)).toEqual([SIMPLIFIED_USER]);
	});

	it('operations whose answer is already small have no Simplify Output: a tool gets the send result whole', async () => {
		const nodeType = await registerToolVariant('workplaceBot');
		const { items, requests } = await runBot(
			sim,
			{ resource: 'directMessage', operation: 'sendText', userId: alice._id, text: 'Hi' },
			{ nodeType },
		);
		expect(only(requests).status).toBe(201);
		expect(Object.keys(items[0].json).sort()).toEqual(['message', 'status']);
		expect(Object.keys(items[0].json.message as IDataObject).sort()).toEqual(['groupId', 'id', 'threadId', 'type']);
	});
});
