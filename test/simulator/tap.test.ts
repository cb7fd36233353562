import { createHmac } from 'crypto';
import { createServer, IncomingHttpHeaders, Server } from 'http';
import { AddressInfo } from 'net';
import { SEED, Simulator, TapError, TapRequest, verifySignature } from '../../simulator';
import { botToken, call, withSim } from './helpers';

interface Received {
	method?: string;
	url?: string;
	headers: IncomingHttpHeaders;
	body: Buffer;
}

const SECRET = 'tap-secret-9f3b1c';
const project = SEED.groups.project;
const release = project.topics.release;
const { alice, bob, carol, erin } = SEED.users;

/** The TapError a tap is refused with. */
async function refused(sim: Simulator, req: TapRequest): Promise<TapError> {
	try {
		await sim.tap(req);
	} catch (e) {
		if (e instanceof TapError) return e;
		throw e;
	}
	throw new Error('the tap was not refused');
}

describe('simulator: tap a postback button', () => {
	let sim: Simulator;
	let token: string;
	let server: Server;
	let hookUrl: string;
	const received: Received[] = [];

	async function push(gid: string, tid: string, messages: object[]): Promise<string[]> {
		const r = await call(`${sim.url}/bot/v2/message/push`, { headers: { authorization: `Bearer ${token}` }, json: { gid, tid, messages } });
		if (r.status !== 200) throw new Error(`push: ${r.status} ${r.text}`);
		return (r.json as Array<{ message: { id: string } }>).map((x) => x.message.id);
	}

	const approval = {
		type: 'template',
		altText: 'Approve the release?',
		template: {
			type: 'buttons',
			text: 'Release 1.4 is ready',
			actions: [
				{ type: 'postback', label: 'Approve', data: 'action=approve&release=1.4', text: 'Approved' },
				{ type: 'postback', label: 'Reject', data: 'action=reject&release=1.4' },
				{ type: 'uri', label: 'Open', linkUri: 'https://example.com/releases/1.4' },
			],
		},
	};

	beforeAll(async () => {
		server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
				res.writeHead(200, { 'content-type': 'text/plain' });
				res.end('ok');
			});
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
		hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bot-hook`;
		sim = await withSim();
	});
	afterAll(async () => {
		await sim.close();
		await new Promise<void>((r) => server.close(() => r()));
	});
	beforeEach(async () => {
		// state, log and the bot webhook back to the start values
		expect((await call(`${sim.controlUrl}/reset`, { method: 'POST' })).status).toBe(204);
		received.length = 0;
		token = await botToken(sim);
	});

	test('tapping Approve as bob in a group sends exactly one signed POST with the postback event', async () => {
		sim.configure({ botWebhookUrl: hookUrl, botWebhookSecret: SECRET });
		await push(project._id, release._id, [approval]);
		const r = await sim.tap({ label: 'Approve', user: 'bob', groupId: project._id, topicId: release._id });

		expect(received).toHaveLength(1);
		const d = received[0];
		expect(d.method).toBe('POST');
		expect(d.url).toBe('/bot-hook');
		expect(d.headers['content-type']).toBe('application/json');
		expect(d.headers['x-service-event']).toBeUndefined();
		const body = JSON.parse(d.body.toString('utf8'));
		expect(body).toEqual({ events: [r.event] });
		expect(body.events[0]).toEqual({
			type: 'postback',
			replyToken: expect.stringMatching(/^[0-9a-f]{32}$/),
			postback: { data: 'action=approve&release=1.4' },
			source: { type: 'user', userId: bob._id, username: 'bob' },
			timestamp: expect.any(String),
			sessionId: `${project._id}_${release._id}`,
		});
		expect(Number.isNaN(Date.parse(body.events[0].timestamp))).toBe(false);
		expect(d.headers['x-service-signature']).toBe(createHmac('sha256', SECRET).update(d.body).digest('hex'));
		expect(verifySignature(SECRET, d.body, d.headers['x-service-signature'] as string)).toBe(true);
		expect(r).toEqual({ status: 200, body: 'ok', signature: d.headers['x-service-signature'], event: body.events[0] });
	});

	test('index counts the postback actions only: template, carousel columns, then quick reply items', async () => {
		sim.configure({ botWebhookUrl: hookUrl, botWebhookSecret: SECRET });
		const carousel = {
			type: 'template',
			altText: 'Pick one',
			template: {
				type: 'carousel',
				columns: [
					{ text: 'First', actions: [{ type: 'postback', label: 'A', data: 'a' }, { type: 'uri', label: 'Docs', linkUri: 'https://example.com/a' }] },
					{ text: 'Second', actions: [{ type: 'message', label: 'Say hi', text: 'hi' }, { type: 'postback', label: 'B', data: 'b' }] },
				],
			},
			quickReply: { items: [{ type: 'action', action: { type: 'postback', label: 'Q', data: 'q' } }] },
		};
		const [id] = await push(project._id, '', [carousel]);
		await push(project._id, '', [{ type: 'text', text: 'a later message without buttons' }]);

		const datas: string[] = [];
		for (const index of [0, 1, 2]) datas.push((await sim.tap({ index, user: 'carol', groupId: project._id, topicId: '' })).event.postback.data);
		expect(datas).toEqual(['a', 'b', 'q']);
		expect(received.map((d) => JSON.parse(d.body.toString()).events[0].postback.data)).toEqual(['a', 'b', 'q']);
		// the main chat's thread id is the group's main thread
		expect(JSON.parse(received[0].body.toString()).events[0].sessionId).toBe(`${project._id}_${project.mainThreadId}`);

		expect((await sim.tap({ messageId: id, index: 1, user: 'alice' })).event.postback.data).toBe('b');
		expect((await refused(sim, { messageId: id, index: 3, user: 'alice' })).status).toBe(404);
		expect((await refused(sim, { messageId: 'no-such-message', index: 0, user: 'alice' })).status).toBe(404);
		// several postback actions and neither label nor index
		expect((await refused(sim, { messageId: id, user: 'alice' })).message).toMatch(/give label or index/);
		// a uri or message action sends no event
		const uri = await refused(sim, { messageId: id, label: 'Docs', user: 'alice' });
		expect(uri.status).toBe(400);
		expect(uri.message).toMatch(/is a uri action .*not a postback/);
		expect((await refused(sim, { label: 'Say hi', user: 'alice' })).message).toMatch(/message action/);
		expect(received).toHaveLength(4);
	});

	test('a quick reply postback in a direct chat; only the chat user may tap it', async () => {
		sim.configure({ botWebhookUrl: hookUrl, botWebhookSecret: SECRET });
		const chat = SEED.directChats.alice;
		await push(chat.gid, '', [
			{
				type: 'text',
				text: 'Lunch today?',
				quickReply: {
					items: [
						{ type: 'action', action: { type: 'message', label: 'Maybe', text: 'maybe' } },
						{ type: 'action', action: { type: 'postback', label: 'Yes', data: 'lunch=yes' } },
					],
				},
			},
		]);
		const r = await sim.tap({ uid: 'alice', label: 'Yes', user: { username: 'alice' } });
		expect(r.event.postback).toEqual({ data: 'lunch=yes' });
		expect(r.event.source).toEqual({ type: 'user', userId: alice._id, username: 'alice' });
		expect(r.event.sessionId).toBe(`${chat.gid}_${chat.tid}`);
		// the only postback action is taken without label or index; the latest message overall is found
		expect((await sim.tap({ user: { userId: alice._id } })).event.postback.data).toBe('lunch=yes');

		const carolTap = await refused(sim, { uid: alice._id, label: 'Yes', user: 'carol' });
		expect(carolTap.status).toBe(400);
		expect(carolTap.message).toMatch(/direct chat/);
		expect(received).toHaveLength(2);
	});

	test('a user who is not a member of the group is refused, unless allowNonMember', async () => {
		sim.configure({ botWebhookUrl: hookUrl, botWebhookSecret: SECRET });
		await push(project._id, release._id, [approval]);
		const e = await refused(sim, { label: 'Approve', user: 'erin', groupId: project._id });
		expect(e.status).toBe(400);
		expect(e.message).toMatch(/not a member/);
		const stranger = await refused(sim, { label: 'Approve', user: { userId: '64f0a00000000000000000ff', username: 'stranger' } });
		expect(stranger.status).toBe(400);
		expect((await refused(sim, { label: 'Approve', user: 'nobody-known' })).status).toBe(400);
		expect(received).toHaveLength(0);

		const r = await sim.tap({ label: 'Approve', user: 'erin', allowNonMember: true });
		expect(r.event.source).toEqual({ type: 'user', userId: erin._id, username: 'erin' });
		expect(received).toHaveLength(1);
	});

	test('without a configured or given webhook URL the tap is refused with 400', async () => {
		await push(project._id, release._id, [approval]);
		const e = await refused(sim, { label: 'Approve', user: 'bob' });
		expect(e.status).toBe(400);
		expect(e.message).toMatch(/no bot webhook URL/);
		const c = await call(`${sim.controlUrl}/tap`, { json: { label: 'Approve', user: 'bob' } });
		expect(c.status).toBe(400);
		expect(c.json.error).toMatch(/no bot webhook URL/);
		expect(received).toHaveLength(0);

		// a URL given with the tap needs no configuration; no secret anywhere: unsigned
		const r = await sim.tap({ label: 'Reject', user: 'bob', webhookUrl: hookUrl });
		expect(r.signature).toBeUndefined();
		expect(received).toHaveLength(1);
		expect(received[0].headers['x-service-signature']).toBeUndefined();

		// nobody listening: 502
		const closed = createServer();
		await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
		const port = (closed.address() as AddressInfo).port;
		await new Promise<void>((r) => closed.close(() => r()));
		const gone = await refused(sim, { label: 'Reject', user: 'bob', webhookUrl: `http://127.0.0.1:${port}/hook` });
		expect(gone.status).toBe(502);
		expect(gone.message).toMatch(/delivery of the postback event/);
	});

	test('secret: the configured one by default, another one per tap, null = unsigned', async () => {
		sim.configure({ botWebhookUrl: hookUrl, botWebhookSecret: SECRET });
		await push(project._id, release._id, [approval]);
		await sim.tap({ label: 'Approve', user: 'bob', secret: 'other-secret' });
		await sim.tap({ label: 'Approve', user: 'bob', secret: null });
		expect(received).toHaveLength(2);
		expect(verifySignature('other-secret', received[0].body, received[0].headers['x-service-signature'] as string)).toBe(true);
		expect(received[1].headers['x-service-signature']).toBeUndefined();
	});

	test('control routes: POST /__sim/config and POST /__sim/tap work the same; the secret is never shown', async () => {
		const cfg = await call(`${sim.controlUrl}/config`, { json: { botWebhookUrl: hookUrl, botWebhookSecret: SECRET } });
		expect(cfg.status).toBe(200);
		expect(cfg.json).toMatchObject({ botWebhookUrl: hookUrl, botWebhookSecretSet: true });
		expect(cfg.text).not.toContain(SECRET);
		expect(cfg.json.botWebhookSecret).toBeUndefined();
		expect(JSON.stringify(sim.publicConfig())).not.toContain(SECRET);
		const state = await call(`${sim.controlUrl}/state`);
		expect(state.json.config).toMatchObject({ botWebhookUrl: hookUrl, botWebhookSecretSet: true });
		expect(state.text).not.toContain(SECRET);

		await push(project._id, release._id, [approval]);
		const t = await call(`${sim.controlUrl}/tap`, { json: { label: 'Approve', user: 'carol', groupId: project._id, topicId: release._id } });
		expect(t.status).toBe(200);
		expect(received).toHaveLength(1);
		const body = JSON.parse(received[0].body.toString());
		expect(t.json).toEqual({ status: 200, body: 'ok', signature: received[0].headers['x-service-signature'], event: body.events[0] });
		expect(body.events[0]).toMatchObject({ type: 'postback', postback: { data: 'action=approve&release=1.4' }, source: { type: 'user', userId: carol._id, username: 'carol' }, sessionId: `${project._id}_${release._id}` });
		expect(verifySignature(SECRET, received[0].body, t.json.signature)).toBe(true);

		expect((await call(`${sim.controlUrl}/tap`, { json: { label: 'Nope', user: 'carol' } })).status).toBe(404);
		expect((await call(`${sim.controlUrl}/tap`, { json: { label: 'Open', user: 'carol' } })).json.error).toMatch(/not a postback/);
		expect((await call(`${sim.controlUrl}/tap`, { json: { label: 'Approve', user: 'erin' } })).status).toBe(400);
		expect((await call(`${sim.controlUrl}/tap`, { json: { label: 'Approve' } })).status).toBe(400);
		expect((await call(`${sim.controlUrl}/tap`, { json: { index: 'one', user: 'bob' } })).status).toBe(400);
		expect((await call(`${sim.controlUrl}/config`, { json: { botWebhookUrl: 'not a url' } })).status).toBe(400);
		expect(received).toHaveLength(1);

		// null clears; a reset goes back to the start values (none here)
		expect((await call(`${sim.controlUrl}/config`, { json: { botWebhookSecret: null } })).json).toMatchObject({ botWebhookUrl: hookUrl, botWebhookSecretSet: false });
		sim.configure({ botWebhookSecret: SECRET });
		expect((await call(`${sim.controlUrl}/reset`, { method: 'POST' })).status).toBe(204);
		expect(sim.publicConfig()).toMatchObject({ botWebhookUrl: null, botWebhookSecretSet: false });
	});

	test('several taps in one delivery: one signed POST, the events in order, 1 s apart, the last one now', async () => {
		sim.configure({ botWebhookUrl: hookUrl, botWebhookSecret: SECRET });
		const [id] = await push(project._id, release._id, [approval]);
		const before = Date.now();
		const r = await sim.tapTogether([
			{ messageId: id, label: 'Approve', user: 'alice' },
			{ messageId: id, label: 'Reject', user: 'bob' },
		]);
		expect(received).toHaveLength(1);
		const body = JSON.parse(received[0].body.toString('utf8'));
		expect(body).toEqual({ events: r.events });
		expect(r.events.map((e) => [e.source.username, e.postback.data, e.sessionId])).toEqual([
			['alice', 'action=approve&release=1.4', `${project._id}_${release._id}`],
			['bob', 'action=reject&release=1.4', `${project._id}_${release._id}`],
		]);
		expect(new Set(r.events.map((e) => e.replyToken)).size).toBe(2);
		const times = r.events.map((e) => Date.parse(e.timestamp));
		expect(times[1] - times[0]).toBe(1000);
		expect(times[1]).toBeGreaterThanOrEqual(before);
		expect(verifySignature(SECRET, received[0].body, received[0].headers['x-service-signature'] as string)).toBe(true);
		expect(r).toEqual({ status: 200, body: 'ok', signature: received[0].headers['x-service-signature'], events: body.events });

		// The control route; spacingMs 0: the same time. Delivery fields belong to the delivery, not a tap.
		const t = await call(`${sim.controlUrl}/taps`, { json: { taps: [{ label: 'Approve', user: 'carol', groupId: project._id }, { label: 'Approve', user: 'bob', groupId: project._id }], spacingMs: 0, secret: null } });
		expect(t.status).toBe(200);
		expect(received).toHaveLength(2);
		expect(received[1].headers['x-service-signature']).toBeUndefined();
		expect(t.json.events.map((e: { source: { username: string } }) => e.source.username)).toEqual(['carol', 'bob']);
		expect(t.json.events[0].timestamp).toBe(t.json.events[1].timestamp);
		expect((await call(`${sim.controlUrl}/taps`, { json: { taps: [] } })).status).toBe(400);
		expect((await call(`${sim.controlUrl}/taps`, { json: { taps: [{ label: 'Approve', user: 'bob', secret: 'x' }] } })).json.error).toMatch(/belong to the delivery/);
		expect((await call(`${sim.controlUrl}/taps`, { json: { taps: [{ label: 'Approve', user: 'bob' }, { label: 'Approve', user: 'erin' }] } })).status).toBe(400);
		expect(received).toHaveLength(2);
	});

	test('SimulatorOptions botWebhookUrl and botWebhookSecret are the start values', async () => {
		const other = await withSim({ botWebhookUrl: hookUrl, botWebhookSecret: SECRET });
		try {
			expect(other.publicConfig()).toMatchObject({ botWebhookUrl: hookUrl, botWebhookSecretSet: true });
			expect(JSON.stringify(other.publicConfig())).not.toContain(SECRET);
			other.configure({ botWebhookUrl: null, botWebhookSecret: null });
			expect(other.publicConfig()).toMatchObject({ botWebhookUrl: null, botWebhookSecretSet: false });
			expect((await call(`${other.controlUrl}/reset`, { method: 'POST' })).status).toBe(204);
			expect(other.publicConfig()).toMatchObject({ botWebhookUrl: hookUrl, botWebhookSecretSet: true });
		} finally {
			await other.close();
		}
		await expect(withSim({ botWebhookUrl: 'ftp://example.com/hook' })).rejects.toThrow(/botWebhookUrl/);
	});
});
