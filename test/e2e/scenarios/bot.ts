/**
 * Workplace Bot in real n8n: look a user up, find the direct chat, send direct and group messages,
 * push a template to a group's main chat ("Main Chat" picked from the list, and a Thread given By ID
 * left empty), create a group and a topic, read member info and download a picture, with one OAuth
 * token; then send texts to users given by username, each username looked up once.
 */
import * as assert from 'node:assert/strict';

import { DEFAULT_TOKEN_TTL_SECONDS, type Simulator, type SimulatorState } from '../../../simulator';
import { SEED } from '../../../simulator/seed';
import type { Scenario, ScenarioCredential } from '../types';
import { byId, chain, credentialId, manualTrigger, node, stableId } from '../workflow';
import { bot, botCredential, packageNode, requestLines, sha256 } from '../workplace';

const project = SEED.groups.project;
const USER = byId("={{ $('Find User').first().json._id }}");
/** Who the node greets by username: two names, twice each (one lookup per name). */
const GREETED = ['alice', 'bob', 'alice', 'bob'];

/** A buttons template pushed to the main chat (`tid: ""`). */
const approval = (text: string) =>
	JSON.stringify([
		{
			type: 'template',
			altText: text,
			template: { type: 'buttons', text, actions: [{ type: 'postback', label: 'Approve', data: 'approve' }] },
		},
	]);
const pushToMainChat = (text: string) => ({ gid: project._id, tid: '', messages: JSON.parse(approval(text)) as unknown });

/**
 * Items of "Post to Threads": the main chat twice, a topic once. The first item's text is a number:
 * the first item is where the node compares the item's field with n8n's evaluation (a difference
 * would log a fallback line, which fails the suite).
 */
const THREAD_ITEMS = [
	{ gid: project._id, tid: '', text: 1 },
	{ gid: project._id, tid: project.topics.release._id, text: 'release topic' },
	{ gid: project._id, tid: '', text: 'main chat, second' },
];

/** Messages alice had before this run (scenarios that ran earlier on the same simulator sent her some). */
let aliceMessagesBefore = 0;

