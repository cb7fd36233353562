import type { NodeApiError } from 'n8n-workflow';

import { startSimulator } from '../../simulator';
import { SEED } from '../../simulator/seed';
import { runNode } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { byId, NODE, only, runKnowledge } from './knowledge.fixtures';

const base = SEED.knowledge.handbook;
const MISSING_BASE = 'a0000000-0000-4000-8000-00000000dead';
const MISSING_FILE = 'f0000000-0000-4000-8000-00000000dead';

const sim = useSimulator();

function upload(fileName: string, data: string | Buffer, mimeType: string) {
	return [
		{ resource: 'file', operation: 'upload', knowledgeBaseId: byId(base.id), binaryPropertyName: 'data' },
		{ inputItems: [{ json: {}, binary: { data: { data, fileName, mimeType } } }] },
	] as const;
}

describe('Workplace Knowledge: platform errors', () => {
	it('401: a wrong API key becomes a NodeApiError naming UnauthorizedException, without the key', async () => {
		sim.log.clear();
		const wrongKey = 'wrong-key-that-must-not-leak';
		const { error, items } = await runNode({
			nodeType: NODE,
			parameters: { resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: byId(base.id) },
			credentials: { workplaceKnowledgeApi: { knowledgeUrl: sim.knowledgeUrl, apiKey: wrongKey } },
		});
		const request = only(sim.log.all());
		expect(request.headers['x-api-key']).toBe(wrongKey);
		expect(request.status).toBe(401);
		expect(items).toHaveLength(0);
		expect(error?.constructor.name).toBe('NodeApiError');
		expect(error?.message).toMatch(/^UnauthorizedException: /);
		expect((error as NodeApiError).httpCode).toBe('401');
		expect((error as NodeApiError).description).toContain('Code: 401001');
		expect(JSON.stringify({ message: error?.message, description: (error as NodeApiError).description, context: (error as NodeApiError).context })).not.toContain(wrongKey);
	});

	it('404: a missing knowledge base names KnowledgeNotFoundError', async () => {
		const { error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'get',
			knowledgeBaseId: byId(MISSING_BASE),
		});
		expect(only(requests).status).toBe(404);
		expect(error?.message).toMatch(/^(KnowledgeNotFoundError|NotFoundException): /);
		expect((error as NodeApiError).httpCode).toBe('404');
		expect((error as NodeApiError).description).toContain('Code: 404001');
	});

	it('404: a missing file names KnowledgeFileNotFoundError', async () => {
		const { error, requests } = await runKnowledge(sim, {
			resource: 'file',
			operation: 'get',
			knowledgeBaseId: byId(base.id),
			fileId: byId(MISSING_FILE),
		});
		expect(only(requests).status).toBe(404);
		expect(error?.message).toMatch(/^KnowledgeFileNotFoundError: /);
		expect((error as NodeApiError).httpCode).toBe('404');
	});

	it('404: downloading a missing file reads the error out of the streamed body', async () => {
		const { error, requests } = await runKnowledge(sim, {
			resource: 'file',
			operation: 'download',
			knowledgeBaseId: byId(base.id),
			fileId: byId(MISSING_FILE),
			binaryPropertyName: 'data',
		});
		expect(only(requests).status).toBe(404);
		expect(error?.message).toMatch(/^KnowledgeFileNotFoundError: /);
	});

	it('400: an unsupported file type names UnsupportedKnowledgeFileTypeError', async () => {
		const { error, requests } = await runKnowledge(sim, ...upload('setup.exe', 'MZ\x90\x00', 'application/x-msdownload'));
		expect(only(requests).status).toBe(400);
		expect(error?.message).toMatch(/^UnsupportedKnowledgeFileTypeError: /);
		expect((error as NodeApiError).httpCode).toBe('400');
	});

	it('3xx: an upload is not followed to the new address nor sent twice, and the error says where it was sent', async () => {
		const moved = `${sim.knowledgeUrl}/knowledge/${base.id}/files-moved`;
		sim.faults.add({ method: 'POST', path: `/api/v1/knowledge/${base.id}/files`, status: 307, headers: { location: moved } });
		const before = sim.state.knowledgeFiles(base.id).length;
		const { error, requests } = await runKnowledge(sim, ...upload('notes.txt', 'some notes', 'text/plain'));
		const request = only(requests);
		expect(`${request.method} ${request.path} ${request.status}`).toBe(`POST /api/v1/knowledge/${base.id}/files 307`);
		expect(request.multipart?.files.map((f) => `${f.field} ${f.filename} ${f.size}`)).toEqual(['file notes.txt 10']);
		expect(error?.constructor.name).toBe('NodeApiError');
		expect((error as NodeApiError).httpCode).toBe('307');
		expect((error as NodeApiError).description).toContain(`The platform redirected the file upload to ${moved}; a file is not sent a second time.`);
		expect(sim.state.knowledgeFiles(base.id)).toHaveLength(before);
	});

	it('400: a malformed CSV names UnsupportCsvKnowledgeFileFormatError', async () => {
		const { error, requests } = await runKnowledge(sim, ...upload('broken.csv', 'a,b,c\n1,2\n3,4,5,6\n', 'text/csv'));
		expect(only(requests).status).toBe(400);
		expect(error?.message).toMatch(/^UnsupportCsvKnowledgeFileFormatError: /);
	});

	it('413: an upload over the size limit fails with the 413 and is not retried', async () => {
		const small = await startSimulator({ port: 0, maxUploadBytes: 1024 });
		try {
			const { error, requests } = await runKnowledge(small, ...upload('big.txt', Buffer.alloc(4096, 'a'), 'text/plain'));
			expect(only(requests).status).toBe(413);
			expect((error as NodeApiError).httpCode).toBe('413');
			expect(error?.message).toMatch(/413|too large/i);
		} finally {
			await small.close();
		}
	});

	it('422: a validation error lists every failing field in the message', async () => {
		const { error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'create',
			name: 'Valid name',
			additionalFields: { additionalJson: '{"description": 42}' },
		});
		expect(only(requests).status).toBe(422);
		expect(error?.message).toMatch(/^UnprocessableEntityException: .*\[description: [^\]]+\]$/);
		expect((error as NodeApiError).description).toContain('Field "description"');
		expect((error as NodeApiError).description).toContain('(value: 42)');
	});
});

