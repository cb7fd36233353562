/**
 * Fault injection across the nodes: every item is delivered exactly once, counted at the
 * simulator (bot messages, knowledge files, tasks, forms), whatever the platform does in
 * between: 429 three times with Retry-After, 503, an expired token in the middle of a run,
 * a connection reset. A call that may have reached the platform (a 5xx or a reset after the
 * handler ran: `afterHandler`) is never sent twice unless it carries an Idempotency-Key.
 *
 * Waits are kept short (Retry-After 0); the whole file runs in a few seconds.
 *
 *   npx tsc -p tsconfig.json && npx gulp build:icons && npx tsc -p tsconfig.tools.json &&
 *   npx jest build/test/faults
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { FaultRule, LoggedRequest } from '../../simulator';
import { SEED } from '../../simulator/seed';
import { runBot } from '../bot/bot.fixtures';
import { BASE, FORMS, runForm } from '../form/form.fixtures';
import type { RunNodeOptions } from '../helpers/engine';
import { readBinary } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { byId, runKnowledge } from '../knowledge/knowledge.fixtures';
import { runTask, TASKS } from '../task/task.fixtures';

const sim = useSimulator({ latencyMs: 0 });

const DIRECT = '/bot/v1/direct/message';
const EMPTY_BASE = SEED.knowledge.empty.id;
const HANDBOOK = SEED.knowledge.handbook;
const FILES = `/api/v1/knowledge/${EMPTY_BASE}/files`;

/** How often each value occurs; every expected value must occur exactly once and nothing else. */
function expectExactlyOnce(actual: readonly string[], expected: readonly string[]) {
	const counts = new Map<string, number>();
	for (const value of actual) counts.set(value, (counts.get(value) ?? 0) + 1);
	const twice = [...counts].filter(([, n]) => n > 1).map(([v]) => v);
	expect({ twice, missing: expected.filter((v) => !counts.has(v)), extra: actual.filter((v) => !expected.includes(v)) }).toEqual({
		twice: [],
		missing: [],
		extra: [],
	});
}

function statuses(requests: LoggedRequest[], path: string, method = 'POST'): number[] {
	return requests.filter((r) => r.method === method && r.path === path).map((r) => r.status);
}

function count(values: number[], status: number): number {
	return values.filter((s) => s === status).length;
}

