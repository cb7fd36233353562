/**
 * Workplace Knowledge in real n8n: all 11 operations in one workflow against the simulator,
 * plus error handling (a failing node stops the workflow; Continue On Fail outputs an error item).
 */
import * as assert from 'node:assert/strict';

import type { Scenario, ScenarioContext, LoggedRequest } from '../types';
import { base64ToFile, byId, chain, manualTrigger, set } from '../workflow';
import { knowledge, knowledgeCredential, pseudoRandomBytes, requestLines, sha256 } from '../workplace';

const TEXT = Buffer.from('# E2E notes\n\nGrüße aus n8n ✓ — uploaded by the end-to-end test.\n', 'utf8');
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), pseudoRandomBytes(96 * 1024, 42)]);

const KB = "={{ $('Create Base').first().json.id }}";
const FILE = "={{ $('Upload File').first().json.id }}";

function knowledgeLog(ctx: ScenarioContext): LoggedRequest[] {
	const prefix = new URL(ctx.sim.knowledgeUrl).pathname.replace(/\/$/, '');
	return ctx.sim.log.all().filter((r) => r.path.startsWith(`${prefix}/knowledge`));
}

const allOperations: Scenario = {
	name: 'knowledge: all operations',
	credentials: [knowledgeCredential],
	workflow: (ctx) =>
		chain([
			manualTrigger(),
			knowledge('Create Base', {
				resource: 'knowledgeBase',
				operation: 'create',
				name: `E2E base (n8n ${ctx.n8nVersion})`,
				additionalFields: { description: 'created by the e2e test', additionalJson: '{"metadata":{"source":"e2e"}}' },
			}),
			knowledge('Get Base', { resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: byId(KB) }),
			knowledge('Update Base', {
				resource: 'knowledgeBase',
				operation: 'update',
				knowledgeBaseId: byId(KB),
				updateFields: { name: 'E2E base (renamed)', description: 'updated by the e2e test' },
			}),
			knowledge('List Bases', {
				resource: 'knowledgeBase',
				operation: 'getAll',
				returnAll: true,
				options: { pageSize: 1 },
			}),
			// List Bases outputs one item per base: make the file once
			set('Make File', { content: TEXT.toString('base64') }, { settings: { executeOnce: true } }),
			base64ToFile('To File', { sourceProperty: 'content', fileName: 'notes.md', mimeType: 'text/markdown' }),
			knowledge('Upload File', {
				resource: 'file',
				operation: 'upload',
				knowledgeBaseId: byId(KB),
				binaryPropertyName: 'data',
				options: { fileName: 'e2e-notes.md', extraFields: { field: [{ name: 'source', value: 'e2e' }] } },
			}),
			knowledge('Get File', { resource: 'file', operation: 'get', knowledgeBaseId: byId(KB), fileId: byId(FILE) }),
			knowledge('List Files', {
				resource: 'file',
				operation: 'getAll',
				knowledgeBaseId: byId(KB),
				returnAll: false,
				limit: 10,
			}),
			set('Make Replacement', { content: PDF.toString('base64') }, { settings: { executeOnce: true } }),
			base64ToFile('To File 2', {
				sourceProperty: 'content',
				binaryPropertyName: 'upload',
				fileName: 'report.pdf',
				mimeType: 'application/pdf',
			}),
			knowledge('Replace File', {
				resource: 'file',
				operation: 'replace',
				knowledgeBaseId: byId(KB),
				fileId: byId(FILE),
				binaryPropertyName: 'upload',
				options: {},
			}),
			knowledge('Download File', {
				resource: 'file',
				operation: 'download',
				knowledgeBaseId: byId(KB),
				fileId: byId(FILE),
				binaryPropertyName: 'downloaded',
			}),
			knowledge('Delete File', { resource: 'file', operation: 'delete', knowledgeBaseId: byId(KB), fileId: byId(FILE) }),
			knowledge('Delete Base', { resource: 'knowledgeBase', operation: 'delete', knowledgeBaseId: byId(KB) }),
		]),

	async assert(result, ctx) {
		const apiKey = ctx.sim.credentials.knowledgeApiKey;

		// --- knowledge base operations
		const [created] = result.json('Create Base');
		const kbId = created.id as string;
		assert.equal(typeof kbId, 'string');
		assert.equal(created.name, `E2E base (n8n ${ctx.n8nVersion})`);
		assert.equal(created.description, 'created by the e2e test');
		assert.deepEqual(created.metadata, { source: 'e2e' });

		const [got] = result.json('Get Base');
		assert.equal(got.id, kbId);
		assert.equal(got.name, created.name);

		const [updated] = result.json('Update Base');
		assert.equal(updated.id, kbId);
		assert.equal(updated.name, 'E2E base (renamed)');
		assert.equal(updated.description, 'updated by the e2e test');

		const bases = result.json('List Bases');
		assert.ok(bases.length >= 2, `List Bases returned ${bases.length} item(s); the simulator seeds bases too`);
		assert.equal(bases.filter((b) => b.id === kbId && b.name === 'E2E base (renamed)').length, 1);
		assert.equal(new Set(bases.map((b) => b.id)).size, bases.length, 'no base listed twice across pages');

		// --- file operations
		const [uploaded] = result.json('Upload File');
		const fileId = uploaded.id as string;
		assert.equal(typeof fileId, 'string');
		assert.equal(uploaded.name, 'e2e-notes.md');
		assert.equal(uploaded.size, TEXT.length);
		assert.equal(uploaded.sha256, sha256(TEXT));
		assert.equal(uploaded.mimeType, 'text/markdown');

		const [gotFile] = result.json('Get File');
		assert.equal(gotFile.id, fileId);
		assert.equal(gotFile.sha256, sha256(TEXT));

		const files = result.json('List Files');
		assert.deepEqual(
			files.map((f) => f.id),
			[fileId],
		);

		const [replaced] = result.json('Replace File');
		assert.equal(replaced.id, fileId);
		assert.equal(replaced.name, 'report.pdf');
		assert.equal(replaced.size, PDF.length);
		assert.equal(replaced.sha256, sha256(PDF));
		assert.equal(replaced.mimeType, 'application/pdf');

		const [download] = result.items('Download File');
		assert.equal(download.json.fileId, fileId);
		const ref = download.binary?.downloaded;
		assert.ok(ref, 'Download File output has binary property "downloaded"');
		assert.equal(ref.fileName, 'report.pdf');
		assert.equal(ref.mimeType, 'application/pdf');
		const bytes = await result.readBinary(ref);
		assert.equal(bytes.length, PDF.length);
		assert.equal(sha256(bytes), sha256(PDF), 'downloaded bytes equal the replacement upload');

		const [deletedFile] = result.json('Delete File');
		assert.equal(deletedFile.deleted, true);
		assert.equal(deletedFile.fileId, fileId);
		assert.deepEqual(result.json('Delete Base'), [{ deleted: true, knowledgeBaseId: kbId }]);

		// --- what the platform received
		const log = knowledgeLog(ctx);
		const p = new URL(ctx.sim.knowledgeUrl).pathname.replace(/\/$/, '');
		const listPages = log.filter((r) => r.method === 'GET' && r.path === `${p}/knowledge`);
		assert.equal(listPages.length, Math.ceil(bases.length / 1), 'one GET /knowledge per page of 1');
		listPages.forEach((r, i) => {
			assert.equal(String(r.query.page), String(i + 1));
			assert.equal(String(r.query.pageSize), '1');
		});
		assert.deepEqual(requestLines(log), [
			`POST ${p}/knowledge`,
			`GET ${p}/knowledge/${kbId}`,
			`PUT ${p}/knowledge/${kbId}`,
			...listPages.map(() => `GET ${p}/knowledge`),
			`POST ${p}/knowledge/${kbId}/files`,
			`GET ${p}/knowledge/${kbId}/files/${fileId}`,
			`GET ${p}/knowledge/${kbId}/files`,
			`PUT ${p}/knowledge/${kbId}/files/${fileId}`,
			`GET ${p}/knowledge/${kbId}/files/${fileId}/download`,
			`DELETE ${p}/knowledge/${kbId}/files/${fileId}`,
			`DELETE ${p}/knowledge/${kbId}`,
		]);
		for (const r of log) {
			assert.equal(r.headers['x-api-key'], apiKey, `${r.method} ${r.path} sends the API key`);
			assert.ok(r.status >= 200 && r.status < 300, `${r.method} ${r.path} answered ${r.status}`);
		}
		assert.deepEqual(log[0].body, { name: created.name, description: 'created by the e2e test', metadata: { source: 'e2e' } });
		assert.deepEqual(log[2].body, { name: 'E2E base (renamed)', description: 'updated by the e2e test' });

		const upload = log.find((r) => r.method === 'POST' && r.path.endsWith('/files'));
		assert.ok(upload?.multipart, 'upload is multipart');
		assert.equal(upload.multipart.files.length, 1);
		assert.deepEqual(
			{ ...upload.multipart.files[0] },
			{ field: 'file', filename: 'e2e-notes.md', contentType: upload.multipart.files[0].contentType, size: TEXT.length, sha256: sha256(TEXT) },
		);
		assert.match(upload.multipart.files[0].contentType, /^text\/markdown/);
		assert.deepEqual(upload.multipart.fields, { source: 'e2e' });

		const replace = log.find((r) => r.method === 'PUT' && r.path.endsWith(`/files/${fileId}`));
		assert.ok(replace?.multipart, 'replace is multipart');
		assert.equal(replace.multipart.files[0].field, 'file');
		assert.equal(replace.multipart.files[0].filename, 'report.pdf');
		assert.equal(replace.multipart.files[0].size, PDF.length);
		assert.equal(replace.multipart.files[0].sha256, sha256(bytes), 'uploaded sha256 = downloaded sha256');

		// --- and the base is really gone
		const res = await fetch(`${ctx.sim.knowledgeUrl}/knowledge/${kbId}`, { headers: { 'x-api-key': apiKey } });
		assert.equal(res.status, 404);
	},
};