describe('Workplace Knowledge: retries', () => {
	it('429: waits for Retry-After and succeeds on the third attempt', async () => {
		sim.faults.add({ method: 'GET', path: `/api/v1/knowledge/${base.id}`, status: 429, retryAfter: 1, times: 2 });
		const started = Date.now();
		const { items, error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'get',
			knowledgeBaseId: byId(base.id),
		});
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([429, 429, 200]);
		// Two waits of Retry-After: 1 s each (a correctness check of the wait, not a speed measurement).
		expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
		expect(items[0].json.id).toBe(base.id);
	});

	it('429: a create is retried after 429 too, since the platform did not process it', async () => {
		sim.faults.add({ method: 'POST', path: '/api/v1/knowledge', status: 429, retryAfter: 0, times: 1 });
		const { items, requests } = await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'create', name: 'After throttle' });
		expect(requests.map((r) => r.status)).toEqual([429, 201]);
		expect(sim.state.knowledgeBases().filter((kb) => kb.name === 'After throttle')).toHaveLength(1);
		expect(items[0].json.name).toBe('After throttle');
	});

	it('429: gives up after Max Rate Limit Retries with RateLimitExceededException', async () => {
		sim.faults.add({ method: 'GET', path: '/api/v1/knowledge', status: 429, retryAfter: 0, times: Infinity });
		const { error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'getAll',
			returnAll: true,
			requestOptions: { maxRateLimitRetries: 2 },
		});
		expect(requests.map((r) => r.status)).toEqual([429, 429, 429]);
		expect(error?.message).toMatch(/^RateLimitExceededException: /);
		expect((error as NodeApiError).httpCode).toBe('429');
	});

	it('429: a Retry-After longer than Max Retry Wait fails at once instead of stalling', async () => {
		sim.faults.add({ method: 'GET', status: 429, retryAfter: 3600, times: 1 });
		const { error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'get',
			knowledgeBaseId: byId(base.id),
			requestOptions: { maxRetryWaitSeconds: 5 },
		});
		expect(requests).toHaveLength(1);
		expect((error as NodeApiError).description).toContain('wait 3600 s');
	});

	it('503: a read is retried, a create is not (it may have reached the platform)', async () => {
		sim.faults.add({ method: 'GET', status: 503, times: 1 });
		const read = await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: byId(base.id) });
		expect(read.requests.map((r) => r.status)).toEqual([503, 200]);
		expect(read.error).toBeUndefined();

		sim.faults.add({ method: 'POST', status: 503, times: 1 });
		const create = await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'create', name: 'Only once' });
		expect(create.requests.map((r) => r.status)).toEqual([503]);
		expect((create.error as NodeApiError).httpCode).toBe('503');
	});

	it('a connection reset during an upload is not retried; during a download it is', async () => {
		sim.faults.add({ method: 'POST', path: `/api/v1/knowledge/${base.id}/files`, reset: true, times: 1 });
		const uploaded = await runKnowledge(sim, ...upload('notes.txt', 'some notes', 'text/plain'));
		expect(uploaded.requests).toHaveLength(1);
		expect(uploaded.error?.message).toMatch(/^Could not reach the Workplace API/);

		const fileId = base.files.policy;
		sim.faults.add({ method: 'GET', path: `/api/v1/knowledge/${base.id}/files/${fileId}/download`, reset: true, times: 1 });
		const downloaded = await runKnowledge(sim, {
			resource: 'file',
			operation: 'download',
			knowledgeBaseId: byId(base.id),
			fileId: byId(fileId),
			binaryPropertyName: 'data',
		});
		expect(downloaded.error).toBeUndefined();
		expect(downloaded.requests).toHaveLength(2);
	});
});

