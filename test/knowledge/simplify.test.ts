import { textStartOf } from '../../nodes/shared/binary';
import { SEED, SEED_FILE_CONTENTS } from '../../simulator/seed';
import { registerToolVariant } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { byId, only, runKnowledge } from './knowledge.fixtures';

const sim = useSimulator();
const { handbook } = SEED.knowledge;

/** The platform's full records, as the simulator serves them. */
const fullBase = (id: string) => ({ ...sim.state.knowledgeBase(id)!, fileCount: sim.state.fileCount(id) });
const fullFile = (fileId: string) => sim.state.knowledgeFile(handbook.id, fileId)!;

const simplifiedBase = (id: string) => {
	const { name, description, createdAt, updatedAt } = fullBase(id);
	return { id, name, description, fileCount: sim.state.fileCount(id), createdAt, updatedAt };
};
const simplifiedFile = (fileId: string) => {
	const { id, knowledgeId, name, mimeType, size, status, createdAt, updatedAt } = fullFile(fileId);
	return { id, knowledgeId, name, mimeType, size, status, createdAt, updatedAt };
};

const getBase = { resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: byId(handbook.id) };
const listFiles = { resource: 'file', operation: 'getAll', knowledgeBaseId: byId(handbook.id), returnAll: true };

describe('Workplace Knowledge: Simplify Output', () => {
	it('knowledge base, Always: id, name, description, file count and dates, without metadata', async () => {
		const { items, error, requests } = await runKnowledge(sim, { ...getBase, simplify: 'always' });
		expect(error).toBeUndefined();
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['GET', `/api/v1/knowledge/${handbook.id}`, 200]);
		expect(items.map((i) => i.json)).toEqual([simplifiedBase(handbook.id)]);
		expect(Object.keys(fullBase(handbook.id))).toContain('metadata');
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	it('knowledge base, default in a workflow: the full records, as before', async () => {
		const { items, requests } = await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'getAll', returnAll: true });
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /api/v1/knowledge 200']);
		expect(items.map((i) => i.json)).toEqual(sim.state.knowledgeBases().map((kb) => fullBase(kb.id)));
	});

	it('knowledge base, default when an AI agent calls the node as a tool: simplified; Never: full', async () => {
		const nodeType = await registerToolVariant('workplaceKnowledge');
		const asTool = await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'getAll', returnAll: true }, { nodeType });
		expect(asTool.error).toBeUndefined();
		expect(asTool.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /api/v1/knowledge 200']);
		expect(asTool.items.map((i) => i.json)).toEqual(sim.state.knowledgeBases().map((kb) => simplifiedBase(kb.id)));

		const never = await runKnowledge(sim, { ...getBase, simplify: 'never' }, { nodeType });
		expect(never.items.map((i) => i.json)).toEqual([fullBase(handbook.id)]);
	});

	it('knowledge base, Always on Create and Update too', async () => {
		const created = await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'create', name: 'Sales', simplify: 'always' });
		const id = String(created.items[0].json.id);
		expect(created.items[0].json).toEqual(simplifiedBase(id));
		const updated = await runKnowledge(sim, {
			resource: 'knowledgeBase',
			operation: 'update',
			knowledgeBaseId: byId(id),
			updateFields: { description: 'How we sell' },
			simplify: 'always',
		});
		expect(only(updated.requests).body).toEqual({ description: 'How we sell' });
		expect(updated.items[0].json).toEqual({ ...simplifiedBase(id), description: 'How we sell' });
	});

	it('file, Always: id, knowledge base id, name, type, size, status and dates, without sha256 and metadata', async () => {
		const { items, requests } = await runKnowledge(sim, {
			resource: 'file',
			operation: 'get',
			knowledgeBaseId: byId(handbook.id),
			fileId: byId(handbook.files.policy),
			simplify: 'always',
		});
		expect(only(requests).path).toBe(`/api/v1/knowledge/${handbook.id}/files/${handbook.files.policy}`);
		expect(items.map((i) => i.json)).toEqual([simplifiedFile(handbook.files.policy)]);
		expect(Object.keys(fullFile(handbook.files.policy))).toEqual(expect.arrayContaining(['sha256', 'metadata']));
	});

	it('file, default in a workflow: the full records, as before', async () => {
		const { items, requests } = await runKnowledge(sim, listFiles);
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET /api/v1/knowledge/${handbook.id}/files 200`]);
		expect(items.map((i) => i.json)).toEqual([fullFile(handbook.files.policy), fullFile(handbook.files.holidays)]);
	});

	it('file, default when an AI agent calls the node as a tool: simplified', async () => {
		const nodeType = await registerToolVariant('workplaceKnowledge');
		const { items, requests } = await runKnowledge(sim, listFiles, { nodeType });
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET /api/v1/knowledge/${handbook.id}/files 200`]);
		expect(items.map((i) => i.json)).toEqual([simplifiedFile(handbook.files.policy), simplifiedFile(handbook.files.holidays)]);
	});

	it('file, Always on Upload: the uploaded file simplified', async () => {
		const { items, requests } = await runKnowledge(
			sim,
			{ resource: 'file', operation: 'upload', knowledgeBaseId: byId(handbook.id), simplify: 'always' },
			{ inputItems: [{ json: {}, binary: { data: { data: 'hello', fileName: 'notes.txt', mimeType: 'text/plain' } } }] },
		);
		expect(only(requests).status).toBe(201);
		const id = String(items[0].json.id);
		expect(items[0].json).toEqual(simplifiedFile(id));
		expect(items[0].json).toMatchObject({ knowledgeId: handbook.id, name: 'notes.txt', size: 5 });
	});

	it('an unknown Simplify Output from an expression fails the item before any request', async () => {
		const { error, requests } = await runKnowledge(sim, { ...getBase, simplify: '={{ "yes" }}' });
		expect(requests).toHaveLength(0);
		expect(error?.message).toBe('Item 0: "Simplify Output" must be "asTool", "always" or "never", got "yes"');
	});
});