const MISSING = 'e2e-no-such-base';

const errors: Scenario = {
	name: 'knowledge: errors and Continue On Fail',
	credentials: [knowledgeCredential],
	expectError: true,
	workflow: () =>
		chain([
			manualTrigger(),
			knowledge(
				'Get Missing (continue)',
				{ resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: byId(MISSING) },
				{ settings: { onError: 'continueRegularOutput' } },
			),
			knowledge('Get Missing', { resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: byId(MISSING) }),
		]),
	assert(result, ctx) {
		const [item] = result.items('Get Missing (continue)');
		assert.ok(item.json.error, `Continue On Fail outputs an error item, got ${JSON.stringify(item.json)}`);
		assert.match(JSON.stringify(item.json.error), /not found|404/i);

		assert.equal(result.status, 'error');
		assert.equal(result.error?.node?.name, 'Get Missing');
		assert.match(`${result.error?.message ?? ''} ${result.error?.description ?? ''}`, /not found|404/i);

		const p = new URL(ctx.sim.knowledgeUrl).pathname.replace(/\/$/, '');
		const log = knowledgeLog(ctx);
		assert.deepEqual(requestLines(log), [`GET ${p}/knowledge/${MISSING}`, `GET ${p}/knowledge/${MISSING}`]);
		assert.deepEqual(
			log.map((r) => r.status),
			[404, 404],
		);
	},
};

export const scenarios: Scenario[] = [allOperations, errors];
