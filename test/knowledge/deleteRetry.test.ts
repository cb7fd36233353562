import type { NodeApiError } from 'n8n-workflow';

import type { LoggedRequest } from '../../simulator';
import { SEED } from '../../simulator/seed';
import { useSimulator } from '../helpers/simulator';
import { byId, only, runKnowledge } from './knowledge.fixtures';

const sim = useSimulator();

const base = SEED.knowledge.handbook;
const MISSING_BASE = 'a0000000-0000-4000-8000-00000000dead';
const MISSING_FILE = 'f0000000-0000-4000-8000-00000000dead';
const BASE_PATH = `/api/v1/knowledge/${SEED.knowledge.empty.id}`;
const FILE_PATH = `/api/v1/knowledge/${base.id}/files/${base.files.holidays}`;

const deleteBase = (id: string) => ({ resource: 'knowledgeBase', operation: 'delete', knowledgeBaseId: byId(id) });
const deleteFile = (fileId: string) => ({ resource: 'file', operation: 'delete', knowledgeBaseId: byId(base.id), fileId: byId(fileId) });

/** Method, path, status, key and body of each DELETE: the same call each time, without a body. */
function calls(requests: LoggedRequest[]) {
	return requests.map((r) => [r.method, r.path, r.status, r.headers['x-api-key'], r.bodySize]);
}

describe('Workplace Knowledge: a delete whose answer was lost, retried and answered 404', () => {
	it('Knowledge Base > Delete: 503 after the base was deleted, the retry gets 404: the item succeeds, saying it was retried and found gone', async () => {
		sim.faults.add({ method: 'DELETE', path: BASE_PATH, status: 503, afterHandler: true, times: 1 });
		const { error, items, requests } = await runKnowledge(sim, deleteBase(SEED.knowledge.empty.id));
		expect(error).toBeUndefined();
		const key = sim.credentials.knowledgeApiKey;
		expect(calls(requests)).toEqual([
			['DELETE', BASE_PATH, 503, key, 0],
			['DELETE', BASE_PATH, 404, key, 0],
		]);
		expect(items.map((i) => [i.json, i.pairedItem])).toEqual([
			[{ deleted: true, knowledgeBaseId: SEED.knowledge.empty.id, retried: true, alreadyGone: true }, { item: 0 }],
		]);
		expect(sim.state.knowledgeBase(SEED.knowledge.empty.id)).toBeUndefined();
	});

	it('Knowledge Base > Delete: a connection reset after the base was deleted, the retry gets 404: succeeds', async () => {
		sim.faults.add({ method: 'DELETE', path: BASE_PATH, reset: true, afterHandler: true, times: 1 });
		const { error, items, requests } = await runKnowledge(sim, deleteBase(SEED.knowledge.empty.id));
		expect(error).toBeUndefined();
		expect(requests.map((r) => [r.method, r.path, r.status])).toEqual([
			['DELETE', BASE_PATH, 0],
			['DELETE', BASE_PATH, 404],
		]);
		expect(items[0].json).toEqual({ deleted: true, knowledgeBaseId: SEED.knowledge.empty.id, retried: true, alreadyGone: true });
	});

	it('File > Delete: the platform deletes the file and goes silent, the attempt times out, the retry gets 404: succeeds', async () => {
		sim.faults.add({ method: 'DELETE', path: FILE_PATH, stall: true, afterHandler: true, times: 1 });
		const { error, items, requests } = await runKnowledge(sim, { ...deleteFile(base.files.holidays), requestOptions: { timeoutSeconds: 1 } });
		expect(error).toBeUndefined();
		const key = sim.credentials.knowledgeApiKey;
		expect(calls(requests)).toEqual([
			['DELETE', FILE_PATH, 0, key, 0],
			['DELETE', FILE_PATH, 404, key, 0],
		]);
		expect(items[0].json).toEqual({ deleted: true, knowledgeBaseId: base.id, fileId: base.files.holidays, retried: true, alreadyGone: true });
		expect(sim.state.knowledgeFile(base.id, base.files.holidays)).toBeUndefined();
	});

	it('a delete retried after a 503 that succeeds outputs what was deleted, as without the retry', async () => {
		sim.faults.add({ method: 'DELETE', path: FILE_PATH, status: 503, times: 1 });
		const { error, items, requests } = await runKnowledge(sim, deleteFile(base.files.holidays));
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([503, 204]);
		expect(items[0].json).toEqual({ deleted: true, knowledgeBaseId: base.id, fileId: base.files.holidays });
	});

	it('a 404 on the first attempt still fails with the platform\'s NodeApiError (base and file)', async () => {
		const missingBase = await runKnowledge(sim, deleteBase(MISSING_BASE));
		expect(only(missingBase.requests).status).toBe(404);
		expect(missingBase.error?.constructor.name).toBe('NodeApiError');
		expect((missingBase.error as NodeApiError).httpCode).toBe('404');
		expect(missingBase.error?.message).toMatch(/^(KnowledgeNotFoundError|NotFoundException): /);
		expect(missingBase.items).toHaveLength(0);

		const missingFile = await runKnowledge(sim, deleteFile(MISSING_FILE));
		expect(only(missingFile.requests).status).toBe(404);
		expect((missingFile.error as NodeApiError).httpCode).toBe('404');
		expect(missingFile.error?.message).toMatch(/^KnowledgeFileNotFoundError: /);
	});

	it('a 404 after a 429 still fails: the platform did not process the refused call', async () => {
		sim.faults.add({ method: 'DELETE', path: `/api/v1/knowledge/${MISSING_BASE}`, status: 429, retryAfter: 1, times: 1 });
		const { error, requests } = await runKnowledge(sim, deleteBase(MISSING_BASE));
		expect(requests.map((r) => r.status)).toEqual([429, 404]);
		expect((error as NodeApiError).httpCode).toBe('404');
	});
});
