import type { NodeApiError } from 'n8n-workflow';

import { SEED } from '../../simulator/seed';
import { useSimulator } from '../helpers/simulator';
import { bearer, only, runBot } from './bot.fixtures';

const alice = SEED.users.alice;
const bob = SEED.users.bob;
const project = SEED.groups.project;

const sim = useSimulator();

/** What a bot 403's description lists after the platform's words: the platform does not say which applies. */
const BOT_FORBIDDEN_CAUSES = [
	'The platform refused the request. Possible causes:',
	'- the bot is not a member of the group, or cannot reach the user (a direct chat it may not open, a user who left)',
	"- the bot's role does not allow the call (e.g. a read-only group, or one where only admins may post)",
	'- the bot\'s OAuth client lacks a scope the call needs (tokens are requested with the scope "bot profile"; user lookups need "bot")',
];

describe('Workplace Bot: direct messages', () => {
	it('sends a text to a user with a bearer token fetched once from /oauth/token', async () => {
		const { items, error, requests, tokenRequests } = await runBot(sim, {
			resource: 'directMessage',
			operation: 'sendText',
			userId: alice._id,
			text: 'Welcome aboard!',
		});
		expect(error).toBeUndefined();
		const token = only(tokenRequests);
		expect([token.method, token.path, token.status]).toEqual(['POST', '/oauth/token', 200]);
		expect(token.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
		expect(token.headers.authorization).toBe(
			`Basic ${Buffer.from(`${sim.credentials.botClientId}:${sim.credentials.botClientSecret}`).toString('base64')}`,
		);
		expect(token.body).toEqual({ grant_type: 'client_credentials', scope: 'bot profile' });

		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['POST', '/bot/v1/direct/message', 201]);
		expect(bearer(request)).toBe(`Bearer ${sim.state.tokens()[0].token}`);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.body).toEqual({ uid: alice._id, message: { type: 'text', data: 'Welcome aboard!' } });

		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ status: 'success', message: { type: 'text' } });
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(sim.state.sentMessages({ uid: alice._id }).map((m) => m.content)).toEqual([{ text: 'Welcome aboard!' }]);
	});

	it('sends a picture by URL with a caption, and a file given as an n8n binary (base64 data URI)', async () => {
		const picture = await runBot(sim, {
			resource: 'directMessage',
			operation: 'sendPicture',
			userId: bob._id,
			fileSource: 'url',
			fileUrl: 'https://example.com/team.png',
			caption: 'Our team',
		});
		const pictureRequest = only(picture.requests);
		expect([pictureRequest.path, pictureRequest.status]).toEqual(['/bot/v1/direct/picture', 201]);
		expect(pictureRequest.body).toEqual({ uid: bob._id, file: 'https://example.com/team.png', caption: 'Our team' });
		expect(picture.items[0].json).toMatchObject({ message: { type: 'picture' } });

		const pdf = Buffer.from('%PDF-1.4 tiny\n');
		const file = await runBot(
			sim,
			{ resource: 'directMessage', operation: 'sendFile', userId: bob._id, fileSource: 'binary', binaryPropertyName: 'data' },
			{ inputItems: [{ json: {}, binary: { data: { data: pdf, fileName: 'tiny.pdf', mimeType: 'application/pdf' } } }] },
		);
		const fileRequest = only(file.requests);
		expect([fileRequest.path, fileRequest.status]).toEqual(['/bot/v1/direct/file', 201]);
		expect(fileRequest.body).toEqual({ uid: bob._id, file: `data:application/pdf;base64,${pdf.toString('base64')}` });
		expect(file.items[0].json).toMatchObject({ message: { type: 'file' } });
	});

	it('checks the user ID and text before sending anything', async () => {
		const { error, requests, tokenRequests } = await runBot(
			sim,
			{ resource: 'directMessage', operation: 'sendText', userId: '={{ $json.uid }}', text: '={{ $json.text }}' },
			{ inputItems: [{ json: { uid: alice._id, text: '' } }] },
		);
		expect(requests).toHaveLength(0);
		expect(tokenRequests).toHaveLength(0);
		expect(error?.message).toBe('Item 0: "Text" must not be empty, got an empty string');
	});
});

