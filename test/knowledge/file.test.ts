import { createHash, randomBytes } from 'crypto';

import { startSimulator } from '../../simulator';
import { SEED, SEED_FILE_CONTENTS } from '../../simulator/seed';
import { readBinary } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { byId, only, runKnowledge } from './knowledge.fixtures';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const base = SEED.knowledge.handbook;

const sim = useSimulator();

describe('Workplace Knowledge: file', () => {
	const bigPdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(6 * 1024 * 1024)]);
	const nonAsciiName = 'Rückblick 2025 – 年度报告.pdf';

	it.each(['filesystem', 'default'] as const)(
		'uploads a 6 MiB file with a non-ASCII name as multipart, same bytes at the platform (%s binary mode)',
		async (binaryMode) => {
			const { items, error, requests } = await runKnowledge(
				sim,
				{
					resource: 'file',
					operation: 'upload',
					knowledgeBaseId: byId(base.id),
					binaryPropertyName: 'data',
				},
				{
					binaryMode,
					inputItems: [{ json: {}, binary: { data: { data: bigPdf, fileName: nonAsciiName, mimeType: 'application/pdf' } } }],
				},
			);
			expect(error).toBeUndefined();
			const request = only(requests);
			expect([request.method, request.path, request.status]).toEqual(['POST', `/api/v1/knowledge/${base.id}/files`, 201]);
			expect(request.headers['x-api-key']).toBe(sim.credentials.knowledgeApiKey);
			expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
			expect(request.multipart?.files).toEqual([
				{ field: 'file', filename: nonAsciiName, contentType: 'application/pdf', size: bigPdf.length, sha256: sha256(bigPdf) },
			]);
			expect(items[0].json).toMatchObject({ name: nonAsciiName, size: bigPdf.length });
			expect(items[0].pairedItem).toEqual({ item: 0 });
		},
	);

	it('uploads each item its own binary, with file name, MIME type, field name and extra fields overridden', async () => {
		const one = Buffer.from('first file\n');
		const two = Buffer.from('second file\n');
		const { error, requests } = await runKnowledge(
			sim,
			{
				resource: 'file',
				operation: 'upload',
				knowledgeBaseId: byId(base.id),
				binaryPropertyName: 'attachment',
				options: {
					fileName: '={{ "note-" + $itemIndex + ".txt" }}',
					mimeType: 'text/plain',
					extraFields: { field: [{ name: 'category', value: 'notes' }, { name: 'tags', value: 'a' }, { name: 'tags', value: 'b' }] },
				},
			},
			{
				inputItems: [
					{ json: {}, binary: { attachment: { data: one, fileName: 'x.bin', mimeType: 'application/octet-stream' } } },
					{ json: {}, binary: { attachment: { data: two, fileName: 'y.bin', mimeType: 'application/octet-stream' } } },
				],
			},
		);
		expect(error).toBeUndefined();
		expect(requests).toHaveLength(2);
		expect(requests.map((r) => r.multipart?.files)).toEqual([
			[{ field: 'file', filename: 'note-0.txt', contentType: 'text/plain', size: one.length, sha256: sha256(one) }],
			[{ field: 'file', filename: 'note-1.txt', contentType: 'text/plain', size: two.length, sha256: sha256(two) }],
		]);
		expect(requests[0].multipart?.fields).toEqual({ category: 'notes', tags: ['a', 'b'] });
	});

	it('sends the file under another multipart field name when asked', async () => {
		const custom = await startSimulator({ port: 0, uploadFieldName: 'document' });
		try {
			const { error, requests } = await runKnowledge(
				custom,
				{
					resource: 'file',
					operation: 'upload',
					knowledgeBaseId: byId(base.id),
					binaryPropertyName: 'data',
					options: { fileFieldName: 'document' },
				},
				{ inputItems: [{ json: {}, binary: { data: { data: 'hello', fileName: 'hello.txt', mimeType: 'text/plain' } } }] },
			);
			expect(error).toBeUndefined();
			expect(only(requests).multipart?.files[0]).toMatchObject({ field: 'document', filename: 'hello.txt', size: 5 });
		} finally {
			await custom.close();
		}
	});

	it.each([
		['an empty name', [{ name: 'category', value: 'notes' }, { name: ' ', value: 'x' }], 'must not be empty, got " "'],
		['the file field\'s name', [{ name: 'file', value: 'x' }, { name: 'tags', value: 'a' }], 'must differ from the file field "file", got "file"'],
	])('refuses an extra form field with %s, naming its place in words, before sending anything', async (_name, field, rule) => {
		const { error, requests } = await runKnowledge(sim, {
			resource: 'file',
			operation: 'upload',
			knowledgeBaseId: byId(base.id),
			binaryPropertyName: 'data',
			options: { extraFields: { field } },
		}, { inputItems: [{ json: {}, binary: { data: { data: 'hello', fileName: 'hello.txt', mimeType: 'text/plain' } } }] });
		const position = field[0].name === 'file' ? 'field 1 of 2' : 'field 2 of 2';
		expect(error?.message).toBe(`Item 0: "Extra Form Fields > Name" (${position}) ${rule}`);
		expect(requests).toEqual([]);
	});

	it('fails an item without the binary field before sending anything', async () => {
		const { error, requests } = await runKnowledge(
			sim,
			{ resource: 'file', operation: 'upload', knowledgeBaseId: byId(base.id), binaryPropertyName: 'missing' },
			{ inputItems: [{ json: {}, binary: { data: { data: 'x', fileName: 'x.txt' } } }] },
		);
		expect(requests).toHaveLength(0);
		expect(error?.message).toMatch(/missing/);
	});

	it('gets a file and lists the files of a knowledge base', async () => {
		const got = await runKnowledge(sim, {
			resource: 'file',
			operation: 'get',
			knowledgeBaseId: byId(base.id),
			fileId: byId(base.files.policy),
		});
		expect(only(got.requests).path).toBe(`/api/v1/knowledge/${base.id}/files/${base.files.policy}`);
		expect(got.items[0].json).toMatchObject({ id: base.files.policy, name: SEED_FILE_CONTENTS.policy.name });

		const listed = await runKnowledge(sim, {
			resource: 'file',
			operation: 'getAll',
			knowledgeBaseId: byId(base.id),
			returnAll: true,
		});
		expect(listed.requests.map((r) => [r.method, r.path, r.query])).toEqual([
			['GET', `/api/v1/knowledge/${base.id}/files`, { page: '1', pageSize: '50' }],
		]);
		expect(listed.items.map((i) => i.json.id).sort()).toEqual([base.files.policy, base.files.holidays].sort());
	});

	it('replaces a file with PUT multipart and downloads the new content', async () => {
		const content = Buffer.from('# Remote work policy\n\nUpdated: four days per week.\n');
		const replaced = await runKnowledge(
			sim,
			{
				resource: 'file',
				operation: 'replace',
				knowledgeBaseId: byId(base.id),
				fileId: byId(base.files.policy),
				binaryPropertyName: 'data',
			},
			{ inputItems: [{ json: {}, binary: { data: { data: content, fileName: 'policy-v2.md', mimeType: 'text/markdown' } } }] },
		);
		expect(replaced.error).toBeUndefined();
		const put = only(replaced.requests);
		expect([put.method, put.path, put.status]).toEqual(['PUT', `/api/v1/knowledge/${base.id}/files/${base.files.policy}`, 200]);
		expect(put.multipart?.files[0]).toMatchObject({ field: 'file', filename: 'policy-v2.md', sha256: sha256(content) });

		const downloaded = await runKnowledge(sim, {
			resource: 'file',
			operation: 'download',
			knowledgeBaseId: byId(base.id),
			fileId: byId(base.files.policy),
			binaryPropertyName: 'data',
		});
		expect(only(downloaded.requests).path).toBe(`/api/v1/knowledge/${base.id}/files/${base.files.policy}/download`);
		expect((await readBinary(downloaded.items[0], 'data')).equals(content)).toBe(true);
	});

	it('downloads into a binary field with the name from Content-Disposition and type from Content-Type', async () => {
		const faq = SEED.knowledge.faq;
		const { items, requests } = await runKnowledge(
			sim,
			{
				resource: 'file',
				operation: 'download',
				knowledgeBaseId: byId(faq.id),
				fileId: byId(faq.files.overview),
				binaryPropertyName: 'report',
			},
			{ inputItems: [{ json: { keep: true }, binary: { original: { data: 'kept', fileName: 'kept.txt' } } }] },
		);
		expect(only(requests).status).toBe(200);
		const item = items[0];
		expect(item.json).toEqual({
			knowledgeBaseId: faq.id,
			fileId: faq.files.overview,
			fileName: SEED_FILE_CONTENTS.overview.name,
			mimeType: 'application/pdf',
		});
		expect(item.binary?.report).toMatchObject({ fileName: SEED_FILE_CONTENTS.overview.name, mimeType: 'application/pdf' });
		expect((await readBinary(item, 'report')).toString()).toBe(SEED_FILE_CONTENTS.overview.content);
		expect(Object.keys(item.binary ?? {}).sort()).toEqual(['original', 'report']);
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	it('round-trips a 6 MiB upload through download byte for byte', async () => {
		const uploaded = await runKnowledge(
			sim,
			{ resource: 'file', operation: 'upload', knowledgeBaseId: byId(base.id), binaryPropertyName: 'data' },
			{ inputItems: [{ json: {}, binary: { data: { data: bigPdf, fileName: nonAsciiName, mimeType: 'application/pdf' } } }] },
		);
		const fileId = String(uploaded.items[0].json.id);
		const downloaded = await runKnowledge(sim, {
			resource: 'file',
			operation: 'download',
			knowledgeBaseId: byId(base.id),
			fileId: byId(fileId),
			binaryPropertyName: 'data',
		});
		const bytes = await readBinary(downloaded.items[0], 'data');
		expect(sha256(bytes)).toBe(sha256(bigPdf));
		expect(downloaded.items[0].binary?.data.fileName).toBe(nonAsciiName);
	});

	it('deletes a file and outputs what was deleted', async () => {
		const { items, requests } = await runKnowledge(sim, {
			resource: 'file',
			operation: 'delete',
			knowledgeBaseId: byId(base.id),
			fileId: byId(base.files.holidays),
		});
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual([
			'DELETE',
			`/api/v1/knowledge/${base.id}/files/${base.files.holidays}`,
			204,
		]);
		expect(items[0].json).toEqual({ deleted: true, knowledgeBaseId: base.id, fileId: base.files.holidays });
	});
});