const botOperations: Scenario = {
	name: 'bot: messages, groups, users and images',
	credentials: [botCredential],
	before({ sim }) {
		aliceMessagesBefore = (sim.state as SimulatorState).sentMessages({ uid: SEED.users.alice._id }).length;
	},
	workflow: () =>
		chain([
			manualTrigger(),
			bot('Find User', { resource: 'user', operation: 'getByUsername', username: 'alice' }),
			bot('Direct Chat', { resource: 'user', operation: 'getDirectChat', userId: USER }),
			bot('Say Hello', { resource: 'directMessage', operation: 'sendText', userId: USER, text: 'Hello from n8n ✓' }),
			bot('Tell Topic', {
				resource: 'groupMessage',
				operation: 'sendText',
				groupId: project._id,
				topicId: project.topics.release._id,
				text: 'Release train leaves Friday',
			}),
			bot('Main Chat Template', {
				resource: 'message',
				operation: 'push',
				groupId: project._id,
				threadId: { __rl: true, mode: 'list', value: '', cachedResultName: 'Main Chat' },
				defineMessages: 'json',
				messagesJson: approval('Ship release 1.4?'),
			}),
			// The Thread By ID, left empty: the main chat too.
			bot('Main Chat Template by ID', {
				resource: 'message',
				operation: 'push',
				groupId: project._id,
				threadId: byId(''),
				defineMessages: 'json',
				messagesJson: approval('Ship release 1.5?'),
			}),
			bot('Create Group', {
				resource: 'group',
				operation: 'create',
				name: 'E2E group',
				memberIds: `${SEED.users.alice._id},${SEED.users.bob._id}`,
			}),
			bot('Create Topic', {
				resource: 'group',
				operation: 'createTopic',
				groupId: "={{ $('Create Group').first().json.group._id }}",
				topicName: 'E2E topic',
			}),
			bot('Member Info', { resource: 'group', operation: 'getMemberInfo', groupId: project._id, userId: USER }),
			bot('Get Picture', {
				resource: 'image',
				operation: 'download',
				pictureId: SEED.pictures.first,
				size: 'small',
				// The platform returns a PNG: the name takes its extension (issue 17, point 8).
				fileName: 'holiday.jpeg',
				binaryPropertyName: 'data',
			}),
			bot('Send Picture', {
				resource: 'directMessage',
				operation: 'sendPicture',
				userId: USER,
				fileSource: 'binary',
				binaryPropertyName: 'data',
				caption: 'the picture, sent back',
			}),
			node('Names', 'n8n-nodes-base.set', 3.4, {
				assignments: {
					assignments: [{ id: stableId('a', 'Names/0'), name: 'names', type: 'array', value: JSON.stringify(GREETED) }],
				},
				options: {},
			}),
			node('One Item per Name', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'names', options: { destinationFieldName: 'name' } }),
			bot('Greet by Username', {
				resource: 'directMessage',
				operation: 'sendText',
				userId: { __rl: true, mode: 'username', value: '={{ $json.name }}' },
				text: '=Hi {{ $json.name }}, found by username',
			}),
			node('Threads', 'n8n-nodes-base.set', 3.4, {
				assignments: {
					assignments: [{ id: stableId('a', 'Threads/0'), name: 'threads', type: 'array', value: JSON.stringify(THREAD_ITEMS) }],
				},
				options: {},
			}, { settings: { executeOnce: true } }),
			node('One Item per Thread', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'threads', options: { destinationFieldName: 't' } }),
			// fields mapped as dragging an input field writes them: taken from the item (nodes/shared/parameters.ts)
			bot('Post to Threads', {
				resource: 'groupMessage',
				operation: 'sendText',
				groupId: '={{ $json.t.gid }}',
				topicId: '={{ $json.t.tid }}',
				text: '={{ $json.t.text }}',
			}),
		]),
	async assert(result, { sim }) {
		const state = sim.state as SimulatorState;
		assert.equal(result.json('Find User')[0]._id, SEED.users.alice._id);
		assert.deepEqual(result.json('Direct Chat')[0], SEED.directChats.alice);
		assert.equal(result.json('Say Hello')[0].status, 'success');
		assert.equal((result.json('Tell Topic')[0].message as { threadId: string }).threadId, project.topics.release._id);
		for (const name of ['Main Chat Template', 'Main Chat Template by ID']) {
			const [pushed] = result.json(name);
			assert.equal(pushed.tid, '', name);
			assert.deepEqual(
				(pushed.results as Array<{ message: { groupId: string; threadId: string } }>).map((r) => [r.message.groupId, r.message.threadId]),
				[[project._id, project.mainThreadId]],
				name,
			);
		}
		assert.equal((result.json('Create Topic')[0].topic as { name: string }).name, 'E2E topic');
		assert.equal(result.json('Member Info')[0].firstname, 'Alice');
		const picture = result.items('Get Picture')[0];
		const bytes = await result.readBinary(picture.binary!.data);
		assert.equal(sha256(bytes), sha256(state.picturePng(SEED.pictures.first, 'small') as Buffer));
		const { fileName, mimeType, fileExtension } = picture.binary!.data;
		assert.deepEqual({ fileName, mimeType, fileExtension }, { fileName: 'holiday.png', mimeType: 'image/png', fileExtension: 'png' });

		const log = sim.log.all();
		assert.deepEqual(requestLines(log.filter((r) => r.path === '/oauth/token')), ['POST /oauth/token']);
		const calls = log.filter((r) => r.path !== '/oauth/token');
		assert.deepEqual(requestLines(calls.slice(0, 11)), [
			'GET /bot/v1/users',
			`GET /bot/v2/groups/users/${SEED.users.alice._id}`,
			'POST /bot/v1/direct/message',
			'POST /bot/v1/group/message',
			'POST /bot/v2/message/push',
			'POST /bot/v2/message/push',
			'POST /bot/v1/groups',
			`POST /bot/v1/groups/${String((result.json('Create Group')[0].group as { _id: string })._id)}/topics`,
			`GET /bot/v2/groups/${project._id}/users/${SEED.users.alice._id}/info`,
			`GET /file/image/${SEED.pictures.first}`,
			'POST /bot/v1/direct/picture',
		]);
		// The one token this run fetched: the last one the platform issued (earlier scenarios got others).
		const token = state.tokens().at(-1)!.token;
		for (const call of calls) assert.equal(call.headers.authorization, `Bearer ${token}`, `${call.method} ${call.path}`);
		assert.deepEqual(calls[2].body, { uid: SEED.users.alice._id, message: { type: 'text', data: 'Hello from n8n ✓' } });
		assert.deepEqual(calls[4].body, pushToMainChat('Ship release 1.4?'));
		assert.deepEqual(calls[5].body, pushToMainChat('Ship release 1.5?'));
		const groupCreate = calls[6] as { multipart?: { fields: Record<string, unknown> } };
		assert.deepEqual(groupCreate.multipart?.fields, { name: 'E2E group', 'uids[]': [SEED.users.alice._id, SEED.users.bob._id] });
		const sentPicture = calls[10].body as { file: string; caption: string };
		assert.equal(sentPicture.file, `data:image/png;base64,${bytes.toString('base64')}`);

		// Greet by Username: one lookup per username, then each text to the uid found, in item order per user.
		const byUsername = calls.slice(11);
		const lookups = byUsername.filter((r) => r.path === '/bot/v1/users');
		assert.deepEqual(lookups.map((r) => `${r.method} ${r.path} ${r.query.username}`).sort(), [
			'GET /bot/v1/users alice',
			'GET /bot/v1/users bob',
		]);
		const greetings = byUsername.filter((r) => r.path === '/bot/v1/direct/message');
		assert.deepEqual(requestLines(greetings), GREETED.map(() => 'POST /bot/v1/direct/message'));
		const greetingsTo = (uid: string) => greetings.map((r) => r.body as { uid: string }).filter((body) => body.uid === uid);
		for (const user of [SEED.users.alice, SEED.users.bob]) {
			assert.deepEqual(greetingsTo(user._id), [
				{ uid: user._id, message: { type: 'text', data: `Hi ${user.username}, found by username` } },
				{ uid: user._id, message: { type: 'text', data: `Hi ${user.username}, found by username` } },
			]);
		}
		assert.deepEqual(
			result.json('Greet by Username').map((json) => json.status),
			GREETED.map(() => 'success'),
		);

		// Post to Threads: each item to its own thread, item order kept per thread.
		const posts = byUsername.filter((r) => r.path === '/bot/v1/group/message');
		assert.deepEqual(requestLines(posts), THREAD_ITEMS.map(() => 'POST /bot/v1/group/message'));
		const postsTo = (tid: string) => posts.map((r) => r.body).filter((body) => (body as { tid: string }).tid === tid);
		assert.deepEqual(postsTo(''), [
			{ gid: project._id, tid: '', message: { type: 'text', data: '1' } },
			{ gid: project._id, tid: '', message: { type: 'text', data: 'main chat, second' } },
		]);
		assert.deepEqual(postsTo(project.topics.release._id), [
			{ gid: project._id, tid: project.topics.release._id, message: { type: 'text', data: 'release topic' } },
		]);
		assert.deepEqual(
			result.json('Post to Threads').map((json) => (json.message as { threadId: string }).threadId),
			[project.mainThreadId, project.topics.release._id, project.mainThreadId],
		);

		assert.deepEqual(
			state
				.sentMessages({ uid: SEED.users.alice._id })
				.slice(aliceMessagesBefore)
				.map((m) => m.type),
			['text', 'picture', 'text', 'text'],
		);
	},
};

