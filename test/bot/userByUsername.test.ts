/**
 * Workplace Bot, User "By Username": the username is looked up with GET /bot/v1/users once per
 * distinct username per node run (items share the lookup, also while it is in flight), the send
 * carries the uid found; an unknown or deleted user fails the item before anything is sent.
 * "By ID" sends the ID as given, without a lookup.
 */
import type { INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { LoggedRequest } from '../../simulator';
import { SEED } from '../../simulator/seed';
import { useSimulator } from '../helpers/simulator';
import { only, runBot } from './bot.fixtures';
import { PUSH, aliceChat, approval, pushBody } from './sendAndWait.fixtures';

const { alice, bob, dave } = SEED.users;
const project = SEED.groups.project;
const LOOKUP = '/bot/v1/users';

const sim = useSimulator();

const byUsername = (value: string) => ({ __rl: true, mode: 'username', value });
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const lookups = (requests: LoggedRequest[]) =>
	requests.filter((r) => r.path === LOOKUP).map((r) => [r.method, r.query, r.status]);
const named = (names: string[]) => names.map((name) => ({ json: { name } }));

describe('Workplace Bot: User By Username', () => {
	it('sends texts to users named by username: one lookup per distinct username, then each send with its uid', async () => {
		const names = ['alice', 'bob', 'alice', 'bob', 'alice', '@bob'];
		const { items, error, requests } = await runBot(
			sim,
			{ resource: 'directMessage', operation: 'sendText', userId: byUsername('={{ $json.name }}'), text: '=Hello {{ $itemIndex }}' },
			{ inputItems: named(names) },
		);
		expect(error).toBeUndefined();
		expect(lookups(requests).sort()).toEqual([
			['GET', { username: 'alice' }, 200],
			['GET', { username: 'bob' }, 200],
		]);
		const sends = requests.filter((r) => r.path !== LOOKUP);
		expect(sends).toHaveLength(6);
		for (const send of sends) expect([send.method, send.path, send.status]).toEqual(['POST', '/bot/v1/direct/message', 201]);
		// Each user's messages leave in item order.
		const bodiesTo = (uid: string) => sends.filter((r) => (r.body as { uid: string }).uid === uid).map((r) => r.body);
		expect(bodiesTo(alice._id)).toEqual([0, 2, 4].map((i) => ({ uid: alice._id, message: { type: 'text', data: `Hello ${i}` } })));
		expect(bodiesTo(bob._id)).toEqual([1, 3, 5].map((i) => ({ uid: bob._id, message: { type: 'text', data: `Hello ${i}` } })));
		expect(items.map((item) => item.pairedItem)).toEqual(names.map((_, item) => ({ item })));
	});

	it('items running at once share the lookup in flight (Get Member Info, one conversation per item)', async () => {
		sim.faults.add({ method: 'GET', path: LOOKUP, latencyMs: 150, times: Infinity });
		const { items, error, requests } = await runBot(
			sim,
			{ resource: 'group', operation: 'getMemberInfo', groupId: project._id, userId: byUsername('={{ $json.name }}') },
			{ inputItems: named(['alice', 'bob', 'alice', 'bob']) },
		);
		expect(error).toBeUndefined();
		expect(lookups(requests).sort()).toEqual([
			['GET', { username: 'alice' }, 200],
			['GET', { username: 'bob' }, 200],
		]);
		const infoPath = (uid: string) => `/bot/v2/groups/${project._id}/users/${uid}/info`;
		expect(requests.filter((r) => r.path !== LOOKUP).map((r) => r.path).sort()).toEqual(
			[infoPath(alice._id), infoPath(alice._id), infoPath(bob._id), infoPath(bob._id)].sort(),
		);
		expect(items.map((item) => item.json._id)).toEqual([alice._id, bob._id, alice._id, bob._id]);
	});

	it('sends a picture and a file, and gets the direct chat, by username', async () => {
		const picture = await runBot(sim, {
			resource: 'directMessage',
			operation: 'sendPicture',
			userId: byUsername('Bob'),
			fileSource: 'url',
			fileUrl: 'https://example.com/team.png',
			caption: 'Our team',
		});
		expect(picture.requests.map((r) => [r.method, r.path, r.query])).toEqual([
			['GET', LOOKUP, { username: 'Bob' }],
			['POST', '/bot/v1/direct/picture', {}],
		]);
		expect(picture.requests[1].body).toEqual({ uid: bob._id, file: 'https://example.com/team.png', caption: 'Our team' });

		const file = await runBot(sim, {
			resource: 'directMessage',
			operation: 'sendFile',
			userId: byUsername(' alice '),
			fileSource: 'url',
			fileUrl: 'https://example.com/report.pdf',
		});
		expect(file.requests.map((r) => [r.method, r.path, r.query])).toEqual([
			['GET', LOOKUP, { username: 'alice' }],
			['POST', '/bot/v1/direct/file', {}],
		]);
		expect(file.requests[1].body).toEqual({ uid: alice._id, file: 'https://example.com/report.pdf' });

		const chat = await runBot(sim, { resource: 'user', operation: 'getDirectChat', userId: byUsername('alice') });
		expect(chat.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${LOOKUP}`, `GET /bot/v2/groups/users/${alice._id}`]);
		expect(chat.items[0].json).toEqual(SEED.directChats.alice);
	});

	it('Send and Wait for Response asks a user named by username', async () => {
		const run = await runBot(sim, {
			resource: 'message',
			operation: 'sendAndWait',
			sendTo: 'user',
			userId: byUsername('alice'),
			message: 'Approve?',
			...approval(),
		});
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			`GET ${LOOKUP} 200`,
			`GET /bot/v2/groups/users/${alice._id} 200`,
			`POST ${PUSH} 200`,
		]);
		expect(pushBody(sim, run.requests[2])).toMatchObject({ gid: aliceChat.gid, tid: aliceChat.tid });
	});

	it('an unknown username and a deleted user fail their item before anything is sent', async () => {
		const text = (userId: INodeParameters[string]) => ({ resource: 'directMessage', operation: 'sendText', userId, text: 'Hi' });
		const unknown = await runBot(sim, text(byUsername('nobody')));
		expect(unknown.error).toBeInstanceOf(NodeOperationError);
		expect(unknown.error?.message).toBe(
			'Item 0: "User" must be the username of an existing user, but no user has this username, got "nobody"',
		);
		expect(lookups(unknown.requests)).toEqual([['GET', { username: 'nobody' }, 200]]);
		expect(unknown.requests).toHaveLength(1);

		const deleted = await runBot(sim, text(byUsername('dave')));
		expect(deleted.error?.message).toBe(
			`Item 0: "User" must name a user who is not deleted, but the user with this username is deleted (ID ${dave._id}), got "dave"`,
		);
		expect(deleted.requests.map((r) => r.path)).toEqual([LOOKUP]);

		// Continue On Fail: the failing items become error items, the others are sent.
		const mixed = await runBot(sim, text(byUsername('={{ $json.name }}')), {
			inputItems: named(['nobody', 'dave', 'alice', 'nobody']),
			continueOnFail: true,
		});
		expect(mixed.items.map((item) => [item.json.error ?? item.json.status, item.pairedItem])).toEqual([
			['Item 0: "User" must be the username of an existing user, but no user has this username, got "nobody"', { item: 0 }],
			[expect.stringMatching(/^Item 1: "User" must name a user who is not deleted/), { item: 1 }],
			['success', { item: 2 }],
			['Item 3: "User" must be the username of an existing user, but no user has this username, got "nobody"', { item: 3 }],
		]);
		expect(lookups(mixed.requests)).toHaveLength(3);
		expect(mixed.requests.filter((r) => r.path !== LOOKUP).map((r) => r.body)).toEqual([
			{ uid: alice._id, message: { type: 'text', data: 'Hi' } },
		]);
	});

	it('an empty username is refused before the lookup', async () => {
		const { error, requests } = await runBot(sim, { resource: 'directMessage', operation: 'sendText', userId: byUsername(' @ '), text: 'Hi' });
		expect(error?.message).toBe('Item 0: "User" must be a username when By Username is selected, got " @ "');
		expect(requests).toEqual([]);
	});

	it('keeps only users whose username equals the one given ignoring case; of several, the one with the same case', async () => {
		const user = (id: number, username: string, deleted = false) => ({
			_id: `64f0a00000000000000000${id}`,
			username,
			email: `${username}@example.com`,
			firstname: username,
			lastname: '',
			position: '',
			deleted,
		});
		const answer = (...users: object[]) =>
			sim.faults.add({ method: 'GET', path: LOOKUP, status: 200, body: { users } });
		const send = async (username: string) =>
			await runBot(sim, { resource: 'directMessage', operation: 'sendText', userId: byUsername(username), text: 'Hi' });
		const sentTo = (run: Awaited<ReturnType<typeof send>>) =>
			run.requests.filter((r) => r.path !== LOOKUP).map((r) => (r.body as { uid: string }).uid);

		// Partial matches and deleted namesakes are left out.
		answer(user(10, 'sam.smith'), user(11, 'Sam', true), user(12, 'SAM'));
		expect(sentTo(await send('sam'))).toEqual(['64f0a0000000000000000012']);

		answer(user(13, 'Sam'), user(14, 'sam'));
		expect(sentTo(await send('sam'))).toEqual(['64f0a0000000000000000014']);

		answer(user(15, 'Sam'), user(16, 'SAM'));
		const several = await send('sam');
		expect(several.error?.message).toBe(
			'Item 0: "User" must name one user, but 2 users have this username (IDs 64f0a0000000000000000015, 64f0a0000000000000000016), got "sam"',
		);
		expect(sentTo(several)).toEqual([]);

		answer(user(17, 'samuel'));
		expect((await send('sam')).error?.message).toMatch(/^Item 0: "User" must be the username of an existing user/);
	});

	it('retries the lookup after a 503 as any GET', async () => {
		sim.faults.add({ method: 'GET', path: LOOKUP, status: 503, times: 1 });
		const { error, requests } = await runBot(sim, { resource: 'directMessage', operation: 'sendText', userId: byUsername('bob'), text: 'Hi' });
		expect(error).toBeUndefined();
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			`GET ${LOOKUP} 503`,
			`GET ${LOOKUP} 200`,
			'POST /bot/v1/direct/message 201',
		]);
		expect(requests[2].body).toEqual({ uid: bob._id, message: { type: 'text', data: 'Hi' } });
	});
});

describe('Workplace Bot: User By ID', () => {
	it('sends, looks up the chat and member info with the ID as given, without a lookup', async () => {
		const text = await runBot(sim, { resource: 'directMessage', operation: 'sendText', userId: byId(alice._id), text: 'Hi' });
		const send = only(text.requests);
		expect([send.method, send.path, send.body]).toEqual([
			'POST',
			'/bot/v1/direct/message',
			{ uid: alice._id, message: { type: 'text', data: 'Hi' } },
		]);

		const picture = await runBot(sim, {
			resource: 'directMessage',
			operation: 'sendPicture',
			userId: byId(bob._id),
			fileSource: 'url',
			fileUrl: 'https://example.com/a.png',
			caption: '',
		});
		expect(only(picture.requests).body).toEqual({ uid: bob._id, file: 'https://example.com/a.png', caption: '' });

		const chat = await runBot(sim, { resource: 'user', operation: 'getDirectChat', userId: byId(alice._id) });
		expect(only(chat.requests).path).toBe(`/bot/v2/groups/users/${alice._id}`);

		const info = await runBot(sim, { resource: 'group', operation: 'getMemberInfo', groupId: project._id, userId: byId(bob._id) });
		expect(only(info.requests).path).toBe(`/bot/v2/groups/${project._id}/users/${bob._id}/info`);
	});

	it('an ID from an expression as plain text is taken as By ID', async () => {
		const { error, requests } = await runBot(sim, { resource: 'directMessage', operation: 'sendText', userId: `={{ "${alice._id}" }}`, text: 'Hi' });
		expect(error).toBeUndefined();
		expect(only(requests).body).toEqual({ uid: alice._id, message: { type: 'text', data: 'Hi' } });
	});

	it('an empty ID is refused before anything is sent, naming the field "User"', async () => {
		const { error, requests } = await runBot(sim, { resource: 'directMessage', operation: 'sendText', userId: byId('={{ " " }}'), text: 'Hi' });
		expect(error?.message).toBe('Item 0: "User" must not be empty, got " "');
		expect(requests).toEqual([]);
	});
});
