/**
 * The "From List" pickers in real n8n: Workplace Knowledge (knowledge bases, files) and Workplace
 * Bot (Send to Thread's thread: the main chat, then the group's topics), through
 * the endpoint the editor calls when a list is opened, searched or scrolled:
 * POST /rest/dynamic-node-parameters/resource-locator-results
 * `{path, nodeTypeAndVersion, methodName, currentNodeParameters, credentials, filter?, paginationToken?}`.
 * Asserted against the simulator: the results (names and ids, in order), the pagination token,
 * and the requests the platform received (path, page, page size, key).
 *
 * The work happens in before() on an own `n8n start` (test/e2e/trigger-server.ts); the executed
 * workflow is a placeholder.
 */
import * as assert from 'node:assert/strict';

import { SEED } from '../../../simulator';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { E2eSimulator, ScenarioContext } from '../types';
import { PACKAGE } from '../workflow';

interface Search {
	method: 'searchKnowledgeBases' | 'searchFiles' | 'searchThreads';
	path: string;
	parameters: Record<string, unknown>;
	filter?: string;
	paginationToken?: string;
	/** A credential other than the working one (its id). */
	credentialId?: string;
	/** Default: the Knowledge node and its credential. */
	bot?: boolean;
}

interface Outcome {
	name: string;
	status: number;
	results?: Array<{ name: string; value: string }>;
	paginationToken?: string;
	error?: string;
	/** "GET /path?query" of every request the simulator received. */
	requests: string[];
	expected: { results?: Array<{ name: string; value: string }>; paginationToken?: string; requests: string[]; error?: RegExp };
}

const NODE = { name: `${PACKAGE}.workplaceKnowledge`, version: 1 };
const BOT_NODE = { name: `${PACKAGE}.workplaceBot`, version: 1 };
const KB = 'parameters.knowledgeBaseId';
const THREAD = 'parameters.threadId';
const FILE = 'parameters.fileId';

const list = (value = '') => ({ __rl: true, mode: 'list', value });
const id = (value: string) => ({ __rl: true, mode: 'id', value });
const kbs = (...bases: Array<{ name: string; id: string }>) => bases.map((b) => ({ name: b.name, value: b.id }));

async function control(sim: E2eSimulator, route: string, body?: unknown): Promise<void> {
	const res = await fetch(`${sim.controlUrl}${route}`, {
		method: 'POST',
		...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
	});
	if (!res.ok) throw new Error(`POST /__sim${route} answered ${res.status}`);
}