const PUSH = '/bot/v2/message/push';
const ROOM_A = 'https://example.com/rooms/a';
const RULES = 'https://example.com/library/rooms';
const toMainChat = { resource: 'message', operation: 'push', groupId: project._id, threadId: byId(project.mainThreadId), defineMessages: 'fields' };
const carousel = (column: Array<Record<string, unknown>>) => ({
	messages: { message: [{ type: 'template', templateType: 'carousel', altText: 'Pick a room', columns: { column } }] },
});

/** The carousel both nodes send: three columns, all seven action types, two default actions (one without label). */
const ROOMS_WIRE = {
	type: 'template',
	altText: 'Pick a room',
	template: {
		type: 'carousel',
		columns: [
			{
				thumbnailImageUrl: `${ROOM_A}.jpg`,
				title: 'Room A',
				text: '8 seats, projector',
				actions: [
					{ type: 'postback', label: 'Book A', data: 'room=a', text: 'Book room A' },
					{ type: 'uri', label: 'Details', linkUri: ROOM_A },
					{ type: 'message', label: 'Ask', text: 'Is room A free?' },
				],
				defaultAction: { type: 'uri', linkUri: ROOM_A },
			},
			{
				text: 'Room B has 4 seats and a whiteboard',
				actions: [
					{ type: 'workflow', label: 'Booking workflow', workflowId: 'wf-rooms' },
					{ type: 'workflowTemplate', label: 'New booking', templateId: 'tpl-booking' },
				],
				defaultAction: { type: 'workflows', label: 'My bookings', status: 'completed' },
			},
			{
				title: 'Room C',
				text: 'Quiet room',
				actions: [
					{ type: 'workflows', label: 'All workflows' },
					{ type: 'library', label: 'Rules', url: RULES },
				],
			},
		],
	},
};

