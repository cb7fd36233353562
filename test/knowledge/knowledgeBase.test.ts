import { SEED } from '../../simulator/seed';
import { useSimulator } from '../helpers/simulator';
import { byId, fromList, only, runKnowledge } from './knowledge.fixtures';

const sim = useSimulator();

describe('Workplace Knowledge: knowledge base', () => {
	it('creates a knowledge base with name, description and Additional Fields (JSON)', async () => {
		const { items, error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'create',
			name: 'Sales Playbook',
			additionalFields: {
				description: 'How we sell',
				additionalJson: '{"metadata": {"language": "en"}, "name": "ignored: the Name field wins"}',
			},
		});
		expect(error).toBeUndefined();
		const request = only(requests);
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/api/v1/knowledge');
		expect(request.headers['x-api-key']).toBe(sim.credentials.knowledgeApiKey);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.body).toEqual({ name: 'Sales Playbook', description: 'How we sell', metadata: { language: 'en' } });
		expect(request.status).toBe(201);

		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ name: 'Sales Playbook', description: 'How we sell' });
		expect(items[0].json.id).toEqual(expect.any(String));
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	it('gets a knowledge base picked from the list or by ID, one request per item', async () => {
		const { items, requests } = await runKnowledge(
			sim,
			{ resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: '={{ $json.pick }}' },
			{ inputItems: [{ json: { pick: SEED.knowledge.handbook.id } }, { json: { pick: SEED.knowledge.faq.id } }] },
		);
		expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /api/v1/knowledge/${SEED.knowledge.handbook.id}`,
			`GET /api/v1/knowledge/${SEED.knowledge.faq.id}`,
		]);
		expect(items.map((i) => i.json.name)).toEqual([SEED.knowledge.handbook.name, SEED.knowledge.faq.name]);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);

		const listed = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'get',
			knowledgeBaseId: fromList(SEED.knowledge.faq.id),
		});
		expect(only(listed.requests).path).toBe(`/api/v1/knowledge/${SEED.knowledge.faq.id}`);
		expect(listed.items[0].json.id).toBe(SEED.knowledge.faq.id);
	});

	it('gets all knowledge bases page by page until total is reached', async () => {
		for (let n = 1; n <= 5; n++) {
			await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'create', name: `Base ${n}` });
		}
		const { items, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'getAll',
			returnAll: true,
			options: { pageSize: 3 },
		});
		// 3 seeded + 5 created = 8 records: pages of 3, 3, 2.
		expect(requests.map((r) => [r.method, r.path, r.query])).toEqual([
			['GET', '/api/v1/knowledge', { page: '1', pageSize: '3' }],
			['GET', '/api/v1/knowledge', { page: '2', pageSize: '3' }],
			['GET', '/api/v1/knowledge', { page: '3', pageSize: '3' }],
		]);
		expect(items).toHaveLength(8);
		expect(new Set(items.map((i) => i.json.id)).size).toBe(8);
		expect(items.every((i) => (i.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('gets many knowledge bases up to a limit and stops asking once it has them', async () => {
		for (let n = 1; n <= 5; n++) {
			await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'create', name: `Base ${n}` });
		}
		const { items, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'getAll',
			returnAll: false,
			limit: 4,
			options: { pageSize: 3 },
		});
		expect(requests.map((r) => r.query)).toEqual([
			{ page: '1', pageSize: '3' },
			{ page: '2', pageSize: '3' },
		]);
		expect(items).toHaveLength(4);
	});

	it('updates only the fields that were set', async () => {
		const { items, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'update',
			knowledgeBaseId: byId(SEED.knowledge.faq.id),
			updateFields: { description: 'Answers for customers' },
		});
		const request = only(requests);
		expect([request.method, request.path]).toEqual(['PUT', `/api/v1/knowledge/${SEED.knowledge.faq.id}`]);
		expect(request.body).toEqual({ description: 'Answers for customers' });
		expect(items[0].json).toMatchObject({ id: SEED.knowledge.faq.id, name: SEED.knowledge.faq.name, description: 'Answers for customers' });
	});

	it('refuses an update with nothing to change before sending anything', async () => {
		const { error, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'update',
			knowledgeBaseId: byId(SEED.knowledge.faq.id),
			updateFields: {},
		});
		expect(requests).toHaveLength(0);
		expect(error?.message).toBe('Item 0: "Update Fields" must contain at least one field to change, got {}');
	});

	it('deletes a knowledge base (204, no body) and outputs what was deleted', async () => {
		const { items, requests } = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'delete',
			knowledgeBaseId: byId(SEED.knowledge.empty.id),
		});
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual([
			'DELETE',
			`/api/v1/knowledge/${SEED.knowledge.empty.id}`,
			204,
		]);
		expect(items[0].json).toEqual({ deleted: true, knowledgeBaseId: SEED.knowledge.empty.id });

		const again = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'get',
			knowledgeBaseId: byId(SEED.knowledge.empty.id),
		});
		expect(again.error?.message).toMatch(/not found/i);
	});
});