async function runSearches(ctx: ScenarioContext, srv: TriggerServer): Promise<Outcome[]> {
	const { sim } = ctx;
	const state = sim.state as { addKnowledgeBase(b: { name: string }): { id: string; name: string } };
	await control(sim, '/reset');
	const credential = { name: 'Workplace Knowledge (pickers e2e)', type: 'workplaceKnowledgeApi' };
	const credentialId = await srv.createCredential(credential.name, credential.type, { knowledgeUrl: sim.knowledgeUrl, apiKey: sim.credentials.knowledgeApiKey });
	const wrongId = await srv.createCredential('Workplace Knowledge (wrong key)', credential.type, { knowledgeUrl: sim.knowledgeUrl, apiKey: 'wrong-key-of-the-pickers-e2e' });
	const botCredential = { name: 'Workplace Bot (pickers e2e)', type: 'workplaceBotOAuth2Api' };
	const botCredentialId = await srv.createCredential(botCredential.name, botCredential.type, {
		baseUrl: sim.url,
		clientId: sim.credentials.botClientId,
		clientSecret: sim.credentials.botClientSecret,
	});

	const outcomes: Outcome[] = [];
	const search = async (name: string, s: Search, expected: Outcome['expected']) => {
		sim.log.clear();
		const res = await srv.server.fetch('/rest/dynamic-node-parameters/resource-locator-results', {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				path: s.path,
				nodeTypeAndVersion: s.bot ? BOT_NODE : NODE,
				methodName: s.method,
				currentNodeParameters: s.parameters,
				credentials: s.bot
					? { workplaceBotOAuth2Api: { id: botCredentialId, name: botCredential.name } }
					: { workplaceKnowledgeApi: { id: s.credentialId ?? credentialId, name: credential.name } },
				...(s.filter !== undefined ? { filter: s.filter } : {}),
				...(s.paginationToken !== undefined ? { paginationToken: s.paginationToken } : {}),
			}),
		});
		const text = await res.text();
		const body = (text ? JSON.parse(text) : {}) as { data?: { results?: Outcome['results']; paginationToken?: unknown }; message?: string };
		const token = body.data?.paginationToken;
		outcomes.push({
			name,
			status: res.status,
			results: body.data?.results,
			paginationToken: token === undefined || token === null ? undefined : String(token),
			error: res.ok ? undefined : (body.message ?? text.slice(0, 300)),
			requests: sim.log.all().map((r) => {
				const q = new URLSearchParams(r.query as Record<string, string>).toString();
				const signed = s.bot ? r.interface === 'oauth' || /^Bearer sim_/.test(r.headers.authorization ?? '') : r.headers['x-api-key'] === sim.credentials.knowledgeApiKey;
				return `${r.method} ${r.path}${q ? `?${q}` : ''} ${r.status}${signed ? '' : ' (other key)'}`;
			}),
			expected,
		});
	};

	const { handbook, faq, empty } = SEED.knowledge;
	const page = (n: number, status = 200) => `GET /api/v1/knowledge?page=${n}&pageSize=50 ${status}`;
	const getBase = { resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: list() };

	await search('knowledge bases: open the list', { method: 'searchKnowledgeBases', path: KB, parameters: getBase }, {
		results: kbs(handbook, faq, empty),
		requests: [page(1)],
	});
	await search('knowledge bases: search "faq"', { method: 'searchKnowledgeBases', path: KB, parameters: getBase, filter: 'faq' }, {
		results: kbs(faq),
		requests: [page(1)],
	});
	await search('knowledge bases: search "HANDBOOK" (any case)', { method: 'searchKnowledgeBases', path: KB, parameters: getBase, filter: 'HANDBOOK' }, {
		results: kbs(handbook),
		requests: [page(1)],
	});
	await search('knowledge bases: search without a match', { method: 'searchKnowledgeBases', path: KB, parameters: getBase, filter: 'no such base' }, {
		results: [],
		requests: [page(1)],
	});

	// 63 bases: the list comes in pages of 50, the editor asks for the next with the token (the next
	// page and the records read before it).
	const added = Array.from({ length: 60 }, (_, n) => state.addKnowledgeBase({ name: `Base ${n}` }));
	const all = [...kbs(handbook, faq, empty), ...added.map((b) => ({ name: b.name, value: b.id }))];
	await search('knowledge bases: 63 bases, first page', { method: 'searchKnowledgeBases', path: KB, parameters: getBase }, {
		results: all.slice(0, 50),
		paginationToken: '2:50',
		requests: [page(1)],
	});
	await search('knowledge bases: 63 bases, scrolled to the second page', { method: 'searchKnowledgeBases', path: KB, parameters: getBase, paginationToken: '2:50' }, {
		results: all.slice(50),
		requests: [page(2)],
	});
	const base5 = all.filter((b) => b.name.toLowerCase().includes('base 5'));
	await search('knowledge bases: search "base 5", first page', { method: 'searchKnowledgeBases', path: KB, parameters: getBase, filter: 'base 5' }, {
		results: base5.filter((b) => all.indexOf(b) < 50),
		paginationToken: '2:50',
		requests: [page(1)],
	});
	await search('knowledge bases: search "base 5", second page', { method: 'searchKnowledgeBases', path: KB, parameters: getBase, filter: 'base 5', paginationToken: '2:50' }, {
		results: base5.filter((b) => all.indexOf(b) >= 50),
		requests: [page(2)],
	});

	const files = (kb: Record<string, unknown>) => ({ resource: 'file', operation: 'download', knowledgeBaseId: kb, fileId: list() });
	const filesOf = (kbId: string) => `GET /api/v1/knowledge/${kbId}/files?page=1&pageSize=50 200`;
	await search('files: of the base picked from the list', { method: 'searchFiles', path: FILE, parameters: files(list(handbook.id)) }, {
		results: [
			{ name: 'remote-work-policy.md', value: handbook.files.policy },
			{ name: 'holidays-2025.csv', value: handbook.files.holidays },
		],
		requests: [filesOf(handbook.id)],
	});
	await search('files: search "CSV"', { method: 'searchFiles', path: FILE, parameters: files(list(handbook.id)), filter: 'CSV' }, {
		results: [{ name: 'holidays-2025.csv', value: handbook.files.holidays }],
		requests: [filesOf(handbook.id)],
	});
	await search('files: of a base given by ID (non-ASCII file name)', { method: 'searchFiles', path: FILE, parameters: files(id(faq.id)), filter: 'überblick' }, {
		results: [{ name: 'Überblick – Produkt.pdf', value: faq.files.overview }],
		requests: [filesOf(faq.id)],
	});
	await search('files: a base without files', { method: 'searchFiles', path: FILE, parameters: files(list(empty.id)) }, {
		results: [],
		requests: [filesOf(empty.id)],
	});
	await search('files: no base chosen yet (nothing sent)', { method: 'searchFiles', path: FILE, parameters: files(list('')) }, {
		results: [],
		requests: [],
	});
	await search('knowledge bases: credential with a wrong key', { method: 'searchKnowledgeBases', path: KB, parameters: getBase, credentialId: wrongId }, {
		error: /HTTP 401|UnauthorizedException/,
		requests: [`${page(1, 401)} (other key)`],
	});

	// Workplace Bot, Send to Thread: "Main Chat" first, then the topics (GET /bot/v1/groups/{gid}/topics, a chosen endpoint).
	const { project } = SEED.groups;
	const release = project.topics.release;
	const push = (groupId: string) => ({ resource: 'message', operation: 'push', groupId, threadId: list() });
	const topicsOf = (gid: string, status = 200) => `GET /bot/v1/groups/${gid}/topics ${status}`;
	const MAIN_CHAT = { name: 'Main Chat', value: '' };
	// The token request is part of the first search only when the process has no token yet.
	const withToken = (...lines: string[]) => ['POST /oauth/token 200', ...lines];
	await search('bot threads: main chat and the seeded topic', { bot: true, method: 'searchThreads', path: THREAD, parameters: push(project._id) }, {
		results: [MAIN_CHAT, { name: release.name, value: release._id }],
		requests: withToken(topicsOf(project._id)),
	});
	const incidents = (sim.state as { addTopic(gid: string, name: string): { _id: string } }).addTopic(project._id, 'Incidents');
	await search('bot threads: a topic created since, found by "INCID"', { bot: true, method: 'searchThreads', path: THREAD, parameters: push(project._id), filter: 'INCID' }, {
		results: [{ name: 'Incidents', value: incidents._id }],
		requests: [topicsOf(project._id)],
	});
	await search('bot threads: no group yet (nothing sent)', { bot: true, method: 'searchThreads', path: THREAD, parameters: push('') }, {
		results: [MAIN_CHAT],
		requests: [],
	});
	await control(sim, '/faults', { method: 'GET', path: `/bot/v1/groups/${project._id}/topics`, status: 405 });
	await search('bot threads: a platform without a topic list (405): the main chat alone', { bot: true, method: 'searchThreads', path: THREAD, parameters: push(project._id) }, {
		results: [MAIN_CHAT],
		requests: [topicsOf(project._id, 405)],
	});
	await control(sim, '/reset');
	return outcomes;
}

