import { SEED } from '../../simulator/seed';
import { useSimulator } from '../helpers/simulator';
import { bearer, only, runBot } from './bot.fixtures';

const alice = SEED.users.alice;
const bob = SEED.users.bob;
const project = SEED.groups.project;

const sim = useSimulator();

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

	it('a group the bot is not in becomes a NodeApiError with the status and the platform message', async () => {
		const { error, requests } = await runBot(sim, {
			resource: 'groupMessage',
			operation: 'sendText',
			groupId: SEED.groups.leadership._id,
			topicId: '',
			text: 'Hi',
		});
		const request = only(requests);
		expect(request.status).toBe(403);
		expect(error?.constructor.name).toBe('NodeApiError');
		expect((error as { httpCode?: string }).httpCode).toBe('403');
		expect(error?.message).toBe(`HTTP 403: The bot is not a member of group ${SEED.groups.leadership._id}`);
		expect((error as { description?: string }).description).toContain('Code: bot_not_in_group');
		expect(JSON.stringify(error)).not.toContain(sim.credentials.botClientSecret);
		expect(JSON.stringify(error)).not.toContain(sim.state.tokens()[0].token);
	});
});
