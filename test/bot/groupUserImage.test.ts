import { createHash } from 'crypto';

import { SEED } from '../../simulator/seed';
import { readBinary } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { only, runBot } from './bot.fixtures';

const { alice, bob, carol } = SEED.users;
const project = SEED.groups.project;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

const sim = useSimulator();

describe('Workplace Bot: groups', () => {
	it('creates a group as multipart with name, repeated uids[] and the group picture', async () => {
		const png = sim.state.picturePng(SEED.pictures.first, 'small') as Buffer;
		const { items, error, requests } = await runBot(
			sim,
			{
				resource: 'group',
				operation: 'create',
				name: 'Onboarding – Q3',
				memberIds: `${alice._id}, ${bob._id},${carol._id}`,
				options: { pictureBinaryPropertyName: 'picture' },
			},
			{ inputItems: [{ json: {}, binary: { picture: { data: png, fileName: 'logo.png', mimeType: 'image/png' } } }] },
		);
		expect(error).toBeUndefined();
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['POST', '/bot/v1/groups', 201]);
		expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
		expect(request.headers.authorization).toMatch(/^Bearer /);
		expect(request.multipart?.fields).toEqual({ name: 'Onboarding – Q3', 'uids[]': [alice._id, bob._id, carol._id] });
		expect(request.multipart?.files).toEqual([
			{ field: 'file', filename: 'logo.png', contentType: 'image/png', size: png.length, sha256: sha256(png) },
		]);
		// Three members plus the bot that created it.
		expect(items[0].json).toMatchObject({ group: { name: 'Onboarding – Q3', userCount: 4 } });
	});

	it('creates a group without a picture, member IDs from an expression array', async () => {
		const { requests } = await runBot(
			sim,
			{ resource: 'group', operation: 'create', name: 'Two', memberIds: '={{ $json.members }}' },
			{ inputItems: [{ json: { members: [alice._id, bob._id] } }] },
		);
		const request = only(requests);
		expect(request.multipart?.fields).toEqual({ name: 'Two', 'uids[]': [alice._id, bob._id] });
		expect(request.multipart?.files).toEqual([]);
	});

	it('creates a topic with a JSON body', async () => {
		const { items, requests } = await runBot(sim, {
			resource: 'group',
			operation: 'createTopic',
			groupId: project._id,
			topicName: 'Hiring',
		});
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['POST', `/bot/v1/groups/${project._id}/topics`, 201]);
		expect(request.body).toEqual({ name: 'Hiring' });
		expect(items[0].json).toMatchObject({ topic: { name: 'Hiring', gid: project._id } });
	});

	it('gets a member\'s info (v2)', async () => {
		const { items, requests } = await runBot(sim, {
			resource: 'group',
			operation: 'getMemberInfo',
			groupId: project._id,
			userId: alice._id,
		});
		expect(only(requests).path).toBe(`/bot/v2/groups/${project._id}/users/${alice._id}/info`);
		expect(items[0].json).toMatchObject({ _id: alice._id, firstname: 'Alice', lastname: 'Anderson', network_admin: true });
	});
});

describe('Workplace Bot: users', () => {
	it('looks up a user by username: one item per user, none for an unknown name', async () => {
		const { items, requests } = await runBot(
			sim,
			{ resource: 'user', operation: 'getByUsername', username: '={{ $json.name }}' },
			{ inputItems: [{ json: { name: 'alice' } }, { json: { name: 'nobody' } }, { json: { name: 'bob' } }] },
		);
		expect(requests.map((r) => [r.method, r.path, r.query])).toEqual([
			['GET', '/bot/v1/users', { username: 'alice' }],
			['GET', '/bot/v1/users', { username: 'nobody' }],
			['GET', '/bot/v1/users', { username: 'bob' }],
		]);
		expect(items.map((i) => [i.json.username, i.pairedItem])).toEqual([
			['alice', { item: 0 }],
			['bob', { item: 2 }],
		]);
	});

	it('gets (or creates) the direct chat with a user', async () => {
		const existing = await runBot(sim, { resource: 'user', operation: 'getDirectChat', userId: alice._id });
		expect(only(existing.requests).path).toBe(`/bot/v2/groups/users/${alice._id}`);
		expect(existing.items[0].json).toEqual(SEED.directChats.alice);

		const created = await runBot(sim, { resource: 'user', operation: 'getDirectChat', userId: bob._id });
		expect(created.items[0].json).toEqual(sim.state.directChat(bob._id));
	});
});

