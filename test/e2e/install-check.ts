/**
 * The packed tarball installed through n8n's OWN Community Nodes install code, as the Settings →
 * Community Nodes → Install panel does it: `POST /rest/community-packages {name}` as the owner.
 *
 * n8n then (CommunityPackagesService.installOrUpdatePackage, 1.123 and 2.41) checks the version
 * exists in the registry (GET <registry>/<name>/latest), runs `npm pack <name>@latest
 * --registry=<registry>` in <user folder>/.n8n/nodes, extracts it into nodes/node_modules/<name>,
 * strips dev/peer/optional dependencies from its package.json, runs `npm install`, loads the
 * package, and records it in the installed_packages / installed_nodes tables.
 *
 * The registry is scripts/lib/local-registry.ts serving the tarball `npm pack` made of this
 * checkout. n8n takes a registry other than registry.npmjs.org (N8N_COMMUNITY_PACKAGES_REGISTRY)
 * only with the license feature `feat:communityNodes:customRegistry`; n8n's own test mode
 * (E2E_TESTS=true) adds PATCH /rest/e2e/feature, which switches that feature on in memory. That
 * flag, and the registry's address, are the only differences from an install from npm.
 *
 * Checked: the install answers with the package, our version and the five nodes; the registry
 * served the packument and the tarball; GET /rest/community-packages lists it; n8n serves the five
 * node and five credential types; the installed folder holds exactly the tarball's files and no
 * dependency; a workflow (Webhook → Workplace Knowledge "get many" against a simulator) runs in that
 * instance; after a restart n8n loads the package again (its DB record, no "failed loading") and the
 * workflow runs again; `DELETE /rest/community-packages?name=` removes it.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { startLocalRegistry, type LocalRegistry } from '../../scripts/lib/local-registry';
import { createUserFolder, fetchWebhook, startN8nServer, type N8nInstall, type N8nServer } from '../../scripts/lib/n8n';
import { formatDuration, tail } from '../../scripts/lib/proc';
import type { E2eSimulator } from './types';
import { chain, node } from './workflow';
import { knowledge, knowledgeCredential } from './workplace';

export const INSTALL_CHECK_NAME = "install: n8n's Community Nodes install (POST /rest/community-packages) from a local npm registry";

/** The license feature that lets n8n use N8N_COMMUNITY_PACKAGES_REGISTRY (LICENSE_FEATURES.COMMUNITY_NODES_CUSTOM_REGISTRY). */
const CUSTOM_REGISTRY_FEATURE = 'feat:communityNodes:customRegistry';

interface InstalledNode {
	name: string;
	type: string;
	latestVersion: number;
	package?: string;
}

interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	authorName?: string;
	authorEmail?: string;
	installedNodes: InstalledNode[];
	failedLoading?: boolean;
	updateAvailable?: string;
}

export interface InstallCheckOptions {
	tarball: string;
	/** Node and credential type names the package declares (declaredTypes()). */
	expected: { nodes: string[]; credentials: string[] };
	startSimulator: (options: { port: number }) => Promise<E2eSimulator>;
	keep?: boolean;
	verbose?: boolean;
	log?: (message: string) => void;
}

/** Every file under a folder, relative, sorted (folders listed only when empty, with a trailing /). */
function listFiles(dir: string, base = dir): string[] {
	const out: string[] = [];
	const entries = fs.readdirSync(dir, { withFileTypes: true });
	if (!entries.length && dir !== base) return [`${path.relative(base, dir)}/`];
	for (const e of entries) {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) out.push(...listFiles(p, base));
		else out.push(path.relative(base, p));
	}
	return out.sort();
}

async function typeNames(server: N8nServer): Promise<{ nodes: Set<string>; credentials: Set<string> }> {
	const get = async (p: string) => {
		const res = await server.fetch(p);
		if (!res.ok) throw new Error(`GET ${p} answered ${res.status}`);
		return (await res.json()) as Array<{ name: string }>;
	};
	return {
		nodes: new Set((await get('/types/nodes.json')).map((n) => n.name)),
		credentials: new Set((await get('/types/credentials.json')).map((c) => c.name)),
	};
}

