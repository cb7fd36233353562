/**
 * Every platform call has a time limit (Request Options > Timeout; nodes/shared/transport/timeLimit.ts).
 * The simulator holds requests (`stall`), or sends and reads bodies slowly or not at all
 * (`responseBody`, `requestBody`); the node runs with Timeout 1 s. Per action node a read held
 * once is tried again and succeeds, a create or send held is never sent again and fails its item
 * with an error naming method, path and limit. Transfers are limited by progress: a slow but
 * flowing download or upload goes through, a stalled one is cut off. The bot's token request is
 * limited too. No timing is asserted: only outcomes and the requests the simulator received.
 *
 *   npm run build && npx tsc -p tsconfig.tools.json && npx jest build/test/timeouts
 */
import { createHash } from 'crypto';
import type { IDataObject, INodeExecutionData, NodeApiError } from 'n8n-workflow';

import type { LoggedRequest } from '../../simulator';
import { SEED } from '../../simulator/seed';
import { runBot } from '../bot/bot.fixtures';
import { BASE, FORMS, runForm } from '../form/form.fixtures';
import { readBinary } from '../helpers/engine';
import { only, useSimulator } from '../helpers/simulator';
import { byId, runKnowledge } from '../knowledge/knowledge.fixtures';
import { runTask, TASKS } from '../task/task.fixtures';

const sim = useSimulator({ latencyMs: 0 });

/** Timeout 1 s: a held request runs out of time quickly. */
const ONE_SECOND = { timeoutSeconds: 1 };
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const lines = (requests: LoggedRequest[]) => requests.map((r) => `${r.method} ${r.path} ${r.status}`);

function errorJson(items: INodeExecutionData[]): IDataObject {
	expect(items).toHaveLength(1);
	expect(items[0].pairedItem).toEqual({ item: 0 });
	return items[0].json;
}

const handbook = SEED.knowledge.handbook;
const emptyBase = SEED.knowledge.empty.id;
const { alice } = SEED.users;
const DIRECT = '/bot/v1/direct/message';

