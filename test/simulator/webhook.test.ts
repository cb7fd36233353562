import { createHmac } from 'crypto';
import { createServer, IncomingHttpHeaders, Server } from 'http';
import { AddressInfo } from 'net';
import { joinEvent, messageEvent, postbackEvent, SEED, sendWebhook, userEvent, userRecord, verifySignature } from '../../simulator';

interface Received {
	headers: IncomingHttpHeaders;
	body: Buffer;
}

describe('simulator: webhook sender', () => {
	let server: Server;
	let url: string;
	const received: Received[] = [];
	const secret = 'shh';

	beforeAll(async () => {
		server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				const body = Buffer.concat(chunks);
				received.push({ headers: req.headers, body });
				const ok = verifySignature(secret, body, req.headers['x-service-signature'] as string | undefined);
				res.writeHead(ok ? 200 : 401, { 'content-type': 'text/plain' });
				res.end(ok ? 'ok' : 'bad signature');
			});
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
		url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
	});
	afterAll(() => new Promise<void>((r) => server.close(() => r())));
	beforeEach(() => {
		received.length = 0;
	});

	test('bot delivery signed as hex and as base64 over the exact raw bytes', async () => {
		const ev = messageEvent({ text: 'héllo', groupId: SEED.groups.project._id, topicId: SEED.groups.project.topics.release._id });
		const hex = await sendWebhook(url, { kind: 'bot', events: [ev] }, { secret, signature: 'hex' });
		expect(hex.status).toBe(200);
		const r = received[0];
		expect(r.headers['x-service-signature']).toBe(createHmac('sha256', secret).update(r.body).digest('hex'));
		expect(r.headers['x-service-event']).toBeUndefined();
		expect(JSON.parse(r.body.toString())).toEqual({ events: [ev] });
		expect(ev.sessionId).toBe(`${SEED.groups.project._id}_${SEED.groups.project.topics.release._id}`);

		const b64 = await sendWebhook(url, { kind: 'bot', events: [joinEvent(), postbackEvent({ data: 'a=1' })] }, { secret, signature: 'base64' });
		expect(b64.status).toBe(200);
		expect(received[1].headers['x-service-signature']).toBe(createHmac('sha256', secret).update(received[1].body).digest('base64'));
	});

	test('user delivery carries X-Service-Event: user; bad signatures are rejected by the receiver', async () => {
		const user = userRecord({ username: 'frank' });
		const res = await sendWebhook(url, { kind: 'user', action: 'created', user }, { secret });
		expect(res.status).toBe(200);
		expect(received[0].headers['x-service-event']).toBe('user');
		expect(JSON.parse(received[0].body.toString())).toEqual({ action: 'created', user });
		for (const signature of ['wrong', 'truncated', 'none', { value: 'abc' }] as const) {
			const r = await sendWebhook(url, { kind: 'user', ...userEvent('deleted') }, { secret, signature });
			expect(r.status).toBe(401);
		}
		expect(received[2].headers['x-service-signature']).toHaveLength(32);
		expect(received[3].headers['x-service-signature']).toBeUndefined();
	});

	test('raw deliveries and unique reply tokens', async () => {
		const raw = '{"events": [ {"type":"message",'; // malformed on purpose
		const r = await sendWebhook(url, { raw }, { secret });
		expect(r.status).toBe(200);
		expect(received[0].body.toString()).toBe(raw);
		const a = messageEvent();
		const b = messageEvent();
		expect(a.replyToken).not.toBe(b.replyToken);
		expect(a.message.id).not.toBe(b.message.id);
		expect(messageEvent({ pictureId: SEED.pictures.first }).message).toMatchObject({ type: 'file', pictureId: SEED.pictures.first });
		expect(joinEvent({ gid: null }).source).toEqual({ type: 'direct_chat', uid: SEED.users.alice._id });
	});
});