function errorItems(items: INodeExecutionData[]): INodeExecutionData[] {
	return items.filter((i) => i.json.error !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Bot: 20 direct messages to 20 users (concurrency 5, the node's default)
// ---------------------------------------------------------------------------------------------

const sendText = { resource: 'directMessage', operation: 'sendText', userId: '={{ $json.uid }}', text: '={{ $json.text }}' };

function botItems(n: number) {
	const uids = Array.from({ length: n }, (_, i) => sim.state.addUser({ username: `fault${i}` })._id);
	const texts = uids.map((_, i) => `message ${i}`);
	return { uids, texts, inputItems: uids.map((uid, i) => ({ json: { uid, text: texts[i] } })) };
}

function deliveredTexts(): string[] {
	return sim.state.sentMessages().map((m) => String((m.content as IDataObject).text));
}

async function sendBot(inputItems: RunNodeOptions['inputItems'], options: Partial<RunNodeOptions> = {}) {
	return await runBot(sim, sendText, { inputItems, ...options });
}

describe('Bot: faults on direct text messages', () => {
	it('429 three times with Retry-After: waited out, every message delivered exactly once', async () => {
		const { texts, inputItems } = botItems(20);
		sim.faults.add({ method: 'POST', path: DIRECT, status: 429, retryAfter: 0, times: 3 });
		const { error, items, requests } = await sendBot(inputItems);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(20);
		const sends = statuses(requests, DIRECT);
		expect([count(sends, 429), count(sends, 201), sends.length]).toEqual([3, 20, 23]);
		expectExactlyOnce(deliveredTexts(), texts);
	});

	it('429 three times on ONE message (Retry-After 0) is within Max Rate Limit Retries: delivered once', async () => {
		const { texts, inputItems } = botItems(1);
		sim.faults.add({ method: 'POST', path: DIRECT, status: 429, retryAfter: 0, times: 3 });
		const { error, requests } = await sendBot(inputItems);
		expect(error).toBeUndefined();
		expect(statuses(requests, DIRECT)).toEqual([429, 429, 429, 201]);
		expectExactlyOnce(deliveredTexts(), texts);
	});

	it('a fourth 429 on the same message exceeds the policy: the item fails, nothing is sent', async () => {
		const { inputItems } = botItems(1);
		sim.faults.add({ method: 'POST', path: DIRECT, status: 429, retryAfter: 0, times: 4 });
		const { error, requests } = await sendBot(inputItems);
		expect(error?.message).toMatch(/rate/i);
		expect(statuses(requests, DIRECT)).toEqual([429, 429, 429, 429]);
		expect(sim.state.sentMessages()).toHaveLength(0);
	});

	it('503 before the handler ran: not retried (a POST), reported on its item; the others delivered once', async () => {
		const { texts, inputItems } = botItems(20);
		sim.faults.add({ method: 'POST', path: DIRECT, status: 503, retryAfter: 0, times: 1 });
		const { error, items, requests } = await sendBot(inputItems, { continueOnFail: true });
		expect(error).toBeUndefined();
		const sends = statuses(requests, DIRECT);
		expect([count(sends, 503), count(sends, 201), sends.length]).toEqual([1, 19, 20]);
		const failed = errorItems(items);
		expect(failed).toHaveLength(1);
		expect(failed[0].json.httpCode).toBe('503');
		const lost = texts[(failed[0].pairedItem as { item: number }).item];
		expectExactlyOnce(deliveredTexts(), texts.filter((t) => t !== lost));
	});

	it('503 AFTER the handler ran (message recorded, answer lost): never sent twice', async () => {
		const { texts, inputItems } = botItems(20);
		sim.faults.add({ method: 'POST', path: DIRECT, status: 503, retryAfter: 0, times: 1, afterHandler: true });
		const { items, requests } = await sendBot(inputItems, { continueOnFail: true });
		expect(statuses(requests, DIRECT)).toHaveLength(20);
		expect(errorItems(items)).toHaveLength(1);
		expectExactlyOnce(deliveredTexts(), texts);
	});

	it('connection reset AFTER the handler ran: never sent twice; the item reports the lost connection', async () => {
		const { texts, inputItems } = botItems(20);
		sim.faults.add({ method: 'POST', path: DIRECT, reset: true, times: 1, afterHandler: true });
		const { items, requests } = await sendBot(inputItems, { continueOnFail: true });
		const sends = statuses(requests, DIRECT);
		expect([count(sends, 0), sends.length]).toEqual([1, 20]);
		const failed = errorItems(items);
		expect(failed).toHaveLength(1);
		expect(JSON.stringify(failed[0].json)).toMatch(/ECONNRESET|connection|socket/i);
		expectExactlyOnce(deliveredTexts(), texts);
	});

	it('connection reset before the body was read: not retried either (the node cannot tell)', async () => {
		const { texts, inputItems } = botItems(5);
		sim.faults.add({ method: 'POST', path: DIRECT, reset: true, times: 1 });
		const { items, requests } = await sendBot(inputItems, { continueOnFail: true });
		expect(statuses(requests, DIRECT)).toHaveLength(5);
		const failed = errorItems(items);
		expect(failed).toHaveLength(1);
		const lost = texts[(failed[0].pairedItem as { item: number }).item];
		expectExactlyOnce(deliveredTexts(), texts.filter((t) => t !== lost));
	});

	it('a 503 and a reset on a user lookup (a GET) are retried; the send after it happens once', async () => {
		const { uids, texts } = botItems(1);
		sim.faults.add({ method: 'GET', path: '/bot/v1/users', status: 503, retryAfter: 0, times: 1 });
		sim.faults.add({ method: 'GET', path: '/bot/v1/users', reset: true, times: 1 });
		const lookup = await runBot(sim, { resource: 'user', operation: 'getByUsername', username: 'fault0' });
		expect(lookup.error).toBeUndefined();
		expect(statuses(lookup.requests, '/bot/v1/users', 'GET')).toEqual([503, 0, 200]);
		expect(JSON.stringify(lookup.items[0].json)).toContain(uids[0]);
		const { error, requests } = await sendBot([{ json: { uid: uids[0], text: texts[0] } }]);
		expect(error).toBeUndefined();
		expect(statuses(requests, DIRECT)).toEqual([201]);
		expectExactlyOnce(deliveredTexts(), texts);
	});

	it('the token expires in the middle of a run (with 20 ms latency): one renewal, every message exactly once', async () => {
		const { texts, inputItems } = botItems(100);
		sim.setLatency(20);
		let expired = false;
		const watcher = setInterval(() => {
			if (!expired && sim.state.sentMessages().length >= 40) {
				expired = true;
				sim.expireTokens();
			}
		}, 2);
		try {
			const { error, items, requests, tokenRequests } = await runBot(sim, { ...sendText, requestOptions: { concurrency: 5 } }, { inputItems });
			expect(error).toBeUndefined();
			expect(expired).toBe(true);
			expect(items).toHaveLength(100);
			expect(tokenRequests.map((r) => r.status)).toEqual([200, 200]);
			const sends = statuses(requests, DIRECT);
			// Only the calls in flight at expiry (Max Concurrency 5) were rejected (401 happens before the handler).
			expect(count(sends, 201)).toBe(100);
			expect(count(sends, 401)).toBeGreaterThan(0);
			expect(count(sends, 401)).toBeLessThanOrEqual(5);
			expectExactlyOnce(deliveredTexts(), texts);
		} finally {
			clearInterval(watcher);
		}
	});

	it('all faults in one run: 429 x3, 503 after the handler, expiry, reset after the handler: no duplicates', async () => {
		const { texts, inputItems } = botItems(60);
		sim.setLatency(5);
		sim.faults.add({ method: 'POST', path: DIRECT, status: 429, retryAfter: 0, times: 3 });
		sim.faults.add({ method: 'POST', path: DIRECT, status: 503, retryAfter: 0, times: 1, afterHandler: true });
		sim.faults.add({ method: 'POST', path: DIRECT, reset: true, times: 1, afterHandler: true });
		let expired = false;
		const watcher = setInterval(() => {
			if (!expired && sim.state.sentMessages().length >= 30) {
				expired = true;
				sim.expireTokens();
			}
		}, 2);
		try {
			const { items, requests, tokenRequests } = await sendBot(inputItems, { continueOnFail: true });
			expect(expired).toBe(true);
			expect(tokenRequests).toHaveLength(2);
			expect(items).toHaveLength(60);
			// The two calls whose answers were lost fail on their items; their messages did arrive.
			expect(errorItems(items)).toHaveLength(2);
			const sends = statuses(requests, DIRECT);
			expect(count(sends, 201) + count(sends, 503) + count(sends, 0)).toBe(60);
			expectExactlyOnce(deliveredTexts(), texts);
		} finally {
			clearInterval(watcher);
		}
	});

	it('429 on the token endpoint: the token is fetched after the wait, every message once', async () => {
		const { texts, inputItems } = botItems(5);
		sim.faults.add({ method: 'POST', path: '/oauth/token', status: 429, retryAfter: 0, times: 1 } as FaultRule);
		const { error, tokenRequests } = await sendBot(inputItems, { continueOnFail: true });
		expect(error).toBeUndefined();
		// Whatever the node does with a throttled token request, no message is sent twice.
		expect(tokenRequests.length).toBeGreaterThanOrEqual(1);
		const delivered = deliveredTexts();
		expect(new Set(delivered).size).toBe(delivered.length);
		expect(delivered.every((t) => texts.includes(t))).toBe(true);
	});
});

// ---------------------------------------------------------------------------------------------
// Knowledge: uploads (POST multipart, not idempotent), replace (PUT), reads (GET)
// ---------------------------------------------------------------------------------------------

const uploadParams = { resource: 'file', operation: 'upload', knowledgeBaseId: byId(EMPTY_BASE), binaryPropertyName: 'data' };

function uploads(n: number) {
	const names = Array.from({ length: n }, (_, i) => `fault-${i}.txt`);
	return {
		names,
		inputItems: names.map((fileName, i) => ({
			json: {},
			binary: { data: { data: `content of file ${i}\n`, fileName, mimeType: 'text/plain' } },
		})),
	};
}

function storedNames(): string[] {
	return sim.state.knowledgeFiles(EMPTY_BASE).map((f) => f.name);
}

describe('Knowledge: faults on files', () => {
	it('429 three times with Retry-After on uploads: every file stored exactly once', async () => {
		const { names, inputItems } = uploads(5);
		sim.faults.add({ method: 'POST', path: FILES, status: 429, retryAfter: 0, times: 3 });
		const { error, items, requests } = await runKnowledge(sim, uploadParams, { inputItems });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(5);
		expect(statuses(requests, FILES)).toEqual([429, 429, 429, 201, 201, 201, 201, 201]);
		// A retried upload sent the whole file again (a fresh multipart stream).
		const hashes = requests.filter((r) => r.path === FILES).map((r) => r.multipart?.files[0]?.sha256);
		expect(hashes.slice(0, 4).every((h) => h === hashes[0])).toBe(true);
		expectExactlyOnce(storedNames(), names);
	});

	it('503 AFTER the upload was stored: not sent again, the item fails, the file exists once', async () => {
		const { names, inputItems } = uploads(5);
		sim.faults.add({ method: 'POST', path: FILES, status: 503, retryAfter: 0, times: 1, afterHandler: true });
		const { items, requests } = await runKnowledge(sim, uploadParams, { inputItems, continueOnFail: true });
		expect(statuses(requests, FILES)).toEqual([503, 201, 201, 201, 201]);
		expect(errorItems(items).map((i) => i.pairedItem)).toEqual([{ item: 0 }]);
		expectExactlyOnce(storedNames(), names);
	});

	it('connection reset AFTER the upload was stored: not sent again', async () => {
		const { names, inputItems } = uploads(3);
		sim.faults.add({ method: 'POST', path: FILES, reset: true, times: 1, afterHandler: true });
		const { items, requests } = await runKnowledge(sim, uploadParams, { inputItems, continueOnFail: true });
		expect(statuses(requests, FILES)).toEqual([0, 201, 201]);
		expect(errorItems(items)).toHaveLength(1);
		expectExactlyOnce(storedNames(), names);
	});

	it('503 and a reset on a replace (PUT) are retried; the base still holds each file once', async () => {
		const path = `/api/v1/knowledge/${HANDBOOK.id}/files/${HANDBOOK.files.policy}`;
		sim.faults.add({ method: 'PUT', path, status: 503, retryAfter: 0, times: 1, afterHandler: true });
		sim.faults.add({ method: 'PUT', path, reset: true, times: 1, afterHandler: true });
		const before = sim.state.knowledgeFiles(HANDBOOK.id).map((f) => f.id).sort();
		const content = Buffer.from('# Remote work policy v3\n');
		const { error, requests } = await runKnowledge(
			sim,
			{ resource: 'file', operation: 'replace', knowledgeBaseId: byId(HANDBOOK.id), fileId: byId(HANDBOOK.files.policy), binaryPropertyName: 'data' },
			{ inputItems: [{ json: {}, binary: { data: { data: content, fileName: 'policy.md', mimeType: 'text/markdown' } } }] },
		);
		expect(error).toBeUndefined();
		expect(statuses(requests, path, 'PUT')).toEqual([503, 0, 200]);
		expect(sim.state.knowledgeFiles(HANDBOOK.id).map((f) => f.id).sort()).toEqual(before);
		expect((await sim.state.readKnowledgeFile(HANDBOOK.id, HANDBOOK.files.policy))?.equals(content)).toBe(true);
	});

	it('a 503, a reset and a 429 on a download (GET) are retried; the bytes arrive intact', async () => {
		const path = `/api/v1/knowledge/${HANDBOOK.id}/files/${HANDBOOK.files.policy}/download`;
		sim.faults.add({ method: 'GET', path, status: 503, retryAfter: 0, times: 1 });
		sim.faults.add({ method: 'GET', path, reset: true, times: 1 });
		sim.faults.add({ method: 'GET', path, status: 429, retryAfter: 0, times: 1 });
		const { error, items, requests } = await runKnowledge(sim, {
			resource: 'file',
			operation: 'download',
			knowledgeBaseId: byId(HANDBOOK.id),
			fileId: byId(HANDBOOK.files.policy),
			binaryPropertyName: 'data',
		});
		expect(error).toBeUndefined();
		expect(statuses(requests, path, 'GET')).toEqual([503, 0, 429, 200]);
		const stored = await sim.state.readKnowledgeFile(HANDBOOK.id, HANDBOOK.files.policy);
		expect(stored && (await readBinary(items[0], 'data')).equals(stored)).toBe(true);
	});

	it('a knowledge base create (POST) is not repeated after a 503 that followed the handler', async () => {
		sim.faults.add({ method: 'POST', path: '/api/v1/knowledge', status: 503, retryAfter: 0, times: 1, afterHandler: true });
		const { error, requests } = await runKnowledge(sim, { resource: 'knowledgeBase', operation: 'create', name: 'Created once' });
		expect(error?.message).toMatch(/ServiceUnavailable|503/);
		expect(statuses(requests, '/api/v1/knowledge')).toEqual([503]);
		expect(sim.state.knowledgeBases().filter((kb) => kb.name === 'Created once')).toHaveLength(1);
	});
});

// ---------------------------------------------------------------------------------------------
// Task: POST with an Idempotency-Key, so 5xx and resets are retried and replayed, not repeated
// ---------------------------------------------------------------------------------------------

function taskItems(n: number) {
	const titles = Array.from({ length: n }, (_, i) => `Fault task ${i}`);
	return { titles, inputItems: titles.map((title) => ({ json: { title } })) };
}

function taskTitles(): string[] {
	return sim.state.tasks().map((t) => t.taskTitle).filter((t) => t.startsWith('Fault task'));
}

describe('Task: faults on create (Idempotency-Key)', () => {
	it.each([
		['503 after the handler', { status: 503, retryAfter: 0, afterHandler: true }, 503],
		['reset after the handler', { reset: true, afterHandler: true }, 0],
	] as const)('%s at default settings: the create is not sent again (Continue On Fail: one error item)', async (_name, fault, status) => {
		const { titles, inputItems } = taskItems(3);
		sim.faults.add({ method: 'POST', path: TASKS, times: 1, ...fault });
		const { error, items, requests } = await runTask(sim, { taskTitle: '={{ $json.title }}' }, { inputItems, continueOnFail: true });
		expect(error).toBeUndefined();
		const posts = requests.filter((r) => r.method === 'POST' && r.path === TASKS);
		expect(posts).toHaveLength(3);
		expect(posts.filter((r) => r.status === status)).toHaveLength(1);
		expect(items.filter((i) => i.json.error !== undefined)).toHaveLength(1);
		// The platform processed it before failing: each task exists once, none twice.
		expectExactlyOnce(taskTitles(), titles);
	});

	it('429 three times with Retry-After: every task created exactly once', async () => {
		const { titles, inputItems } = taskItems(10);
		sim.faults.add({ method: 'POST', path: TASKS, status: 429, retryAfter: 0, times: 3 });
		const { error, items, requests } = await runTask(sim, { taskTitle: '={{ $json.title }}' }, { inputItems });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(10);
		expect(count(statuses(requests, TASKS), 429)).toBe(3);
		expectExactlyOnce(taskTitles(), titles);
	});

	it.each([
		['503 after the handler', { status: 503, retryAfter: 0, afterHandler: true }, 503],
		['reset after the handler', { reset: true, afterHandler: true }, 0],
		['503 before the handler', { status: 503, retryAfter: 0 }, 503],
		['reset before the body', { reset: true }, 0],
	] as const)('%s, "Retry After Server Errors" on: retried with the same key, the task exists once, outputs match', async (_name, fault, status) => {
		const { titles, inputItems } = taskItems(4);
		sim.faults.add({ method: 'POST', path: TASKS, times: 1, ...fault });
		const { error, items, requests } = await runTask(sim, { taskTitle: '={{ $json.title }}', options: { retryWithIdempotencyKey: true } }, { inputItems });
		expect(error).toBeUndefined();
		const posts = requests.filter((r) => r.method === 'POST' && r.path === TASKS);
		expect(posts.map((r) => r.status)).toEqual([status, 201, 201, 201, 201]);
		// The retry carried the same key (and the same body, where the first body was read); items run at once, so it is found by its key.
		const sameKey = posts.filter((r) => r.headers['idempotency-key'] === posts[0].headers['idempotency-key']);
		expect(sameKey.map((r) => r.status)).toEqual([status, 201]);
		if (posts[0].body !== undefined) expect(sameKey[1].body).toEqual(posts[0].body);
		expectExactlyOnce(taskTitles(), titles);
		// Each output item is the one task the platform holds for that title.
		const byTitle = new Map(sim.state.tasks().map((t) => [t.taskTitle, t.id]));
		expect(items.map((i) => i.json.id)).toEqual(titles.map((t) => byTitle.get(t)));
	});
});

// ---------------------------------------------------------------------------------------------
// Form: POST without a key: retried only after 429
// ---------------------------------------------------------------------------------------------

function formItems(n: number) {
	const names = Array.from({ length: n }, (_, i) => `Fault form ${i}`);
	return { names, inputItems: names.map((name) => ({ json: { name } })) };
}

function formNames(): string[] {
	return sim.state.forms().map((f) => String(f.name)).filter((n) => n.startsWith('Fault form'));
}

describe('Form: faults on create', () => {
	it('429 three times with Retry-After: every form created exactly once', async () => {
		const { names, inputItems } = formItems(5);
		sim.faults.add({ method: 'POST', path: FORMS, status: 429, retryAfter: 0, times: 3 });
		const { error, items, requests } = await runForm(sim, { ...BASE, name: '={{ $json.name }}' }, { inputItems });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(5);
		expect(statuses(requests, FORMS)).toEqual([429, 429, 429, 201, 201, 201, 201, 201]);
		expectExactlyOnce(formNames(), names);
	});

	it.each([
		['503 after the handler', { status: 503, retryAfter: 0, afterHandler: true }, 503, true],
		['reset after the handler', { reset: true, afterHandler: true }, 0, true],
		['503 before the handler', { status: 503, retryAfter: 0 }, 503, false],
	] as const)('%s: not sent again; the item fails, nothing is duplicated', async (_name, fault, status, stored) => {
		const { names, inputItems } = formItems(3);
		sim.faults.add({ method: 'POST', path: FORMS, times: 1, ...fault });
		const { items, requests } = await runForm(sim, { ...BASE, name: '={{ $json.name }}' }, { inputItems, continueOnFail: true });
		expect(statuses(requests, FORMS)).toEqual([status, 201, 201]);
		expect(errorItems(items).map((i) => i.pairedItem)).toEqual([{ item: 0 }]);
		expectExactlyOnce(formNames(), stored ? names : names.slice(1));
	});
});