describe('Workplace Knowledge: time limits', () => {
	it('a read held longer than the limit is tried again and succeeds', async () => {
		const path = `/api/v1/knowledge/${handbook.id}`;
		sim.faults.add({ method: 'GET', path, stall: true });
		const { items, error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'get',
			knowledgeBaseId: byId(handbook.id),
			requestOptions: ONE_SECOND,
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ id: handbook.id, name: handbook.name });
		expect(lines(requests)).toEqual([`GET ${path} 0`, `GET ${path} 200`]);
	});

	it('a read held on every attempt fails after Max Server Error Retries with method, path and limit', async () => {
		const path = `/api/v1/knowledge/${handbook.id}`;
		sim.faults.add({ method: 'GET', path, stall: true, times: Infinity });
		const { error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'get',
			knowledgeBaseId: byId(handbook.id),
			requestOptions: { ...ONE_SECOND, maxServerErrorRetries: 1 },
		});
		expect(error?.constructor.name).toBe('NodeApiError');
		expect(error?.message).toBe(`GET ${path} timed out after 1 s without an answer (2 attempts)`);
		expect((error as NodeApiError).description).toContain('"Timeout" in the node\'s Request Options (1 s)');
		expect(lines(requests)).toEqual([`GET ${path} 0`, `GET ${path} 0`]);
	});

	it('Return All: a page held once is fetched again, every record comes once', async () => {
		for (let i = 0; i < 5; i++) sim.state.addKnowledgeBase({ name: `Paged ${i}` });
		sim.faults.add({ method: 'GET', path: '/api/v1/knowledge', stall: true, times: 1 });
		const { items, error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'getAll',
			returnAll: true,
			requestOptions: ONE_SECOND,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(sim.state.knowledgeBases().length);
		expect(requests.map((r) => r.status)).toEqual([0, ...requests.slice(1).map(() => 200)]);
	});

	it('a create held longer than the limit is not sent again: its error item says it may have reached the platform', async () => {
		// The platform creates the base, then never answers.
		sim.faults.add({ method: 'POST', path: '/api/v1/knowledge', stall: true, afterHandler: true });
		const { items, error, requests } = await runKnowledge(
			sim,
			{ resource: 'knowledgeBase', operation: 'create', name: 'Held create', requestOptions: ONE_SECOND },
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		const json = errorJson(items);
		expect(json.error).toBe(
			'POST /api/v1/knowledge timed out after 1 s without an answer; it may have reached the platform, so it was not sent again',
		);
		expect(json.description).toContain('never sent a second time');
		expect(json.httpCode).toBe('ETIMEDOUT');
		expect(lines(requests)).toEqual(['POST /api/v1/knowledge 0']);
		expect(sim.state.knowledgeBases().filter((k) => k.name === 'Held create')).toHaveLength(1);
	});

	describe('downloads: limited by progress', () => {
		const content = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => i % 251));
		const download = (fileId: string) => ({
			resource: 'file',
			operation: 'download',
			knowledgeBaseId: byId(emptyBase),
			fileId: byId(fileId),
			binaryPropertyName: 'data',
			requestOptions: ONE_SECOND,
		});

		it('a slow but flowing download (longer than the limit in total) is not cut off', async () => {
			const file = sim.state.addKnowledgeFile(emptyBase, { name: 'slow.txt', content, mimeType: 'text/plain' });
			const path = `/api/v1/knowledge/${emptyBase}/files/${file.id}/download`;
			// 8 pieces, 300 ms apart: about 2.4 s in all, never 1 s without a byte
			sim.faults.add({ method: 'GET', path, responseBody: { chunkBytes: 8 * 1024, delayMs: 300 } });
			const { items, error, requests } = await runKnowledge(sim, download(file.id));
			expect(error).toBeUndefined();
			expect(sha256(await readBinary(items[0], 'data'))).toBe(sha256(content));
			expect(lines(requests)).toEqual([`GET ${path} 200`]);
		});

		it('a download that stalls after its first bytes is cut off by the limit, in both binary modes', async () => {
			for (const binaryMode of ['filesystem', 'default'] as const) {
				const file = sim.state.addKnowledgeFile(emptyBase, { name: `stalls-${binaryMode}.txt`, content, mimeType: 'text/plain' });
				const path = `/api/v1/knowledge/${emptyBase}/files/${file.id}/download`;
				sim.faults.add({ method: 'GET', path, responseBody: { stallAfterBytes: 16 * 1024 } });
				const { items, error, requests } = await runKnowledge(sim, download(file.id), { continueOnFail: true, binaryMode });
				expect(error).toBeUndefined();
				const json = errorJson(items);
				expect(json.error).toBe(`GET ${path}: the download got no data for 1 s and was cut off after 16384 bytes`);
				expect(json.description).toContain('not tried again');
				expect(lines(requests)).toEqual([`GET ${path} 200`]);
			}
		});

		it('a download whose answer never starts is tried again (a GET)', async () => {
			const file = sim.state.addKnowledgeFile(emptyBase, { name: 'late.txt', content, mimeType: 'text/plain' });
			const path = `/api/v1/knowledge/${emptyBase}/files/${file.id}/download`;
			sim.faults.add({ method: 'GET', path, stall: true });
			const { items, error, requests } = await runKnowledge(sim, download(file.id));
			expect(error).toBeUndefined();
			expect(sha256(await readBinary(items[0], 'data'))).toBe(sha256(content));
			expect(lines(requests)).toEqual([`GET ${path} 0`, `GET ${path} 200`]);
		});
	});

	describe('uploads: limited by progress', () => {
		const FILES = `/api/v1/knowledge/${emptyBase}/files`;
		const upload = (data: Buffer) => ({
			parameters: { resource: 'file', operation: 'upload', knowledgeBaseId: byId(emptyBase), binaryPropertyName: 'data', requestOptions: ONE_SECOND },
			inputItems: [{ json: {}, binary: { data: { data, fileName: 'upload.txt', mimeType: 'text/plain' } } }],
		});

		it('a slow but flowing upload (longer than the limit in total) goes through (file streamed from the binary store)', async () => {
			// Progress is what the socket takes: the last bytes wait in the socket buffers (about 4 MiB
			// on loopback) until the platform reads them, so it reads fast enough to empty them well
			// within the limit (2 s here), and the file is large enough to take longer than it in all.
			const data = Buffer.alloc(24 * 1024 * 1024, 0x61);
			// 128 KiB every 16 ms: about 3 s in all
			sim.faults.add({ method: 'POST', path: FILES, requestBody: { chunkBytes: 128 * 1024, delayMs: 16 } });
			const { parameters, inputItems } = upload(data);
			parameters.requestOptions = { timeoutSeconds: 2 };
			const { items, error, requests } = await runKnowledge(sim, parameters, { inputItems, binaryMode: 'filesystem' });
			expect(error).toBeUndefined();
			expect(items[0].json).toMatchObject({ name: 'upload.txt', size: data.length });
			expect(lines(requests)).toEqual([`POST ${FILES} 201`]);
			expect(only(requests).multipart?.files[0]).toMatchObject({ size: data.length, sha256: sha256(data) });
		});

		it('an upload the platform stops reading is cut off by the limit and not sent again (file held in memory)', async () => {
			// 16 MiB: far more than the socket buffers take once the platform stops reading after 64 KiB
			const data = Buffer.alloc(16 * 1024 * 1024, 0x62);
			sim.faults.add({ method: 'POST', path: FILES, requestBody: { stallAfterBytes: 64 * 1024 } });
			const { parameters, inputItems } = upload(data);
			const { items, error, requests } = await runKnowledge(sim, parameters, { inputItems, continueOnFail: true, binaryMode: 'default' });
			expect(error).toBeUndefined();
			expect(errorJson(items).error).toBe(
				`POST ${FILES}: the upload made no progress for 1 s; it may have reached the platform, so it was not sent again`,
			);
			expect(lines(requests)).toEqual([`POST ${FILES} 0`]);
			expect(sim.state.knowledgeFiles(emptyBase)).toHaveLength(0);
		});
	});
});