describe('Workplace Bot: group messages', () => {
	it('sends text to the main chat (empty topic) and to a topic', async () => {
		const { items, requests } = await runBot(
			sim,
			{ resource: 'groupMessage', operation: 'sendText', groupId: project._id, topicId: '={{ $json.tid }}', text: '={{ $json.text }}' },
			{ inputItems: [{ json: { tid: '', text: 'Hello all' } }, { json: { tid: project.topics.release._id, text: 'Release on Friday' } }] },
		);
		expect(requests.map((r) => [r.method, r.path, r.status, r.body])).toEqual([
			['POST', '/bot/v1/group/message', 201, { gid: project._id, tid: '', message: { type: 'text', data: 'Hello all' } }],
			['POST', '/bot/v1/group/message', 201, { gid: project._id, tid: project.topics.release._id, message: { type: 'text', data: 'Release on Friday' } }],
		]);
		expect(items.map((i) => (i.json.message as { threadId: string }).threadId)).toEqual([project.mainThreadId, project.topics.release._id]);
		expect(sim.state.sentMessages({ gid: project._id, tid: project.topics.release._id })).toHaveLength(1);
	});

	it('sends a picture to a topic and a file to the group', async () => {
		const picture = await runBot(sim, {
			resource: 'groupMessage',
			operation: 'sendPicture',
			groupId: project._id,
			topicId: project.topics.release._id,
			fileSource: 'url',
			fileUrl: 'https://example.com/chart.png',
			caption: 'Burndown',
		});
		expect(only(picture.requests).body).toEqual({
			gid: project._id,
			tid: project.topics.release._id,
			file: 'https://example.com/chart.png',
			caption: 'Burndown',
		});
		const file = await runBot(sim, {
			resource: 'groupMessage',
			operation: 'sendFile',
			groupId: project._id,
			fileSource: 'url',
			fileUrl: 'https://example.com/notes.pdf',
		});
		const request = only(file.requests);
		expect([request.path, request.status, request.body]).toEqual([
			'/bot/v1/group/file',
			201,
			{ gid: project._id, file: 'https://example.com/notes.pdf' },
		]);
	});

	it('403: a group the bot is not in reports the platform\'s code and message and lists every possible cause', async () => {
		const leadership = SEED.groups.leadership;
		const { error, requests } = await runBot(sim, {
			resource: 'groupMessage',
			operation: 'sendText',
			groupId: leadership._id,
			topicId: '',
			text: 'Hi',
		});
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['POST', '/bot/v1/group/message', 403]);
		expect(bearer(request)).toBe(`Bearer ${sim.state.tokens()[0].token}`);
		expect(request.body).toEqual({ gid: leadership._id, tid: '', message: { type: 'text', data: 'Hi' } });
		expect(error?.constructor.name).toBe('NodeApiError');
		expect((error as NodeApiError).httpCode).toBe('403');
		expect(error?.message).toBe(`HTTP 403 bot_not_in_group: The bot is not a member of group ${leadership._id}`);
		expect((error as NodeApiError).description?.split('\n')).toEqual([
			'HTTP status 403 (Forbidden)',
			'Code: bot_not_in_group',
			`Message: The bot is not a member of group ${leadership._id}`,
			...BOT_FORBIDDEN_CAUSES,
		]);
		expect((error as NodeApiError).context.platformError).toEqual({
			status: 403,
			code: 'bot_not_in_group',
			message: `The bot is not a member of group ${leadership._id}`,
			fields: [],
		});
		expect(sim.state.sentMessages({ gid: leadership._id })).toEqual([]);
		expect(JSON.stringify(error)).not.toContain(sim.credentials.botClientSecret);
		expect(JSON.stringify(error)).not.toContain(sim.state.tokens()[0].token);
	});

	it.each([
		{
			shape: 'a knowledge-style body {name, code, message}',
			body: { name: 'ForbiddenException', code: 403007, status: 403, message: 'Posting is limited to admins', errors: [] },
			message: 'ForbiddenException: Posting is limited to admins',
			lines: ['Error: ForbiddenException', 'Code: 403007', 'Message: Posting is limited to admins'],
		},
		{
			shape: 'a task-style body {error, message, details}',
			body: { error: 'Forbidden', message: 'Missing scope', details: [{ path: 'gid', message: 'not allowed' }] },
			message: 'Forbidden: Missing scope [gid: not allowed]',
			lines: ['Error: Forbidden', 'Message: Missing scope', 'Field "gid": not allowed'],
		},
		{
			shape: 'another API\'s spelling {errorCode, detail}',
			body: { errorCode: 'E_ROLE', detail: 'Read-only group' },
			message: 'HTTP 403 E_ROLE: Read-only group',
			lines: ['Code: E_ROLE', 'Message: Read-only group'],
		},
		{
			shape: 'a body with nothing known in it',
			body: { denied: true, why: ['membership'] },
			message: 'HTTP 403: Forbidden',
			lines: ['Body: {"denied":true,"why":["membership"]}'],
		},
		{ shape: 'a plain text body', body: 'Access denied by policy', message: 'HTTP 403: Access denied by policy', lines: ['Message: Access denied by policy'] },
	])('403 with $shape: the platform\'s own words, and every possible cause', async ({ body, message, lines }) => {
		sim.faults.add({ method: 'POST', path: '/bot/v1/group/message', status: 403, body });
		const { error, requests } = await runBot(sim, { resource: 'groupMessage', operation: 'sendText', groupId: project._id, topicId: '', text: 'Hi' });
		const request = only(requests);
		expect([request.path, request.status, request.body]).toEqual(['/bot/v1/group/message', 403, { gid: project._id, tid: '', message: { type: 'text', data: 'Hi' } }]);
		expect(error?.constructor.name).toBe('NodeApiError');
		expect((error as NodeApiError).httpCode).toBe('403');
		expect(error?.message).toBe(message);
		expect((error as NodeApiError).description?.split('\n')).toEqual(['HTTP status 403 (Forbidden)', ...lines, ...BOT_FORBIDDEN_CAUSES]);
	});
});
