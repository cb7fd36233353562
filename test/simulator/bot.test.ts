import { FormData } from 'undici';
import { SEED } from '../../simulator';
import { useSimulator } from '../helpers/simulator';
import { botToken, call, withSim } from './helpers';

const { alice, bob, carol, dave } = SEED.users;
const project = SEED.groups.project;

describe('simulator: OAuth and bot API', () => {
	const sim = useSimulator();

	const basic = (id: string, secret: string): string => 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64');
	const form = { 'content-type': 'application/x-www-form-urlencoded' };

	test('token endpoint: success, wrong secret, scope without bot', async () => {
		const c = sim.credentials;
		const ok = await call(`${sim.url}/oauth/token`, { headers: { ...form, authorization: basic(c.botClientId, c.botClientSecret) }, body: 'grant_type=client_credentials&scope=bot+profile' });
		expect(ok.status).toBe(200);
		expect(ok.json).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'bot profile' });
		const wrong = await call(`${sim.url}/oauth/token`, { headers: { ...form, authorization: basic(c.botClientId, 'x') }, body: 'grant_type=client_credentials&scope=bot+profile' });
		expect(wrong.status).toBe(401);
		expect(wrong.json).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
		const grant = await call(`${sim.url}/oauth/token`, { headers: { ...form, authorization: basic(c.botClientId, c.botClientSecret) }, body: 'grant_type=password' });
		expect(grant.json.error).toBe('unsupported_grant_type');
		expect(sim.state.issuedTokenCount).toBe(1);

		const profileOnly = await botToken(sim, 'profile');
		const lookup = await call(`${sim.url}/bot/v1/users?username=alice`, { headers: { authorization: `Bearer ${profileOnly}` } });
		expect(lookup.status).toBe(403);
		const full = await botToken(sim);
		const lookup2 = await call(`${sim.url}/bot/v1/users?username=alice`, { headers: { authorization: `Bearer ${full}` } });
		expect(lookup2.status).toBe(200);
		expect(lookup2.json.users[0]).toEqual({ _id: alice._id, username: 'alice', email: alice.email, firstname: 'Alice', lastname: 'Anderson', position: 'Product Manager', deleted: false });
	});

	test('v1 sends accept Authentication header, JSON and urlencoded; messages are recorded in order', async () => {
		const t = await botToken(sim);
		expect((await call(`${sim.url}/bot/v1/direct/message`, { json: { uid: bob._id, message: { type: 'text', data: 'x' } } })).status).toBe(401);
		const a = await call(`${sim.url}/bot/v1/direct/message`, { headers: { authentication: t }, json: { uid: bob._id, message: { type: 'text', data: 'first' } } });
		expect(a.status).toBe(201);
		expect(a.json).toMatchObject({ status: 'success', message: { id: expect.any(String), type: 'text', groupId: expect.any(String), threadId: expect.any(String) } });
		const b = await call(`${sim.url}/bot/v1/direct/message`, {
			headers: { authentication: `Bearer ${t}`, ...form },
			body: new URLSearchParams({ uid: bob._id, 'message[type]': 'text', 'message[data]': 'second' }).toString(),
		});
		expect(b.status).toBe(201);
		const p = await call(`${sim.url}/bot/v1/direct/picture`, { headers: { authorization: `Bearer ${t}` }, json: { uid: bob._id, file: 'https://cdn.example.com/a.png', caption: 'pic' } });
		expect(p.json.message.type).toBe('picture');
		const msgs = sim.state.sentMessages({ uid: bob._id });
		expect(msgs.map((m) => m.content)).toEqual([{ text: 'first' }, { text: 'second' }, expect.objectContaining({ caption: 'pic' })]);

		const g = await call(`${sim.url}/bot/v1/group/message`, { headers: { authorization: `Bearer ${t}` }, json: { gid: project._id, tid: '', message: { type: 'text', data: 'main' } } });
		expect(g.json.message).toMatchObject({ groupId: project._id, threadId: project.mainThreadId });
		const gt = await call(`${sim.url}/bot/v1/group/message`, { headers: { authorization: `Bearer ${t}` }, json: { gid: project._id, tid: project.topics.release._id, message: { type: 'text', data: 'topic' } } });
		expect(gt.json.message.threadId).toBe(project.topics.release._id);
		expect(sim.state.sentMessages({ gid: project._id, tid: project.topics.release._id })).toHaveLength(1);
		expect((await call(`${sim.url}/bot/v1/group/message`, { headers: { authorization: `Bearer ${t}` }, json: { gid: SEED.groups.leadership._id, message: { type: 'text', data: 'x' } } })).status).toBe(403);
		expect((await call(`${sim.url}/bot/v1/direct/message`, { headers: { authorization: `Bearer ${t}` }, json: { uid: dave._id, message: { type: 'text', data: 'x' } } })).status).toBe(404);
		const missing = await call(`${sim.url}/bot/v1/direct/message`, { headers: { authorization: `Bearer ${t}` }, json: { uid: bob._id } });
		expect(missing.status).toBe(400);
		expect(missing.json.errors[0].field).toBe('message');
	});

	test('groups (multipart with uids[]), topics (urlencoded), direct chat, group user info', async () => {
		const t = await botToken(sim);
		const auth = { authorization: `Bearer ${t}` };
		const fd = new FormData();
		fd.append('name', 'New group');
		fd.append('file', new Blob([Buffer.from('89504e47', 'hex')], { type: 'image/png' }), 'g.png');
		fd.append('uids[]', alice._id);
		fd.append('uids[]', carol._id);
		const g = await call(`${sim.url}/bot/v1/groups`, { headers: auth, body: fd });
		expect(g.status).toBe(201);
		expect(g.json.group).toMatchObject({ _id: expect.any(String), name: 'New group', type: 'group_chatv2', userCount: 3 });
		expect(Object.keys(g.json.group.settings).sort()).toEqual(['isAdminManaged', 'isAutoManagedMember', 'isCreatorManaged', 'isMemberManaged', 'isPrivate', 'isReadOnly', 'onlyAdminCanPost']);
		const logged = sim.log.find({ path: '/bot/v1/groups' })[0];
		expect(logged.multipart?.fields['uids[]']).toEqual([alice._id, carol._id]);

		const topic = await call(`${sim.url}/bot/v1/groups/${g.json.group._id}/topics`, { headers: { ...auth, ...form }, body: 'name=Design' });
		expect(topic.status).toBe(201);
		expect(topic.json.topic).toEqual({ _id: expect.any(String), name: 'Design', gid: g.json.group._id });
		// GET .../topics (chosen, not in the spec): the topics created through POST, in creation order.
		const listed = await call(`${sim.url}/bot/v1/groups/${g.json.group._id}/topics`, { method: 'GET', headers: auth });
		expect([listed.status, listed.json]).toEqual([200, { topics: [topic.json.topic] }]);
		const seeded = await call(`${sim.url}/bot/v1/groups/${project._id}/topics`, { method: 'GET', headers: auth });
		expect(seeded.json.topics).toEqual([{ _id: project.topics.release._id, name: project.topics.release.name, gid: project._id }]);
		expect((await call(`${sim.url}/bot/v1/groups/${SEED.groups.leadership._id}/topics`, { method: 'GET', headers: auth })).json.code).toBe('bot_not_in_group');
		expect((await call(`${sim.url}/bot/v1/groups/64f0c00000000000000000ff/topics`, { method: 'GET', headers: auth })).status).toBe(404);

		const d1 = await call(`${sim.url}/bot/v2/groups/users/${carol._id}`, { headers: auth });
		const d2 = await call(`${sim.url}/bot/v2/groups/users/${carol._id}`, { headers: auth });
		expect(d1.status).toBe(200);
		expect(d2.json).toEqual(d1.json);
		expect(typeof d1.json.gid).toBe('string');

		const info = await call(`${sim.url}/bot/v2/groups/${project._id}/users/${bob._id}/info`, { headers: auth });
		expect(info.json).toEqual({ _id: bob._id, firstname: 'Bob', lastname: 'Brown', avatar: expect.stringMatching(/^https:/), network_admin: false });
		expect((await call(`${sim.url}/bot/v2/groups/${project._id}/users/${SEED.users.erin._id}/info`, { headers: auth })).status).toBe(404);
		expect((await call(`${sim.url}/bot/v2/groups/${SEED.groups.leadership._id}/users/${bob._id}/info`, { headers: auth })).status).toBe(403);
		// v2 does not accept the v1 `Authentication` header
		expect((await call(`${sim.url}/bot/v2/groups/users/${carol._id}`, { headers: { authentication: t } })).status).toBe(401);
	});

	test('push: validation error names the failing field; success returns one result per message', async () => {
		const t = await botToken(sim);
		const auth = { authorization: `Bearer ${t}` };
		const bad = await call(`${sim.url}/bot/v2/message/push`, {
			headers: auth,
			json: {
				gid: project._id,
				tid: project.topics.release._id,
				messages: [{ type: 'template', altText: 'x', template: { type: 'buttons', text: 'Pick', actions: [{ type: 'uri', label: 'This label is far too long', linkUri: 'https://example.com' }] } }],
			},
		});
		expect(bad.status).toBe(400);
		expect(bad.json).toMatchObject({ status: 'error', code: 'invalid_request', errors: [{ field: 'messages[0].template.actions[0].label', message: expect.stringMatching(/20/) }] });

		const tooLongText = await call(`${sim.url}/bot/v2/message/push`, {
			headers: auth,
			json: { gid: project._id, messages: [{ type: 'template', template: { type: 'buttons', title: 'T', text: 'x'.repeat(61), actions: [{ type: 'message', label: 'ok', text: 'ok' }] } }] },
		});
		expect(tooLongText.json.errors[0].field).toBe('messages[0].template.text');
		const imagemap = await call(`${sim.url}/bot/v2/message/push`, {
			headers: auth,
			json: { gid: project._id, messages: [{ type: 'imagemap', baseUrl: 'https://x.example/i', baseSize: { width: 1040, height: 1040 }, actions: [{ type: 'uri', linkUri: 'https://x', area: { x: -1, y: 0, width: 10, height: 10 } }] }] },
		});
		expect(imagemap.json.errors[0].field).toBe('messages[0].actions[0].area.x');

		const ok = await call(`${sim.url}/bot/v2/message/push`, {
			headers: auth,
			json: {
				gid: project._id,
				tid: project.topics.release._id,
				messages: [
					{ type: 'text', text: 'one', quickReply: { items: [{ type: 'action', action: { type: 'postback', label: 'Yes', data: 'y' } }] } },
					{ type: 'image', originalContentUrl: 'https://x.example/a.jpg', previewImageUrl: 'https://x.example/p.jpg' },
					{ type: 'template', template: { type: 'carousel', columns: [{ text: 'c1', actions: [{ type: 'uri', label: 'open', uri: 'https://example.com' }] }] } },
				],
			},
		});
		expect(ok.status).toBe(200);
		expect(ok.json).toHaveLength(3);
		expect(ok.json[0]).toMatchObject({ status: 'success', message: { type: 'botv2', groupId: project._id, threadId: project.topics.release._id } });
		const recorded = sim.state.sentMessages({ gid: project._id, tid: project.topics.release._id });
		expect(recorded.map((m) => (m.content as { type: string }).type)).toEqual(['text', 'image', 'template']);
	});

	test('token expiry: expireTokens() and the tokenTtlSeconds option', async () => {
		const t = await botToken(sim);
		const url = `${sim.url}/bot/v2/groups/users/${alice._id}`;
		expect((await call(url, { headers: { authorization: `Bearer ${t}` } })).status).toBe(200);
		sim.expireTokens();
		const r = await call(url, { headers: { authorization: `Bearer ${t}` } });
		expect(r.status).toBe(401);
		expect(r.json.code).toBe('token_expired');
		expect((await call(url, { headers: { authorization: `Bearer ${await botToken(sim)}` } })).status).toBe(200);

		const short = await withSim({ tokenTtlSeconds: 1 });
		try {
			const st = await botToken(short);
			expect((await call(`${short.url}/bot/v2/groups/users/${alice._id}`, { headers: { authorization: `Bearer ${st}` } })).status).toBe(200);
			await new Promise((res) => setTimeout(res, 1100));
			expect((await call(`${short.url}/bot/v2/groups/users/${alice._id}`, { headers: { authorization: `Bearer ${st}` } })).status).toBe(401);
		} finally {
			await short.close();
		}
	});

	test('image retrieval: sizes give different PNGs, default medium, 400/404', async () => {
		const t = await botToken(sim);
		const auth = { authorization: `Bearer ${t}` };
		const pic = SEED.pictures.first;
		const small = await call(`${sim.url}/file/image/${pic}?size=small`, { headers: auth });
		const def = await call(`${sim.url}/file/image/${pic}`, { headers: auth });
		const medium = await call(`${sim.url}/file/image/${pic}?size=medium`, { headers: auth });
		const large = await call(`${sim.url}/file/image/${pic}?size=large`, { headers: auth });
		expect(small.headers['content-type']).toBe('image/png');
		expect(small.buffer.subarray(1, 4).toString()).toBe('PNG');
		expect(def.buffer.equals(medium.buffer)).toBe(true);
		expect(small.buffer.equals(medium.buffer)).toBe(false);
		expect(large.buffer.equals(medium.buffer)).toBe(false);
		expect(large.buffer.readUInt32BE(16)).toBe(1024);
		expect((await call(`${sim.url}/file/image/${pic}?size=huge`, { headers: auth })).status).toBe(400);
		expect((await call(`${sim.url}/file/image/nope`, { headers: auth })).status).toBe(404);
		expect((await call(`${sim.url}/file/image/${pic}`)).status).toBe(401);
	});
});