describe('Workplace Bot: time limits', () => {
	it('a user lookup (a read) held longer than the limit is tried again and succeeds', async () => {
		sim.faults.add({ method: 'GET', path: '/bot/v1/users', stall: true });
		const { items, error, requests } = await runBot(sim, {
			resource: 'user',
			operation: 'getByUsername',
			username: 'alice',
			requestOptions: ONE_SECOND,
		});
		expect(error).toBeUndefined();
		expect(JSON.stringify(items[0].json)).toContain(alice._id);
		expect(lines(requests)).toEqual(['GET /bot/v1/users 0', 'GET /bot/v1/users 200']);
	});

	it('User By Username: the lookup before a send is limited and tried again; the message goes once', async () => {
		sim.faults.add({ method: 'GET', path: '/bot/v1/users', stall: true });
		const { error, requests } = await runBot(sim, {
			resource: 'directMessage',
			operation: 'sendText',
			userId: { __rl: true, mode: 'username', value: 'alice' },
			text: 'After a held lookup',
			requestOptions: ONE_SECOND,
		});
		expect(error).toBeUndefined();
		expect(lines(requests)).toEqual(['GET /bot/v1/users 0', 'GET /bot/v1/users 200', `POST ${DIRECT} 201`]);
		expect(sim.state.sentMessages()).toHaveLength(1);
	});

	it('a send held longer than the limit is not sent again: Continue On Fail gives its error item', async () => {
		// The platform delivers the message, then never answers.
		sim.faults.add({ method: 'POST', path: DIRECT, stall: true, afterHandler: true });
		const { items, error, requests } = await runBot(
			sim,
			{ resource: 'directMessage', operation: 'sendText', userId: { __rl: true, mode: 'id', value: alice._id }, text: 'Held send', requestOptions: ONE_SECOND },
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(errorJson(items).error).toBe(
			`POST ${DIRECT} timed out after 1 s without an answer; it may have reached the platform, so it was not sent again`,
		);
		expect(lines(requests)).toEqual([`POST ${DIRECT} 0`]);
		expect(sim.state.sentMessages().map((m) => (m.content as IDataObject).text)).toEqual(['Held send']);
	});

	it('without Continue On Fail the held send fails the node with a NodeApiError', async () => {
		sim.faults.add({ method: 'POST', path: DIRECT, stall: true });
		const { error, requests } = await runBot(sim, {
			resource: 'directMessage',
			operation: 'sendText',
			userId: { __rl: true, mode: 'id', value: alice._id },
			text: 'Held, not processed',
			requestOptions: ONE_SECOND,
		});
		expect(error?.constructor.name).toBe('NodeApiError');
		expect(error?.message).toMatch(new RegExp(`^POST ${DIRECT} timed out after 1 s without an answer; it may have reached the platform`));
		expect(lines(requests)).toEqual([`POST ${DIRECT} 0`]);
		expect(sim.state.sentMessages()).toHaveLength(0);
	});

	it('a token request held longer than the limit is made again (nothing was sent with it); the send goes once', async () => {
		sim.faults.add({ method: 'POST', path: '/oauth/token', stall: true });
		const { error, requests, tokenRequests } = await runBot(sim, {
			resource: 'directMessage',
			operation: 'sendText',
			userId: { __rl: true, mode: 'id', value: alice._id },
			text: 'After a held token request',
			requestOptions: ONE_SECOND,
		});
		expect(error).toBeUndefined();
		expect(tokenRequests.map((r) => r.status)).toEqual([0, 200]);
		expect(lines(requests)).toEqual([`POST ${DIRECT} 201`]);
	});

	it('a token request held on every attempt fails the item naming the token request and the limit; nothing is sent', async () => {
		sim.faults.add({ method: 'POST', path: '/oauth/token', stall: true, times: Infinity });
		const { error, requests, tokenRequests } = await runBot(sim, {
			resource: 'directMessage',
			operation: 'sendText',
			userId: { __rl: true, mode: 'id', value: alice._id },
			text: 'Never sent',
			requestOptions: { ...ONE_SECOND, maxServerErrorRetries: 0 },
		});
		expect(error?.message).toBe(
			`POST ${sim.url}/oauth/token (the bot's access token request) timed out after 1 s without an answer. Nothing was sent with the token yet.`,
		);
		expect(tokenRequests.map((r) => r.status)).toEqual([0]);
		expect(requests).toHaveLength(0);
	});

	it('a stalled upload that fetched the bot token does not hold the other items: they get the token and go on', async () => {
		// Item 0 fetches the token (the process holds none) and its group picture stalls; item 1
		// waits for that token, and gets it when item 0 runs out of time.
		sim.faults.add({ method: 'POST', path: '/bot/v1/groups', requestBody: { stallAfterBytes: 64 * 1024 } });
		const picture = Buffer.alloc(16 * 1024 * 1024, 0x63);
		const { items, error, requests, tokenRequests } = await runBot(
			sim,
			{
				resource: 'group',
				operation: 'create',
				name: '={{ $json.name }}',
				memberIds: alice._id,
				options: { pictureBinaryPropertyName: 'picture' },
				requestOptions: ONE_SECOND,
			},
			{
				continueOnFail: true,
				binaryMode: 'default',
				inputItems: [
					{ json: { name: 'Stalled picture' }, binary: { picture: { data: picture, fileName: 'big.png', mimeType: 'image/png' } } },
					{ json: { name: 'Small picture' }, binary: { picture: { data: Buffer.from('tiny'), fileName: 'tiny.png', mimeType: 'image/png' } } },
				],
			},
		);
		expect(error).toBeUndefined();
		expect(tokenRequests.map((r) => r.status)).toEqual([200]);
		expect(items.map((i) => i.json.error ?? (i.json.group as IDataObject).name)).toEqual([
			'POST /bot/v1/groups: the upload made no progress for 1 s; it may have reached the platform, so it was not sent again',
			'Small picture',
		]);
		expect(lines(requests)).toEqual(['POST /bot/v1/groups 0', 'POST /bot/v1/groups 201']);
	});

	it('Image > Download: a picture whose body stalls is cut off by the limit', async () => {
		const path = `/file/image/${SEED.pictures.first}`;
		sim.faults.add({ method: 'GET', path, responseBody: { stallAfterBytes: 10 } });
		const { items, error, requests } = await runBot(
			sim,
			{ resource: 'image', operation: 'download', pictureId: SEED.pictures.first, size: 'large', binaryPropertyName: 'photo', requestOptions: ONE_SECOND },
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(errorJson(items).error).toBe(`GET ${path}: the download got no data for 1 s and was cut off after 10 bytes`);
		expect(lines(requests)).toEqual([`GET ${path} 200`]);
	});
});

describe('Workplace Form: time limits (create is its only operation)', () => {
	it('a create held longer than the limit is not sent again; the form exists once', async () => {
		sim.faults.add({ method: 'POST', path: FORMS, stall: true, afterHandler: true });
		const before = sim.state.forms().length;
		const { items, error, requests } = await runForm(sim, { ...BASE, requestOptions: ONE_SECOND }, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(errorJson(items).error).toBe(
			`POST ${FORMS} timed out after 1 s without an answer; it may have reached the platform, so it was not sent again`,
		);
		expect(lines(requests)).toEqual([`POST ${FORMS} 0`]);
		expect(sim.state.forms()).toHaveLength(before + 1);
	});
});

describe('Workplace Task: time limits (create is its only operation)', () => {
	it('a create held longer than the limit is not sent again; the task exists once', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, stall: true, afterHandler: true });
		const { items, error, requests } = await runTask(sim, { taskTitle: 'Held task', requestOptions: ONE_SECOND }, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(errorJson(items).error).toBe(
			`POST ${TASKS} timed out after 1 s without an answer; it may have reached the platform, so it was not sent again`,
		);
		expect(lines(requests)).toEqual([`POST ${TASKS} 0`]);
		expect(sim.state.tasks().filter((t) => t.taskTitle === 'Held task')).toHaveLength(1);
	});

	it('a create the user says may be repeated (Idempotency-Key honoured) is sent again with the same key: one task', async () => {
		sim.faults.add({ method: 'POST', path: TASKS, stall: true, afterHandler: true });
		const { items, error, requests } = await runTask(sim, {
			taskTitle: 'Retried task',
			options: { retryWithIdempotencyKey: true },
			requestOptions: ONE_SECOND,
		});
		expect(error).toBeUndefined();
		expect(lines(requests)).toEqual([`POST ${TASKS} 0`, `POST ${TASKS} 201`]);
		expect(requests[1].headers['idempotency-key']).toBe(requests[0].headers['idempotency-key']);
		const stored = sim.state.tasks().filter((t) => t.taskTitle === 'Retried task');
		expect(stored).toHaveLength(1);
		expect(items[0].json.id).toBe(stored[0].id);
	});
});