/**
 * Carousel columns in real n8n: one node builds the columns' actions and default actions in the
 * node (the buttons template's builder, "Define Actions" at its default), the other gives the same
 * columns with "Define Actions: Using JSON". Both pushes must carry the same bytes.
 */
const botCarousel: Scenario = {
	name: 'bot: carousel columns built in the node and Using JSON',
	credentials: [botCredential],
	workflow: () =>
		chain([
			manualTrigger(),
			bot('Rooms (Builder)', {
				...toMainChat,
				...carousel([
					{
						thumbnailImageUrl: `${ROOM_A}.jpg`,
						title: 'Room A',
						text: '8 seats, projector',
						actions: {
							action: [
								{ type: 'postback', label: 'Book A', data: 'room=a', text: 'Book room A' },
								{ type: 'uri', label: 'Details', linkUri: ROOM_A },
								{ type: 'message', label: 'Ask', text: 'Is room A free?' },
							],
						},
						defaultAction: { action: { type: 'uri', linkUri: ROOM_A } },
					},
					{
						text: 'Room B has 4 seats and a whiteboard',
						actions: {
							action: [
								{ type: 'workflow', label: 'Booking workflow', workflowId: 'wf-rooms' },
								{ type: 'workflowTemplate', label: 'New booking', templateId: 'tpl-booking' },
							],
						},
						defaultAction: { action: { type: 'workflows', label: 'My bookings', status: 'completed' } },
					},
					{
						title: 'Room C',
						text: 'Quiet room',
						actions: {
							action: [
								{ type: 'workflows', label: 'All workflows' },
								{ type: 'library', label: 'Rules', url: RULES },
							],
						},
					},
				]),
			}),
			bot(
				'Rooms (Using JSON)',
				{
					...toMainChat,
					...carousel(
						ROOMS_WIRE.template.columns.map(({ actions, defaultAction, ...column }) => ({
							...column,
							defineActions: 'json',
							actionsJson: JSON.stringify(actions),
							...(defaultAction ? { defaultActionJson: JSON.stringify(defaultAction) } : {}),
						})),
					),
				},
			),
		]),
	async assert(result, { sim }) {
		const state = sim.state as SimulatorState;
		const pushes = sim.log.all().filter((r) => r.path !== '/oauth/token');
		assert.deepEqual(requestLines(pushes), [`POST ${PUSH}`, `POST ${PUSH}`]);
		const expected = { gid: project._id, tid: project.mainThreadId, messages: [ROOMS_WIRE] };
		assert.deepEqual(pushes[0].body, expected);
		assert.equal(JSON.stringify(pushes[1].body), JSON.stringify(pushes[0].body), 'Using JSON and the builder send the same bytes');
		for (const name of ['Rooms (Builder)', 'Rooms (Using JSON)']) {
			const [item] = result.json(name);
			assert.equal(((item.results as Array<{ status: string }>)[0]).status, 'success', name);
		}
		const sent = state.sentMessages({ gid: project._id, tid: project.mainThreadId }).slice(-2);
		assert.deepEqual(sent.map((m) => m.content), [ROOMS_WIRE, ROOMS_WIRE]);
	},
};