describe('Workplace Bot: images', () => {
	it.each(['small', 'large'])('downloads a picture a user sent, size %s, into a binary field', async (size) => {
		const { items, requests } = await runBot(sim, {
			resource: 'image',
			operation: 'download',
			pictureId: SEED.pictures.first,
			size,
			binaryPropertyName: 'photo',
		});
		const request = only(requests);
		expect([request.method, request.path, request.query, request.status]).toEqual([
			'GET',
			`/file/image/${SEED.pictures.first}`,
			{ size },
			200,
		]);
		expect(request.headers.authorization).toMatch(/^Bearer /);
		const expected = sim.state.picturePng(SEED.pictures.first, size) as Buffer;
		expect((await readBinary(items[0], 'photo')).equals(expected)).toBe(true);
		expect(items[0].binary?.photo.mimeType).toBe('image/png');
		expect(items[0].json).toMatchObject({ pictureId: SEED.pictures.first, size });
	});

	it.each([
		['a name with another extension', 'holiday.png', 'holiday.jpg', 'jpg'],
		['a name with an extension of the type', 'holiday.jpeg', 'holiday.jpeg', 'jpeg'],
		['a name without extension', 'holiday', 'holiday.jpg', 'jpg'],
		['no name', '', 'pic-jpeg-1-large.jpg', 'jpg'],
	])('File Name: %s gets the extension of the type the platform returned (image/jpeg)', async (_case, fileName, expectedName, expectedExtension) => {
		const jpeg = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
		sim.state.addPicture('pic-jpeg-1', { contentType: 'image/jpeg', bytes: jpeg });
		const { items, error, requests } = await runBot(sim, {
			resource: 'image',
			operation: 'download',
			pictureId: 'pic-jpeg-1',
			size: 'large',
			fileName,
			binaryPropertyName: 'data',
		});
		expect(error).toBeUndefined();
		const request = only(requests);
		expect([request.method, request.path, request.query, request.status]).toEqual(['GET', '/file/image/pic-jpeg-1', { size: 'large' }, 200]);
		const binary = items[0].binary?.data;
		expect([binary?.fileName, binary?.mimeType, binary?.fileExtension]).toEqual([expectedName, 'image/jpeg', expectedExtension]);
		expect((await readBinary(items[0], 'data')).equals(jpeg)).toBe(true);
		expect(items[0].json).toEqual({ pictureId: 'pic-jpeg-1', size: 'large', fileName: expectedName, mimeType: 'image/jpeg' });
	});

	it('without File Name a PNG is named after the picture and the size, with .png', async () => {
		const { items } = await runBot(sim, {
			resource: 'image',
			operation: 'download',
			pictureId: SEED.pictures.second,
			size: 'medium',
			binaryPropertyName: 'data',
		});
		const binary = items[0].binary?.data;
		expect([binary?.fileName, binary?.mimeType, binary?.fileExtension]).toEqual([`${SEED.pictures.second}-medium.png`, 'image/png', 'png']);
	});

	it('a File Name that is not text is refused before any request', async () => {
		const { error, requests } = await runBot(sim, {
			resource: 'image',
			operation: 'download',
			pictureId: SEED.pictures.first,
			size: 'medium',
			fileName: '={{ { name: "x" } }}',
			binaryPropertyName: 'data',
		});
		expect(requests).toHaveLength(0);
		expect(error?.message).toBe('Item 0: "File Name" must be text, got {"name":"x"}');
	});

	it('an unknown picture is a 404 NodeApiError', async () => {
		const { error, requests } = await runBot(sim, {
			resource: 'image',
			operation: 'download',
			pictureId: 'pic-unknown',
			size: 'medium',
			binaryPropertyName: 'data',
		});
		expect(only(requests).status).toBe(404);
		expect((error as { httpCode?: string }).httpCode).toBe('404');
	});
});
