/**
 * Workplace Bot in real n8n: look a user up, find the direct chat, send direct and group messages,
 * push a template to a group's main chat (node version 1.1 with "Main Chat" picked, and a saved
 * version 1 node with Thread ID left empty), create a group and a topic, read member info and
 * download a picture, with one OAuth token.
 */
import * as assert from 'node:assert/strict';

import type { SimulatorState } from '../../../simulator';
import { SEED } from '../../../simulator/seed';
import type { Scenario } from '../types';
import { chain, manualTrigger } from '../workflow';
import { bot, botCredential, requestLines, sha256 } from '../workplace';

const project = SEED.groups.project;
const USER = "={{ $('Find User').first().json._id }}";

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
			{
				...bot('Main Chat Template', {
					resource: 'message',
					operation: 'push',
					groupId: project._id,
					threadId: { __rl: true, mode: 'list', value: '', cachedResultName: 'Main Chat' },
					defineMessages: 'json',
					messagesJson: approval('Ship release 1.4?'),
				}),
				typeVersion: 1.1,
			},
			// A workflow saved with version 1: Thread ID was text, now optional.
			bot('Main Chat Template v1', {
				resource: 'message',
				operation: 'push',
				groupId: project._id,
				threadId: '',
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
		]),
	async assert(result, { sim }) {
		const state = sim.state as SimulatorState;
		assert.equal(result.json('Find User')[0]._id, SEED.users.alice._id);
		assert.deepEqual(result.json('Direct Chat')[0], SEED.directChats.alice);
		assert.equal(result.json('Say Hello')[0].status, 'success');
		assert.equal((result.json('Tell Topic')[0].message as { threadId: string }).threadId, project.topics.release._id);
		for (const name of ['Main Chat Template', 'Main Chat Template v1']) {
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

		const log = sim.log.all();
		assert.deepEqual(requestLines(log.filter((r) => r.path === '/oauth/token')), ['POST /oauth/token']);
		const calls = log.filter((r) => r.path !== '/oauth/token');
		assert.deepEqual(requestLines(calls), [
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
		assert.deepEqual(
			state
				.sentMessages({ uid: SEED.users.alice._id })
				.slice(aliceMessagesBefore)
				.map((m) => m.type),
			['text', 'picture'],
		);
	},
};

export const scenarios: Scenario[] = [botOperations];