/** GET a production webhook (once n8n serves it); its JSON answer. */
async function callWebhook(url: string): Promise<unknown> {
	const { status, text } = await fetchWebhook(url, { signal: AbortSignal.timeout(60_000) });
	if (status !== 200) throw new Error(`GET ${url} answered ${status}: ${text.slice(0, 300)}`);
	return JSON.parse(text) as unknown;
}

/** Runs the check; returns a one-line summary with timings, throws on the first failed assertion. */
export async function communityInstallCheck(inst: N8nInstall, options: InstallCheckOptions): Promise<string> {
	const log = options.log ?? (() => undefined);
	const userFolder = createUserFolder(`n8n-e2e-install-${inst.target.id}-`);
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const times: string[] = [];
	let t = Date.now();
	const lap = (what: string) => {
		times.push(`${what} ${formatDuration(Date.now() - t)}`);
		t = Date.now();
	};
	let registry: LocalRegistry | undefined;
	let sim: E2eSimulator | undefined;
	let server: N8nServer | undefined;
	try {
		registry = await startLocalRegistry({ tarball: options.tarball });
		const { name, version } = registry;
		sim = await options.startSimulator({ port: 0 });
		const env = {
			E2E_TESTS: 'true',
			N8N_COMMUNITY_PACKAGES_REGISTRY: registry.url,
			N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
			// n8n's npm runs inherit n8n's environment: an empty npm cache, so the tarball comes from the registry
			npm_config_cache: path.join(userFolder, 'npm-cache'),
		};
		const start = async () => {
			const s = await startN8nServer(inst, {
				userFolder,
				env,
				logLevel: options.verbose ? 'debug' : 'warn',
				echoPrefix: options.verbose ? '      [n8n] ' : undefined,
			});
			server = s;
			return s;
		};

		// 1. a fresh n8n, no community package
		let srv = await start();
		await srv.setupOwner();
		await srv.rest('PATCH', '/e2e/feature', { feature: CUSTOM_REGISTRY_FEATURE, enabled: true });
		assert.deepEqual(await srv.rest<InstalledPackage[]>('GET', '/community-packages'), [], 'a fresh n8n lists no community package');
		const before = await typeNames(srv);
		assert.ok(!options.expected.nodes.some((n) => before.nodes.has(n)), 'the nodes are known before the install');
		lap('start');

		// 2. install as the panel does (editor-ui installNewPackage(name, verify=false, version=undefined))
		const installed = await srv.rest<InstalledPackage>('POST', '/community-packages', { name, verify: false });
		lap('install');
		assert.equal(installed.packageName, name);
		assert.equal(installed.installedVersion, version);
		assert.deepEqual(
			installed.installedNodes.map((n) => n.type).sort(),
			[...options.expected.nodes].sort(),
			'the install response lists every node of the package',
		);
		const served = registry.requests.filter((r) => r.status === 200).map((r) => r.served);
		assert.ok(served.includes('manifest') || served.includes('packument'), `the registry served no package metadata: ${JSON.stringify(registry.requests)}`);
		assert.equal(served.filter((s) => s === 'tarball').length, 1, `the registry served the tarball ${served.filter((s) => s === 'tarball').length} times`);

		// 3. what n8n lists and serves
		const assertListed = async (when: string) => {
			const list = await srv.rest<InstalledPackage[]>('GET', '/community-packages');
			const entry = list.find((p) => p.packageName === name);
			assert.ok(entry, `GET /rest/community-packages ${when} does not list ${name}: ${JSON.stringify(list)}`);
			assert.equal(entry.installedVersion, version);
			assert.equal(entry.installedNodes.length, options.expected.nodes.length);
			assert.ok(!entry.failedLoading, `${name} is marked failedLoading ${when}`);
			const types = await typeNames(srv);
			const missing = [
				...options.expected.nodes.filter((n) => !types.nodes.has(n)),
				...options.expected.credentials.filter((c) => !types.credentials.has(c)),
			];
			assert.deepEqual(missing, [], `n8n does not serve these types ${when}`);
		};
		await assertListed('after the install');

		// 4. the installed folder: exactly the tarball's files, no dependency installed
		const packageDir = path.join(nodesDir, 'node_modules', name);
		assert.deepEqual(listFiles(packageDir), registry.files, `${packageDir} differs from the tarball`);
		assert.deepEqual(fs.readdirSync(path.join(nodesDir, 'node_modules')).filter((f) => !f.startsWith('.')), [name], 'nodes/node_modules holds other packages');
		const installedPj = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
		for (const key of ['devDependencies', 'peerDependencies', 'optionalDependencies']) assert.ok(!(key in installedPj), `installed package.json keeps ${key}`);
		const nodesPj = JSON.parse(fs.readFileSync(path.join(nodesDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
		assert.deepEqual(nodesPj.dependencies, { [name]: version }, 'nodes/package.json dependencies');

		// 5. a workflow with one of the nodes runs in this instance (Webhook → Workplace Knowledge)
		const credId = (
			await srv.rest<{ id: string }>('POST', '/credentials', {
				name: knowledgeCredential.name,
				type: knowledgeCredential.type,
				data: { knowledgeUrl: sim.knowledgeUrl, apiKey: sim.credentials.knowledgeApiKey },
			})
		).id;
		const hookPath = randomUUID();
		const wf = chain([
			node(
				'Webhook',
				'n8n-nodes-base.webhook',
				2,
				{ httpMethod: 'GET', path: hookPath, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
				{ after: [], settings: { webhookId: hookPath } },
			),
			knowledge(
				'List Bases',
				{ resource: 'knowledgeBase', operation: 'getAll', returnAll: true, options: {} },
				{ credentials: { ...knowledgeCredential, id: credId } },
			),
		]);
		const created = await srv.rest<{ id: string; versionId: string }>('POST', '/workflows', {
			name: 'e2e install check: list knowledge bases',
			nodes: wf.nodes,
			connections: wf.connections,
			settings: { executionOrder: 'v1' },
			active: false,
		});
		await srv.rest('POST', `/workflows/${created.id}/activate`, { versionId: created.versionId });
		const assertRuns = async (when: string) => {
			sim!.log.clear();
			const body = (await callWebhook(`${srv.url}/webhook/${hookPath}`)) as Array<{ name?: string }>;
			assert.ok(Array.isArray(body), `the workflow ${when} answered ${JSON.stringify(body).slice(0, 300)}`);
			assert.deepEqual(
				body.map((b) => b.name),
				['Employee Handbook', 'Product FAQ', 'Empty Base'],
				`the workflow ${when} listed other knowledge bases`,
			);
			const calls = sim!.log.all().filter((r) => r.path.includes('/knowledge'));
			assert.ok(calls.length > 0, `the simulator saw no knowledge call ${when}`);
			assert.ok(calls.every((r) => r.headers['x-api-key'] === sim!.credentials.knowledgeApiKey), 'a call without the API key');
		};
		await assertRuns('after the install');
		lap('workflow');

		// 6. restart: n8n loads the installed package from its nodes folder, matched with its DB record
		await srv.stop();
		srv = await start();
		await srv.login();
		await assertListed('after a restart');
		await assertRuns('after a restart');
		lap('restart');

		// 7. uninstall
		await srv.rest('DELETE', `/community-packages?name=${encodeURIComponent(name)}`);
		assert.deepEqual(await srv.rest<InstalledPackage[]>('GET', '/community-packages'), [], 'the package is still listed after DELETE');
		assert.ok(!fs.existsSync(packageDir), `${packageDir} is still there after DELETE`);
		const after = await typeNames(srv);
		const left = options.expected.nodes.filter((n) => after.nodes.has(n));
		assert.deepEqual(left, [], 'node types still served after DELETE');
		lap('uninstall');

		log(`registry requests: ${registry.requests.map((r) => `${r.method} ${r.path} ${r.status}`).join(', ')}`);
		return `${name}@${version} with ${installed.installedNodes.length} nodes from ${registry.url} (${times.join(', ')})`;
	} catch (e) {
		const err = e as Error;
		const extra = [
			registry ? `registry requests: ${JSON.stringify(registry.requests.map((r) => `${r.method} ${r.path} ${r.status}`))}` : '',
			server ? `--- n8n output (tail) ---\n${tail(server.output(), 30)}` : '',
		].filter(Boolean);
		err.message = [err.message, ...extra].join('\n');
		throw err;
	} finally {
		await server?.stop().catch(() => undefined);
		await sim?.close().catch(() => undefined);
		await registry?.close().catch(() => undefined);
		if (options.keep) log(`install check user folder kept: ${userFolder}`);
		else fs.rmSync(userFolder, { recursive: true, force: true });
	}
}