export const scenario = triggerServerScenario({
	name: 'pickers: From List searches through POST /rest/dynamic-node-parameters/resource-locator-results (n8n start)',
	placeholderNote: 'the picker searches run in before()',
	run: runSearches,
	check(outcomes, ctx) {
		const lines = outcomes.map((o) => {
			const what = o.error !== undefined ? `HTTP ${o.status}: ${o.error}` : `${o.results?.length ?? 0} result(s)${o.results?.length && o.results.length <= 3 ? ` [${o.results.map((r) => r.name).join(', ')}]` : ''}${o.paginationToken ? `, next page token ${o.paginationToken}` : ''}`;
			return `${o.name}: ${what} | ${o.requests.join(', ') || 'no request'}`;
		});
		process.stdout.write(`      [n8n ${ctx.n8nVersion}] From List pickers:\n${lines.map((l) => `        ${l}`).join('\n')}\n`);
		for (const o of outcomes) {
			if (o.expected.error) {
				assert.ok(o.status >= 400, `${o.name}: HTTP ${o.status}, expected an error`);
				assert.match(o.error ?? '', o.expected.error, `${o.name}: error message`);
			} else {
				assert.equal(o.status, 200, `${o.name}: HTTP ${o.status} ${o.error ?? ''}`);
				assert.deepEqual(o.results, o.expected.results, `${o.name}: results`);
				assert.equal(o.paginationToken, o.expected.paginationToken, `${o.name}: pagination token`);
			}
			assert.deepEqual(o.requests, o.expected.requests, `${o.name}: requests to the platform`);
		}
	},
});
