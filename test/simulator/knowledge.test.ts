import { createHash, randomBytes } from 'crypto';
import { FormData } from 'undici';
import { SEED } from '../../simulator';
import { useSimulator } from '../helpers/simulator';
import { call, withSim } from './helpers';

describe('simulator: knowledge API', () => {
	const sim = useSimulator();
	let K: Record<string, string>;
	const kb = SEED.knowledge.handbook.id;

	beforeAll(() => {
		K = { 'x-api-key': sim.credentials.knowledgeApiKey };
	});

	test('401 without key, with a wrong key, and for a client address not allowed', async () => {
		const none = await call(`${sim.knowledgeUrl}/knowledge`);
		expect(none.status).toBe(401);
		expect(none.json).toEqual({ name: 'UnauthorizedException', code: 401001, status: 401, message: expect.any(String), errors: [] });
		expect((await call(`${sim.knowledgeUrl}/knowledge`, { headers: { 'x-api-key': 'nope' } })).status).toBe(401);
		const other = await withSim({ allowedClientAddresses: ['10.1.2.3'] });
		try {
			const r = await call(`${other.knowledgeUrl}/knowledge`, { headers: { 'x-api-key': other.credentials.knowledgeApiKey } });
			expect(r.status).toBe(401);
			expect(r.json.message).toMatch(/not allowed/);
		} finally {
			await other.close();
		}
	});

	test('CRUD of knowledge bases with 201/200/204 and 404/422 errors', async () => {
		const created = await call(`${sim.knowledgeUrl}/knowledge`, { headers: K, json: { name: 'Docs', description: 'd' } });
		expect(created.status).toBe(201);
		expect(created.json).toMatchObject({ id: expect.any(String), name: 'Docs', description: 'd' });
		const id = created.json.id;
		expect((await call(`${sim.knowledgeUrl}/knowledge/${id}`, { headers: K })).json.name).toBe('Docs');
		const upd = await call(`${sim.knowledgeUrl}/knowledge/${id}`, { method: 'PUT', headers: K, json: { name: 'Docs 2' } });
		expect(upd.status).toBe(200);
		expect(upd.json.name).toBe('Docs 2');
		const del = await call(`${sim.knowledgeUrl}/knowledge/${id}`, { method: 'DELETE', headers: K });
		expect(del.status).toBe(204);
		expect(del.text).toBe('');
		const missing = await call(`${sim.knowledgeUrl}/knowledge/${id}`, { headers: K });
		expect(missing.status).toBe(404);
		expect(missing.json).toMatchObject({ name: 'KnowledgeNotFoundError', code: 404001, status: 404 });

		const bad = await call(`${sim.knowledgeUrl}/knowledge`, { headers: K, json: { name: 42 } });
		expect(bad.status).toBe(422);
		expect(bad.json).toMatchObject({ name: 'UnprocessableEntityException', code: 422001, status: 422 });
		expect(bad.json.errors[0]).toMatchObject({ type: 'isString', field: 'name', value: 42 });
		const empty = await call(`${sim.knowledgeUrl}/knowledge`, { headers: K, json: {} });
		expect(empty.status).toBe(422);
		expect(empty.json.errors[0].field).toBe('name');
	});

	test('pagination envelope and bounds', async () => {
		for (let i = 0; i < 12; i++) sim.state.addKnowledgeBase({ name: `KB ${i}` });
		const p1 = await call(`${sim.knowledgeUrl}/knowledge`, { headers: K });
		expect(p1.json.total).toBe(15);
		expect(p1.json.data).toHaveLength(10);
		expect(p1.json.pagination).toEqual({ page: 1, pageSize: 10, totalPages: 2 });
		const p2 = await call(`${sim.knowledgeUrl}/knowledge?page=2&pageSize=10`, { headers: K });
		expect(p2.json.data).toHaveLength(5);
		const p9 = await call(`${sim.knowledgeUrl}/knowledge?page=9&pageSize=4`, { headers: K });
		expect(p9.json).toMatchObject({ data: [], total: 15, pagination: { page: 9, pageSize: 4, totalPages: 4 } });
		for (const q of ['page=0', 'pageSize=0', 'pageSize=101', 'page=abc', 'limit=0']) {
			const r = await call(`${sim.knowledgeUrl}/knowledge?${q}`, { headers: K });
			expect(r.status).toBe(422);
			expect(r.json.errors[0].field).toBe(q.split('=')[0]);
		}
		const files = await call(`${sim.knowledgeUrl}/knowledge/${kb}/files?pageSize=1`, { headers: K });
		expect(files.json).toMatchObject({ total: 2, pagination: { page: 1, pageSize: 1, totalPages: 2 } });
	});

	test('multipart upload of a few MiB with a non-ASCII filename: sha256, download headers, replace, delete', async () => {
		const content = randomBytes(3 * 1024 * 1024 + 17);
		const sha = createHash('sha256').update(content).digest('hex');
		const fd = new FormData();
		fd.append('file', new Blob([content], { type: 'application/pdf' }), 'Übersicht – März.pdf');
		fd.append('source', 'test');
		const up = await call(`${sim.knowledgeUrl}/knowledge/${kb}/files`, { headers: K, body: fd });
		expect(up.status).toBe(201);
		expect(up.json).toMatchObject({ knowledgeId: kb, name: 'Übersicht – März.pdf', mimeType: 'application/pdf', size: content.length, sha256: sha, metadata: { source: 'test' } });
		const fileId = up.json.id;

		const logged = sim.log.find({ method: 'POST', path: `/api/v1/knowledge/${kb}/files` })[0];
		expect(logged.multipart?.files[0]).toMatchObject({ field: 'file', filename: 'Übersicht – März.pdf', size: content.length, sha256: sha });
		expect(logged.multipart?.fields).toEqual({ source: 'test' });

		const dl = await call(`${sim.knowledgeUrl}/knowledge/${kb}/files/${fileId}/download`, { headers: K });
		expect(dl.status).toBe(200);
		expect(dl.headers['content-type']).toBe('application/pdf');
		expect(dl.headers['content-disposition']).toBe(`attachment; filename="Ubersicht _ Marz.pdf"; filename*=UTF-8''%C3%9Cbersicht%20%E2%80%93%20M%C3%A4rz.pdf`);
		expect(createHash('sha256').update(dl.buffer).digest('hex')).toBe(sha);

		const fd2 = new FormData();
		fd2.append('file', new Blob(['hello']), 'notes.md');
		const rep = await call(`${sim.knowledgeUrl}/knowledge/${kb}/files/${fileId}`, { method: 'PUT', headers: K, body: fd2 });
		expect(rep.status).toBe(200);
		expect(rep.json).toMatchObject({ id: fileId, name: 'notes.md', mimeType: 'text/markdown', size: 5 });
		expect((await sim.state.readKnowledgeFile(kb, fileId))?.toString()).toBe('hello');

		expect((await call(`${sim.knowledgeUrl}/knowledge/${kb}/files/${fileId}`, { method: 'DELETE', headers: K })).status).toBe(204);
		const gone = await call(`${sim.knowledgeUrl}/knowledge/${kb}/files/${fileId}`, { headers: K });
		expect(gone.status).toBe(404);
		expect(gone.json).toMatchObject({ name: 'KnowledgeFileNotFoundError', code: 404002 });
	});

	test('RFC 5987 filename* in a hand-written multipart body', async () => {
		const boundary = '----simtest' + randomBytes(4).toString('hex');
		const body = Buffer.concat([
			Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="fallback.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E.txt\r\nContent-Type: application/octet-stream\r\n\r\n`),
			Buffer.from('hello\r\n--not-the-boundary\r\n'),
			Buffer.from(`\r\n--${boundary}--\r\n`),
		]);
		const r = await call(`${sim.knowledgeUrl}/knowledge/${kb}/files`, { headers: { ...K, 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
		expect(r.status).toBe(201);
		expect(r.json).toMatchObject({ name: '日本語.txt', mimeType: 'text/plain', size: 27 });
	});

	test('400 unsupported type, 400 bad CSV, 422 missing file part, 413 too large', async () => {
		const up = (name: string, content: string, type?: string, field = 'file'): ReturnType<typeof call> => {
			const fd = new FormData();
			fd.append(field, new Blob([content], type ? { type } : {}), name);
			return call(`${sim.knowledgeUrl}/knowledge/${kb}/files`, { headers: K, body: fd });
		};
		const png = await up('photo.png', 'x', 'image/png');
		expect(png.status).toBe(400);
		expect(png.json).toMatchObject({ name: 'UnsupportedKnowledgeFileTypeError', code: 400001 });
		const csv = await up('data.csv', 'a,b\n1,2,3\n', 'text/csv');
		expect(csv.status).toBe(400);
		expect(csv.json).toMatchObject({ name: 'UnsupportCsvKnowledgeFileFormatError', code: 400002 });
		expect((await up('empty.csv', '', 'text/csv')).status).toBe(400);
		expect((await up('ok.csv', 'a,b\n"x, y",2\n', 'text/csv')).status).toBe(201);
		const wrongField = await up('a.txt', 'x', 'text/plain', 'document');
		expect(wrongField.status).toBe(422);
		expect(sim.state.knowledgeFiles(kb)).toHaveLength(3);

		const small = await withSim({ maxUploadBytes: 1024 * 1024 });
		try {
			const fd = new FormData();
			fd.append('file', new Blob([randomBytes(1024 * 1024 + 1)]), 'big.pdf');
			const r = await call(`${small.knowledgeUrl}/knowledge/${kb}/files`, { headers: { 'x-api-key': small.credentials.knowledgeApiKey }, body: fd });
			expect(r.status).toBe(413);
			expect(r.json).toMatchObject({ name: 'PayloadTooLargeError', code: 413001, status: 413 });
			expect(small.state.knowledgeFiles(kb)).toHaveLength(2);
		} finally {
			await small.close();
		}
	});

	test('uploadFieldName option', async () => {
		const other = await withSim({ uploadFieldName: 'document' });
		try {
			const fd = new FormData();
			fd.append('document', new Blob(['x']), 'a.txt');
			const r = await call(`${other.knowledgeUrl}/knowledge/${kb}/files`, { headers: { 'x-api-key': other.credentials.knowledgeApiKey }, body: fd });
			expect(r.status).toBe(201);
		} finally {
			await other.close();
		}
	});
});