/** A bot credential of its own: no token stored yet when the scenario starts. */
const tokenCredential: ScenarioCredential = { ...botCredential, id: credentialId('workplaceBotOAuth2Api/token-e2e'), name: 'Workplace Bot (simulator, token e2e)' };
const tokenBot = packageNode('workplaceBot', tokenCredential);
/** The platform's token lifetime during the scenario, and the wait that outlives it. */
const TOKEN_TTL_SECONDS = 2;
const DIRECT_CHAT = `/bot/v2/groups/users/${SEED.users.alice._id}`;
const USERS = '/bot/v1/users';

/**
 * The bot token n8n keeps for the credential (preAuthentication, the expirable `accessToken`):
 * fetched by the first call, renewed when the platform answers 401 because it expired (a 2 s
 * lifetime, then a 3 s Wait), and when it answers 401 to a token it still knows (a fault, so
 * that the tokens other scenarios' credentials hold stay valid).
 */
const botToken: Scenario = {
	name: 'bot token: first fetch, renewed after it expired and after a 401',
	compat: true,
	credentials: [tokenCredential],
	before({ sim }) {
		(sim as unknown as Simulator).configure({ tokenTtlSeconds: TOKEN_TTL_SECONDS });
		sim.faults?.add({ method: 'GET', path: USERS, status: 401, times: 1 });
	},
	after({ sim }) {
		(sim as unknown as Simulator).configure({ tokenTtlSeconds: DEFAULT_TOKEN_TTL_SECONDS });
	},
	workflow: () =>
		chain([
			manualTrigger(),
			tokenBot('First Call', { resource: 'user', operation: 'getDirectChat', userId: byId(SEED.users.alice._id) }),
			node('Token Expires', 'n8n-nodes-base.wait', 1.1, { resume: 'timeInterval', amount: TOKEN_TTL_SECONDS + 1, unit: 'seconds' }),
			tokenBot('After Expiry', { resource: 'user', operation: 'getDirectChat', userId: byId(SEED.users.alice._id) }),
			tokenBot('After a 401', { resource: 'user', operation: 'getByUsername', username: 'alice' }),
		]),
	assert(result, { sim }) {
		for (const name of ['First Call', 'After Expiry']) {
			assert.equal(result.json(name)[0].gid, SEED.directChats.alice.gid, `${name}: alice's direct chat`);
		}
		assert.match(JSON.stringify(result.json('After a 401')), new RegExp(SEED.users.alice._id), 'After a 401: alice found');
		const calls = sim.log.all().filter((r) => r.path === '/oauth/token' || r.path === DIRECT_CHAT || r.path === USERS);
		assert.deepEqual(
			calls.map((r) => `${r.method} ${r.path} ${r.status}`),
			[
				'POST /oauth/token 200',
				`GET ${DIRECT_CHAT} 200`,
				`GET ${DIRECT_CHAT} 401`,
				'POST /oauth/token 200',
				`GET ${DIRECT_CHAT} 200`,
				`GET ${USERS} 401`,
				'POST /oauth/token 200',
				`GET ${USERS} 200`,
			],
		);
		// Each call after a renewal goes with the new token; the refused ones with the old one.
		const bearer = calls.map((r) => r.headers.authorization ?? '');
		assert.equal(bearer[2], bearer[1], 'the expired token is sent once');
		assert.notEqual(bearer[4], bearer[2], 'a new token after the expiry');
		assert.equal(bearer[5], bearer[4], 'the refused token is the one of the call before');
		assert.notEqual(bearer[7], bearer[5], 'a new token after the 401');
	},
};

export const scenarios: Scenario[] = [botOperations, botCarousel, botToken];
