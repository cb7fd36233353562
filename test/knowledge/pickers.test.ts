import { SEED } from '../../simulator/seed';
import { runListSearch, testCredential } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { byId, fromList, knowledgeCredentials, NODE, runKnowledge } from './knowledge.fixtures';

const sim = useSimulator();

function search(method: string, parameters: Record<string, unknown>, filter?: string, paginationToken?: string) {
	sim.log.clear();
	return runListSearch({
		nodeType: NODE,
		method,
		parameters: parameters as never,
		credentials: knowledgeCredentials(sim),
		filter,
		paginationToken,
	});
}

describe('Workplace Knowledge: From List pickers', () => {
	it('lists knowledge bases by name, filtered, through the list endpoint', async () => {
		const all = await search('searchKnowledgeBases', { resource: 'knowledgeBase', operation: 'get' });
		expect(all.results).toEqual([
			{ name: SEED.knowledge.handbook.name, value: SEED.knowledge.handbook.id },
			{ name: SEED.knowledge.faq.name, value: SEED.knowledge.faq.id },
			{ name: SEED.knowledge.empty.name, value: SEED.knowledge.empty.id },
		]);
		expect(all.paginationToken).toBeUndefined();
		const [request] = sim.log.all();
		expect([request.method, request.path, request.query, request.headers['x-api-key']]).toEqual([
			'GET',
			'/api/v1/knowledge',
			{ page: '1', pageSize: '50' },
			sim.credentials.knowledgeApiKey,
		]);

		const filtered = await search('searchKnowledgeBases', {}, 'faq');
		expect(filtered.results).toEqual([{ name: SEED.knowledge.faq.name, value: SEED.knowledge.faq.id }]);
	});

	it('pages through long lists with a pagination token', async () => {
		for (let n = 0; n < 60; n++) sim.state.addKnowledgeBase({ name: `Base ${n}` });
		const first = await search('searchKnowledgeBases', {});
		expect(first.results).toHaveLength(50);
		// the next page and how many records came before it
		expect(first.paginationToken).toBe('2:50');
		const second = await search('searchKnowledgeBases', {}, undefined, first.paginationToken as string);
		expect(second.results).toHaveLength(13);
		expect(second.paginationToken).toBeUndefined();
		expect(sim.log.all()[0].query).toEqual({ page: '2', pageSize: '50' });
	});

	describe('one way to page: the picker pages as Get Many does, on a platform that caps its pages', () => {
		// 45 knowledge bases; the platform answers at most 20 per page, whatever page size is asked for.
		const records = Array.from({ length: 45 }, (_, n) => ({ id: `kb-capped-${n}`, name: `Capped ${n}` }));
		const ids = records.map((r) => r.id);
		const serve = (withTotal: boolean) => {
			for (let page = 1; page <= 3; page++) {
				const data = records.slice((page - 1) * 20, page * 20);
				sim.faults.add({ method: 'GET', path: '/api/v1/knowledge', status: 200, body: withTotal ? { data, total: 45 } : { data } });
			}
		};
		const asked = (pageSize: string, pages: number) => Array.from({ length: pages }, (_, n) => ({ page: String(n + 1), pageSize }));

		async function pickAll(): Promise<{ values: string[]; queries: unknown[] }> {
			const values: string[] = [];
			const queries: unknown[] = [];
			let token: string | undefined;
			do {
				const page = await search('searchKnowledgeBases', {}, undefined, token);
				values.push(...page.results.map((r) => String(r.value)));
				queries.push(...sim.log.all().map((r) => r.query));
				token = page.paginationToken as string | undefined;
			} while (token);
			return { values, queries };
		}

		it('short pages with `total`: both read on until `total` records came', async () => {
			serve(true);
			const picked = await pickAll();
			expect(picked.values).toEqual(ids);
			expect(picked.queries).toEqual(asked('50', 3));

			serve(true);
			const { items, requests } = await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'getAll', returnAll: true });
			expect(items.map((i) => i.json.id)).toEqual(ids);
			expect(requests.map((r) => r.query)).toEqual(asked('50', 3));
		});

		it('without `total`, a page shorter than asked ends the list for both', async () => {
			serve(false);
			const picked = await pickAll();
			expect(picked.values).toEqual(ids.slice(0, 20));
			expect(picked.queries).toEqual(asked('50', 1));

			sim.faults.clear();
			serve(false);
			const { items, requests } = await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'getAll', returnAll: true });
			expect(items.map((i) => i.json.id)).toEqual(ids.slice(0, 20));
			expect(requests.map((r) => r.query)).toEqual(asked('50', 1));
		});
	});

	it('lists the files of the knowledge base chosen in the node, whichever mode picked it', async () => {
		const faq = SEED.knowledge.faq;
		for (const knowledgeBaseId of [byId(faq.id), fromList(faq.id)]) {
			const files = await search('searchFiles', { resource: 'file', operation: 'download', knowledgeBaseId });
			expect(files.results.map((r) => r.value).sort()).toEqual([faq.files.faq, faq.files.overview].sort());
			expect(files.results.map((r) => r.name)).toContain('Überblick – Produkt.pdf');
			expect(sim.log.all()[0].path).toBe(`/api/v1/knowledge/${faq.id}/files`);
		}
	});

	it('lists no files and sends nothing until a knowledge base is chosen', async () => {
		const files = await search('searchFiles', { resource: 'file', operation: 'get', knowledgeBaseId: byId('') });
		expect(files.results).toEqual([]);
		expect(sim.log.all()).toHaveLength(0);
	});
});

describe('Workplace Knowledge API credential', () => {
	it('tests the key with a one-record list, and reports a wrong key', async () => {
		sim.log.clear();
		const ok = await testCredential('workplaceKnowledgeApi', knowledgeCredentials(sim).workplaceKnowledgeApi);
		expect(ok.status).toBe('OK');
		const [request] = sim.log.all();
		expect([request.method, request.path, request.query]).toEqual(['GET', '/api/v1/knowledge', { page: '1', pageSize: '1' }]);

		const bad = await testCredential('workplaceKnowledgeApi', knowledgeCredentials(sim, 'wrong').workplaceKnowledgeApi);
		expect(bad.status).toBe('Error');
		expect(bad.message).toMatch(/^The knowledge API rejected the API key \(HTTP 401 from GET .*\/api\/v1\/knowledge\): check the "API Key" field\./);
		expect(sim.log.all().map((r) => r.status)).toEqual([200, 401]);
	});
});
