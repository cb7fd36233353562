/**
 * Proves the engine test bed (test/helpers/engine.ts) with TEST-ONLY node and credential
 * types (test/helpers/harness) against a local HTTP server: real workflows executed by
 * n8n-core's WorkflowExecute, credentials applied by the test CredentialsHelper, binary data
 * through n8n's BinaryDataService.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	CredentialStore,
	EngineTypeRegistry,
	findPackageRoot,
	getBinaryDataService,
	loadPackageDirectory,
	loadPackageNodeTypes,
	readBinary,
	registerTestTypes,
	runNode,
} from '../helpers/engine';
import { harnessTypes } from '../helpers/harness';
import { HarnessServer } from '../helpers/harness/harness-server';

const OPTIONS = {
	apiKey: 'key-123',
	username: 'alice',
	password: 's3cret',
};

const server = new HarnessServer(OPTIONS);
registerTestTypes(harnessTypes());

beforeAll(async () => await server.start());
afterAll(async () => await server.close());
beforeEach(() => server.reset());

const items = (count: number) => Array.from({ length: count }, (_, i) => ({ json: { i } }));
const requestsTo = (routePath: string) => server.requests.filter((r) => r.path === routePath);

describe('package loading', () => {
	it('loads the package from the package.json "n8n" section (skipped only without dist/)', async () => {
		const root = findPackageRoot();
		const result = await loadPackageNodeTypes();
		expect(result.directory).toBe(root);
		expect(result.loaded).toBe(existsSync(path.join(root, 'dist')));
		if (result.loaded) {
			const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
				name: string;
				n8n: { nodes: string[]; credentials: string[] };
			};
			expect(result.packageName).toBe(packageJson.name);
			expect(result.nodeTypes).toHaveLength(packageJson.n8n.nodes.length);
			expect(result.credentialTypes).toHaveLength(packageJson.n8n.credentials.length);
			for (const type of result.nodeTypes) expect(type.startsWith(`${packageJson.name}.`)).toBe(true);
		}
	});

	it('loads a package directory with n8n-core\'s loader and fails on a broken layout', async () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'engine-fixture-package-'));
		try {
			const harnessDir = path.join(__dirname, '..', 'helpers', 'harness');
			const writePackage = (nodes: string[], credentials: string[]) =>
				writeFileSync(
					path.join(dir, 'package.json'),
					JSON.stringify({
						name: 'n8n-nodes-engine-fixture',
						version: '0.0.1',
						n8n: { n8nNodesApiVersion: 1, nodes, credentials },
					}),
				);

			writePackage(
				[path.join(harnessDir, 'HarnessHttpProbe.node.js')],
				[path.join(harnessDir, 'HarnessApiKeyApi.credentials.js')],
			);
			const registry = new EngineTypeRegistry();
			const result = await loadPackageDirectory(dir, registry);
			expect(result.packageName).toBe('n8n-nodes-engine-fixture');
			expect(result.nodeTypes).toEqual(['n8n-nodes-engine-fixture.harnessHttpProbe']);
			expect(result.credentialTypes).toEqual(['harnessApiKeyApi']);
			expect(registry.resolveNodeTypeName('harnessHttpProbe', 'n8n-nodes-engine-fixture')).toBe(
				'n8n-nodes-engine-fixture.harnessHttpProbe',
			);
			expect(registry.defaultVersion('n8n-nodes-engine-fixture.harnessHttpProbe')).toBe(2);
			expect(registry.credentialTypes.getSupportedNodes('harnessApiKeyApi')).toEqual([
				'n8n-nodes-engine-fixture.harnessHttpProbe',
			]);

			writePackage([path.join(harnessDir, 'DoesNotExist.node.js')], []);
			await expect(loadPackageDirectory(dir, new EngineTypeRegistry())).rejects.toThrow();
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('reports unknown node types', async () => {
		await expect(runNode({ nodeType: 'noSuchNode', parameters: {} })).rejects.toThrow(/unknown node type/);
	});
});

describe('credentials', () => {
	it('(a) generic authenticate: header, templated header and query string from $credentials', async () => {
		const result = await runNode({
			nodeType: 'harnessHttpProbe',
			parameters: { authentication: 'apiKey', path: '/echo' },
			credentials: {
				harnessApiKeyApi: { baseUrl: server.baseUrl, apiKey: OPTIONS.apiKey, tenant: 'acme' },
			},
			inputItems: items(3),
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		const requests = requestsTo('/echo');
		expect(requests).toHaveLength(3);
		requests.forEach((request, i) => {
			expect(request.headers['x-api-key']).toBe(OPTIONS.apiKey);
			expect(request.headers['x-client']).toBe('harness/acme');
			expect(request.query).toEqual({ item: String(i), tenant: 'acme' });
		});
		expect(result.items[2].pairedItem).toEqual({ item: 2 });
		expect((result.items[0].json.headers as IDataObject)['x-api-key']).toBe(OPTIONS.apiKey);
	});

	it('(a) credential property defaults apply when a value is not given', async () => {
		const result = await runNode({
			nodeType: 'harnessHttpProbe',
			parameters: { authentication: 'apiKey' },
			credentials: { harnessApiKeyApi: { baseUrl: server.baseUrl, apiKey: OPTIONS.apiKey } },
		});
		expect(result.error).toBeUndefined();
		expect(requestsTo('/echo')[0].headers['x-client']).toBe('harness/default-tenant');
	});

	it('(b) preAuthentication: one token fetch for 20 items, one re-fetch after a 401', async () => {
		const store = new CredentialStore({
			harnessSessionApi: {
				baseUrl: server.baseUrl,
				username: OPTIONS.username,
				password: OPTIONS.password,
			},
		});
		const run = async () =>
			await runNode({
				nodeType: 'harnessHttpProbe',
				parameters: { authentication: 'session', path: '/session/echo' },
				credentialStore: store,
				inputItems: items(20),
			});

		const first = await run();
		expect(first.error).toBeUndefined();
		expect(first.items).toHaveLength(20);
		expect(first.items.map((item) => item.json.token)).toEqual(Array(20).fill('session-1'));
		expect(server.sessionTokenFetches).toBe(1);
		expect(store.preAuthenticationCalls('harnessSessionApi')).toBe(1);
		expect(store.get('harnessSessionApi')?.sessionToken).toBe('session-1');
		expect(requestsTo('/session/echo').every((r) => r.headers.authorization === 'Bearer session-1')).toBe(
			true,
		);

		// Same saved credential, next execution: the session dies after 5 more requests.
		server.reset();
		server.sessionTokens.add('session-1');
		server.sessionTokenFetches = 1;
		server.revokeSessionsAfter(5);
		const second = await run();
		expect(second.error).toBeUndefined();
		expect(second.items).toHaveLength(20);
		expect(second.items.map((item) => item.json.token)).toEqual([
			...Array(5).fill('session-1'),
			...Array(15).fill('session-2'),
		]);
		expect(server.sessionTokenFetches).toBe(2);
		expect(store.preAuthenticationCalls('harnessSessionApi')).toBe(2);
		expect(store.get('harnessSessionApi')?.sessionToken).toBe('session-2');
		expect(requestsTo('/session/echo').filter((r) => r.status === 401)).toHaveLength(1);
		expect(requestsTo('/token')).toHaveLength(1);
	});

});

describe('binary data', () => {
	it('(d) filesystem mode: input binary has an id, is on disk and streams; output binary reads back', async () => {
		const inspect = await runNode({
			nodeType: 'harnessBinaryProbe',
			parameters: { operation: 'inspect' },
			inputItems: [
				{ json: {}, binary: { data: { data: 'hello world', fileName: 'hello.txt', mimeType: 'text/plain' } } },
			],
		});
		expect(inspect.error).toBeUndefined();
		const [inspected] = inspect.items;
		expect(inspected.json).toMatchObject({
			streamed: true,
			fileName: 'hello.txt',
			mimeType: 'text/plain',
			content: 'hello world',
		});
		const id = inspected.json.id as string;
		expect(id).toMatch(/^filesystem(-v2)?:/);
		expect(existsSync(getBinaryDataService().getPath(id))).toBe(true);

		const produce = await runNode({
			nodeType: 'harnessBinaryProbe',
			parameters: { operation: 'produce', text: 'made by the node', binaryPropertyName: 'file' },
		});
		expect(produce.error).toBeUndefined();
		const output = produce.items[0];
		expect(output.binary?.file.id).toMatch(/^filesystem(-v2)?:/);
		expect(output.binary?.file.fileName).toBe('out-0.txt');
		expect((await readBinary(output, 'file')).toString('utf8')).toBe('made by the node');
	});

	it('default mode keeps binaries inline (base64) and readBinary still works', async () => {
		const inspect = await runNode({
			nodeType: 'harnessBinaryProbe',
			parameters: { operation: 'inspect' },
			binaryMode: 'default',
			inputItems: [{ json: {}, binary: { data: { data: Buffer.from('inline bytes') } } }],
		});
		expect(inspect.error).toBeUndefined();
		expect(inspect.items[0].json).toMatchObject({ id: null, streamed: false, content: 'inline bytes' });

		const produce = await runNode({
			nodeType: 'harnessBinaryProbe',
			parameters: { operation: 'produce', text: 'inline output' },
			binaryMode: 'default',
		});
		expect(produce.items[0].binary?.data.id).toBeUndefined();
		expect((await readBinary(produce.items[0])).toString('utf8')).toBe('inline output');
	});
});

describe('errors', () => {
	const failing = {
		nodeType: 'harnessHttpProbe',
		parameters: { authentication: 'apiKey', path: '/fail' },
	};
	const credentials = () => ({ harnessApiKeyApi: { baseUrl: server.baseUrl, apiKey: OPTIONS.apiKey } });

	it('(e) without continueOnFail the recorded NodeApiError is returned', async () => {
		const result = await runNode({ ...failing, credentials: credentials() });
		expect(result.items).toEqual([]);
		expect(result.error).toBeInstanceOf(NodeApiError);
		const error = result.error as NodeApiError;
		expect(error.httpCode).toBe('500');
		expect(error.message).toBe('The service was not able to process your request');
		expect(error.description).toBe('Upstream exploded');
		expect(error.node?.name).toBe(result.nodeName);
		expect(result.runData[result.nodeName][0].error).toBeDefined();
		expect(result.run?.status).toBe('error');
	});

	it('(e) with continueOnFail the error items are in the output', async () => {
		const result = await runNode({ ...failing, credentials: credentials(), continueOnFail: true, inputItems: items(2) });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2);
		expect(result.items[0].json.error).toEqual(expect.any(String));
		expect(result.items[0].json.httpCode).toBe('500');
		expect(result.items[1].pairedItem).toEqual({ item: 1 });
	});

	it('a missing required credential is reported by n8n-core as a NodeOperationError', async () => {
		const result = await runNode({ nodeType: 'harnessHttpProbe', parameters: { authentication: 'apiKey' } });
		expect(result.error).toBeInstanceOf(NodeOperationError);
		expect(result.error?.message).toMatch(/credentials/i);
	});
});