describe('Workplace Knowledge: input checks and Continue On Fail', () => {
	it('names the item, the field, the rule and the value, and sends nothing', async () => {
		const { error, requests } = await runKnowledge(
			sim,
			{ resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: byId('={{ $json.id }}') },
			{ inputItems: [{ json: { id: base.id } }, { json: { id: 'bad/id' } }] },
		);
		// Item 0 went out before item 1 was read; item 1 sent nothing.
		expect(requests.map((r) => r.path)).toEqual([`/api/v1/knowledge/${base.id}`]);
		expect(error?.message).toBe('Item 1: "Knowledge Base" must be an ID without spaces, "/", "?" or "#", got "bad/id"');
	});

	it('rejects Additional Fields (JSON) that is not an object', async () => {
		const { error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'create',
			name: 'x',
			additionalFields: { additionalJson: '[1, 2]' },
		});
		expect(requests).toHaveLength(0);
		expect(error?.message).toBe('Item 0: "Additional Fields (JSON)" must be a JSON object like {"key": "value"}, got "[1, 2]"');
	});

	it('with Continue On Fail, a failing item becomes an error item and the others go on, all paired', async () => {
		const { items, error, requests } = await runKnowledge(
			sim,
			{ resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: byId('={{ $json.id }}') },
			{
				continueOnFail: true,
				inputItems: [{ json: { id: base.id } }, { json: { id: MISSING_BASE } }, { json: { id: '' } }, { json: { id: SEED.knowledge.faq.id } }],
			},
		);
		expect(error).toBeUndefined();
		expect(requests).toHaveLength(3);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(items[0].json.id).toBe(base.id);
		expect(items[1].json).toMatchObject({ httpCode: '404', platformError: { status: 404, code: 404001 } });
		expect(String(items[1].json.error)).toMatch(/^(KnowledgeNotFoundError|NotFoundException): /);
		expect(items[2].json.error).toBe('Item 2: "Knowledge Base" must not be empty, got an empty string');
		expect(items[3].json.id).toBe(SEED.knowledge.faq.id);
		expect(JSON.stringify(items)).not.toContain(sim.credentials.knowledgeApiKey);
	});
});
