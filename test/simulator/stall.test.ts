/**
 * Fault rules for time limits: `stall` (a request held, never answered), `responseBody` (an answer
 * sent slowly, or stalling after some bytes) and `requestBody` (an upload read slowly, or no more
 * read after some bytes). Driven with node:http, so the test decides when the client gives up.
 */
import { createHash } from 'node:crypto';
import * as http from 'node:http';

import { SEED, Simulator } from '../../simulator';
import { faultFromJson } from '../../simulator/control';
import { botToken, call, withSim } from './helpers';

const KB = SEED.knowledge.empty.id;

/** Waits until `check` holds (the simulator logs asynchronously), at most 5 s. */
async function until(check: () => boolean): Promise<void> {
	for (let waited = 0; !check(); waited += 10) {
		if (waited > 5000) throw new Error('condition not met within 5 s');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Exchange {
	request: http.ClientRequest;
	/** Settles with the response once its headers came. */
	response: Promise<http.IncomingMessage>;
	/** Body bytes received so far. */
	received: () => number;
	/** Resolves with the whole body when it ended. */
	body: Promise<Buffer>;
}

function send(url: string, options: http.RequestOptions, body?: Buffer | string): Exchange {
	const chunks: Buffer[] = [];
	let received = 0;
	let resolveBody: (b: Buffer) => void = () => {};
	const bodyPromise = new Promise<Buffer>((resolve) => (resolveBody = resolve));
	const request = http.request(url, options);
	const response = new Promise<http.IncomingMessage>((resolve, reject) => {
		request.on('response', (res) => {
			res.on('data', (c: Buffer) => {
				chunks.push(c);
				received += c.length;
			});
			res.on('end', () => resolveBody(Buffer.concat(chunks)));
			res.on('error', () => undefined);
			resolve(res);
		});
		request.on('error', reject);
	});
	response.catch(() => undefined);
	if (body !== undefined) request.end(body);
	else request.end();
	return { request, response, received: () => received, body: bodyPromise };
}

/** A multipart body with one file part. */
function multipart(content: Buffer, boundary = 'sim-stall-boundary'): { body: Buffer; type: string } {
	const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`;
	return { body: Buffer.concat([Buffer.from(head), content, Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

describe('simulator: stalls and slow bodies', () => {
	let sim: Simulator;
	let K: Record<string, string>;
	beforeAll(async () => {
		sim = await withSim();
		K = { 'x-api-key': sim.credentials.knowledgeApiKey };
	});
	afterAll(() => sim.close());
	beforeEach(() => {
		sim.state.reset();
		sim.faults.clear();
		sim.log.clear();
	});

	test('stall: a GET is held without an answer until the client goes away (logged with status 0)', async () => {
		const id = sim.faults.add({ method: 'GET', path: '/api/v1/knowledge', stall: true });
		const exchange = send(`${sim.knowledgeUrl}/knowledge`, { headers: K });
		let answered = false;
		void exchange.response.then(() => (answered = true), () => undefined);
		await sleep(300);
		expect(answered).toBe(false);
		expect(sim.log.all()).toHaveLength(1);
		exchange.request.destroy();
		await until(() => sim.log.all()[0].status === 0 && sim.log.all()[0].fault === id);
		// the next request is answered as usual
		expect((await call(`${sim.knowledgeUrl}/knowledge`, { headers: K })).status).toBe(200);
	});

	test('stall after the body (default): the POST is logged with its body and not processed; with afterHandler it is', async () => {
		sim.faults.add({ method: 'POST', path: '/api/v1/knowledge', stall: true });
		const first = send(`${sim.knowledgeUrl}/knowledge`, { method: 'POST', headers: { ...K, 'content-type': 'application/json' } }, JSON.stringify({ name: 'held' }));
		await until(() => sim.log.all()[0]?.body !== undefined);
		first.request.destroy();
		await until(() => sim.log.all()[0].status === 0);
		expect(sim.log.all()[0].body).toEqual({ name: 'held' });
		expect(sim.state.knowledgeBases().map((k) => k.name)).not.toContain('held');

		sim.faults.add({ method: 'POST', path: '/api/v1/knowledge', stall: true, afterHandler: true });
		const second = send(`${sim.knowledgeUrl}/knowledge`, { method: 'POST', headers: { ...K, 'content-type': 'application/json' } }, JSON.stringify({ name: 'processed' }));
		await until(() => sim.state.knowledgeBases().some((k) => k.name === 'processed'));
		await sleep(100);
		let answered = false;
		void second.response.then(() => (answered = true), () => undefined);
		await sleep(100);
		expect(answered).toBe(false);
		second.request.destroy();
		await until(() => sim.log.all()[1].status === 0);
	});

	test('responseBody: a download sent in pieces with pauses arrives whole', async () => {
		const content = Buffer.alloc(8 * 1024, 7);
		const file = sim.state.addKnowledgeFile(KB, { name: 'slow.bin', content, mimeType: 'application/octet-stream' });
		sim.faults.add({ method: 'GET', path: `/api/v1/knowledge/${KB}/files/${file.id}/download`, responseBody: { chunkBytes: 1024, delayMs: 30 } });
		const started = Date.now();
		const exchange = send(`${sim.knowledgeUrl}/knowledge/${KB}/files/${file.id}/download`, { headers: K });
		expect((await exchange.response).statusCode).toBe(200);
		expect((await exchange.body).equals(content)).toBe(true);
		// 8 pieces with a 30 ms pause after each
		expect(Date.now() - started).toBeGreaterThanOrEqual(200);
		expect(sim.log.all()[0].status).toBe(200);
	});

	test('responseBody.stallAfterBytes: headers and the first bytes, then nothing until the client goes away', async () => {
		const content = Buffer.alloc(64 * 1024, 1);
		const file = sim.state.addKnowledgeFile(KB, { name: 'stalls.bin', content, mimeType: 'application/octet-stream' });
		sim.faults.add({ method: 'GET', path: `/api/v1/knowledge/${KB}/files/${file.id}/download`, responseBody: { stallAfterBytes: 1000 } });
		const exchange = send(`${sim.knowledgeUrl}/knowledge/${KB}/files/${file.id}/download`, { headers: K });
		const response = await exchange.response;
		expect([response.statusCode, response.headers['content-length']]).toEqual([200, String(content.length)]);
		await until(() => exchange.received() === 1000);
		await sleep(300);
		expect(exchange.received()).toBe(1000);
		exchange.request.destroy();
		// an image too: headers alone (stallAfterBytes 0)
		sim.faults.add({ method: 'GET', path: `/file/image/${SEED.pictures.first}`, responseBody: { stallAfterBytes: 0 } });
		const image = send(`${sim.url}/file/image/${SEED.pictures.first}?size=small`, { headers: { authorization: `Bearer ${await botToken(sim)}` } });
		expect((await image.response).statusCode).toBe(200);
		await sleep(200);
		expect(image.received()).toBe(0);
		image.request.destroy();
	});

	test('requestBody: an upload read in pieces with pauses is stored whole', async () => {
		const content = Buffer.alloc(32 * 1024, 0x61);
		const { body, type } = multipart(content);
		sim.faults.add({ method: 'POST', path: `/api/v1/knowledge/${KB}/files`, requestBody: { chunkBytes: 4096, delayMs: 20 } });
		const started = Date.now();
		const exchange = send(`${sim.knowledgeUrl}/knowledge/${KB}/files`, { method: 'POST', headers: { ...K, 'content-type': type } }, body);
		expect((await exchange.response).statusCode).toBe(201);
		expect(Date.now() - started).toBeGreaterThanOrEqual(100);
		const [logged] = sim.log.all();
		expect(logged.multipart?.files[0]).toMatchObject({ size: content.length, sha256: createHash('sha256').update(content).digest('hex') });
	});

	test('requestBody.stallAfterBytes: nothing more is read; the client cannot finish sending; nothing stored', async () => {
		const content = Buffer.alloc(16 * 1024 * 1024, 0x62);
		const { body, type } = multipart(content);
		sim.faults.add({ method: 'POST', path: `/api/v1/knowledge/${KB}/files`, requestBody: { stallAfterBytes: 64 * 1024 } });
		const request = http.request(`${sim.knowledgeUrl}/knowledge/${KB}/files`, { method: 'POST', headers: { ...K, 'content-type': type, 'content-length': String(body.length) } });
		request.on('error', () => undefined);
		let finished = false;
		request.end(body, () => (finished = true));
		await sleep(500);
		expect(finished).toBe(false);
		request.destroy();
		await until(() => sim.log.all()[0]?.status === 0);
		expect(sim.log.all()[0].bodySize).toBeLessThanOrEqual(64 * 1024);
		expect(sim.state.knowledgeFiles(KB)).toHaveLength(0);
	});

	test('control API: stall and paces pass through; a bad pace is refused', async () => {
		expect(faultFromJson({ stall: true, responseBody: { chunkBytes: 10, delayMs: 5 }, requestBody: { stallAfterBytes: 0 } })).toEqual({
			stall: true,
			responseBody: { chunkBytes: 10, delayMs: 5 },
			requestBody: { stallAfterBytes: 0 },
		});
		const refused = await call(`${sim.controlUrl}/faults`, { json: { responseBody: { chunkBytes: 0 } } });
		expect(refused.status).toBe(400);
		expect(refused.text).toContain('responseBody.chunkBytes');
	});
});