describe('Workplace Knowledge: File > Download for an AI agent', () => {
	const download = (fileId: string) => ({ resource: 'file', operation: 'download', knowledgeBaseId: byId(SEED.knowledge.faq.id), fileId: byId(fileId), binaryPropertyName: 'data' });

	it.each(['filesystem', 'default'] as const)('as a tool (binary data mode %s): a text file\'s content is in the JSON the model reads; a PDF\'s is not', async (binaryMode) => {
		const nodeType = await registerToolVariant('workplaceKnowledge');
		const text = await runKnowledge(sim, download(SEED.knowledge.faq.files.faq), { nodeType, binaryMode });
		expect(text.error).toBeUndefined();
		expect(only(text.requests).path).toBe(`/api/v1/knowledge/${SEED.knowledge.faq.id}/files/${SEED.knowledge.faq.files.faq}/download`);
		expect(text.items.map((i) => i.json)).toEqual([
			{ knowledgeBaseId: SEED.knowledge.faq.id, fileId: SEED.knowledge.faq.files.faq, fileName: SEED_FILE_CONTENTS.faq.name, mimeType: 'text/plain', text: SEED_FILE_CONTENTS.faq.content },
		]);
		const pdf = await runKnowledge(sim, download(SEED.knowledge.faq.files.overview), { nodeType, binaryMode });
		expect(pdf.items[0].json).not.toHaveProperty('text');
		expect(pdf.items[0].binary?.data?.mimeType).toBe('application/pdf');
	});

	it('in a workflow: the JSON stays without the content', async () => {
		const { items } = await runKnowledge(sim, download(SEED.knowledge.faq.files.faq));
		expect(items[0].json).not.toHaveProperty('text');
	});

	it('a long text: its start, cut at a whole character, marked truncated', async () => {
		const binary = { data: Buffer.from(`${'a'.repeat(9)}é and more`).toString('base64'), mimeType: 'text/plain' };
		const helpers = { getBinaryStream: async () => await Promise.reject(new Error('not stored')) };
		expect(await textStartOf({ helpers } as never, binary, 10)).toEqual({ text: 'aaaaaaaaa', truncated: true });
		expect(await textStartOf({ helpers } as never, binary, 100)).toEqual({ text: 'aaaaaaaaaé and more', truncated: false });
	});
});
