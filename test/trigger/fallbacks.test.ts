/**
 * Workplace Trigger where n8n no longer offers what it relies on (docs/ARCHITECTURE.md, "What we
 * rely on in n8n"): each time the trigger falls back to something safe and says so in n8n's log,
 * once per process. Its own file: where runs start is learned once per process (pacing.ts), so the
 * queue-mode case comes first.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Expression } from 'n8n-workflow';

import { messageEvent, signBody } from '../../simulator';
import { TriggerBed, type LogLine } from './trigger-bed';

const SECRET = 'fallbacks-test-secret';
/** How every fallback line ends (nodes/shared/reliance.ts). */
const MARK = '(a fallback of n8n-nodes-workplace, logged once per n8n process)';

function delivery(text: string) {
	const raw = JSON.stringify({ events: [messageEvent({ text })] });
	return { rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, raw, 'hex') } };
}

function bed(options: Partial<ConstructorParameters<typeof TriggerBed>[0]> = {}, parameters: Record<string, unknown> = {}) {
	return new TriggerBed({
		parameters: { verification: 'secret', events: ['message'], ...parameters },
		credentials: { workplaceWebhookApi: { secret: SECRET } },
		...options,
	});
}

const fallbacks = (logs: LogLine[]) => logs.filter((l) => l.message.endsWith(MARK));

beforeAll(async () => {
	await TriggerBed.init();
});

/**
 * The n8n-workflow version the package reads (its package.json). Jest keeps the first module a
 * factory gave, so every test that fakes a version changes this one object.
 */
const fakedWorkflowPackage = { version: '' };

function fakeN8nWorkflowVersion(version: string): void {
	fakedWorkflowPackage.version = version;
	jest.doMock('n8n-workflow/package.json', () => fakedWorkflowPackage);
}

describe('pacing', () => {
	test('no run of a held delivery starts in this process: after 2 s + 10 s one warning says answers go at once, naming queue mode and execute()', async () => {
		const queue = bed({ runs: false });
		const first = await queue.deliver(delivery('first'));
		expect([first.status, first.answeredAtReturn]).toEqual([200, false]);
		expect(fallbacks(queue.logs)).toEqual([]);
		await new Promise((resolve) => setTimeout(resolve, 11_000));
		const second = await queue.deliver(delivery('second'));
		expect([second.status, second.answeredAtReturn]).toEqual([200, true]);
		const lines = fallbacks(queue.logs);
		expect(lines).toHaveLength(1);
		expect(lines[0].level).toBe('warn');
		expect(lines[0].message).toMatch(/no run of a delivery this process held started here within 12 s, so deliveries are answered at once from now on/);
		expect(lines[0].message).toMatch(/queue mode.*execute\(\)/);
	}, 30_000);

	test('n8n-workflow 2 without Expression.vmEvaluator (engine not "legacy"): every delivery answered at once, one warning', async () => {
		fakeN8nWorkflowVersion('2.99.0');
		try {
			const noEvaluator = bed({ isolates: false });
			const outcomes = [await noEvaluator.deliver(delivery('a')), await noEvaluator.deliver(delivery('b'))];
			expect(outcomes.map((o) => [o.status, o.answeredAtReturn])).toEqual([[200, true], [200, true]]);
			const lines = fallbacks(noEvaluator.logs);
			expect(lines.map((l) => l.level)).toEqual(['warn']);
			expect(lines[0].message).toMatch(/n8n-workflow 2\.99 shows no Expression\.vmEvaluator while its expression engine is not readable/);
			expect(lines[0].message).toMatch(/answers every delivery at once instead of once its run has started \(pacing off\)/);
		} finally {
			jest.dontMock('n8n-workflow/package.json');
		}
	});

	test('n8n-workflow 2 with N8N_EXPRESSION_ENGINE=legacy (Expression.expressionEngine "legacy"), or n8n-workflow 1: no warning', async () => {
		const expression = Expression as unknown as { expressionEngine?: unknown };
		fakeN8nWorkflowVersion('2.41.0');
		expression.expressionEngine = 'legacy';
		try {
			const legacy = bed({ isolates: false });
			expect((await legacy.deliver(delivery('legacy'))).answeredAtReturn).toBe(true);
			expect(fallbacks(legacy.logs)).toEqual([]);
		} finally {
			delete expression.expressionEngine;
			jest.dontMock('n8n-workflow/package.json');
		}
		const one = bed({ isolates: false });
		expect((await one.deliver(delivery('n8n 1'))).answeredAtReturn).toBe(true);
		expect(fallbacks(one.logs)).toEqual([]);
	});

	test('n8n 2.0 (n8n-workflow 2.0.1: neither Expression.expressionEngine nor vmEvaluator, runs cost no isolate): answered at once, no warning', async () => {
		fakeN8nWorkflowVersion('2.0.1');
		try {
			const early = bed({ isolates: false });
			expect((await early.deliver(delivery('n8n 2.0'))).answeredAtReturn).toBe(true);
			expect(fallbacks(early.logs)).toEqual([]);
		} finally {
			jest.dontMock('n8n-workflow/package.json');
		}
	});
});

describe('raw body', () => {
	test('n8n has not read the body but offers readRawBody(): the trigger reads it, checks the signature, starts the run; one warning', async () => {
		const lazy = bed();
		const outcomes = [
			await lazy.deliver({ ...delivery('read by the trigger'), rawBodyRead: 'onRequest' }),
			await lazy.deliver({ ...delivery('and again'), rawBodyRead: 'onRequest' }),
		];
		expect(outcomes.map((o) => [o.status, o.body, o.runStarted])).toEqual([
			[200, { received: 1 }, true],
			[200, { received: 1 }, true],
		]);
		const lines = fallbacks(lazy.logs);
		expect(lines).toHaveLength(1);
		expect(lines[0].message).toMatch(/n8n had not read the raw body of a delivery \(req\.rawBody\).*read it itself with req\.readRawBody\(\)/);
	});

	test('a content type n8n does not parse (node version above 1): the trigger reads the body itself, the run starts, no warning', async () => {
		const bed1 = bed();
		const signed = delivery('sent as octet-stream');
		const outcome = await bed1.deliver({ ...signed, headers: { ...signed.headers, 'content-type': 'application/octet-stream' }, rawBodyRead: 'onRequest' });
		expect([outcome.status, outcome.body, outcome.runStarted]).toEqual([200, { received: 1 }, true]);
		expect(fallbacks(bed1.logs)).toEqual([]);
	});

	test('neither a raw body nor readRawBody(): answered 401, one warning saying no signature can be checked', async () => {
		const none = bed();
		const outcome = await none.deliver({ ...delivery('no bytes'), rawBodyRead: 'never' });
		expect([outcome.status, outcome.runStarted]).toEqual([401, false]);
		const lines = fallbacks(none.logs);
		expect(lines).toHaveLength(1);
		expect(lines[0].message).toMatch(/no raw body of a delivery \(req\.rawBody\) and the request has no readRawBody\(\) either, so no signature can be checked/);
	});
});

/** A stand-in for n8n's waiting route: answers every request with `status`, or never (`hang`); records them. */
async function waitingRoute(status: number | 'hang'): Promise<{ url: string; requests: IncomingMessage[]; server: Server }> {
	const requests: IncomingMessage[] = [];
	const server = createServer((req, res) => {
		requests.push(req);
		if (status !== 'hang') res.writeHead(status).end();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook-waiting`, requests, server };
}

async function closed(server: Server): Promise<void> {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe("activation: n8n's waiting route for in-chat answers", () => {
	test('answered 204 as n8n answers OPTIONS: no warning, one OPTIONS to <base>/0/<node ID>, not asked again', async () => {
		const route = await waitingRoute(204);
		try {
			const trigger = bed({}, { options: { resumeBaseUrl: route.url } });
			expect(await trigger.registerWebhook()).toBeUndefined();
			expect(await trigger.registerWebhook()).toBeUndefined();
			expect(route.requests.map((r) => [r.method, r.url])).toEqual([['OPTIONS', `/webhook-waiting/0/${trigger.nodeId}`]]);
			expect(trigger.logs).toEqual([]);
		} finally {
			await closed(route.server);
		}
	});

	test('connection refused: the activation succeeds at once, one warning naming Resume Base URL, none for the next activation', async () => {
		const route = await waitingRoute(204);
		await closed(route.server);
		const trigger = bed({}, { options: { resumeBaseUrl: route.url } });
		const started = Date.now();
		expect(await trigger.registerWebhook()).toBeUndefined();
		expect(Date.now() - started).toBeLessThan(2_000);
		expect(await trigger.registerWebhook()).toBeUndefined();
		const lines = fallbacks(trigger.logs);
		expect(lines).toHaveLength(1);
		expect(lines[0].level).toBe('warn');
		expect(lines[0].message).toContain(`this process cannot reach n8n's waiting route ${route.url} (connect ECONNREFUSED`);
		expect(lines[0].message).toMatch(/each delivery of a tap is answered 503.*Set the trigger's Options > Resume Base URL/);
	});

	test('no answer: the activation waits at most 3 s and succeeds; one warning', async () => {
		const route = await waitingRoute('hang');
		try {
			const trigger = bed({}, { options: { resumeBaseUrl: route.url } });
			const started = Date.now();
			expect(await trigger.registerWebhook()).toBeUndefined();
			expect(Date.now() - started).toBeLessThan(4_500);
			expect(fallbacks(trigger.logs).map((l) => l.message)).toEqual([expect.stringContaining(`n8n's waiting route ${route.url} (`)]);
		} finally {
			await closed(route.server);
		}
	});

	test('another answer (a proxy answering 404): one warning that it did not answer as n8n does; listening for a test event checks nothing', async () => {
		const route = await waitingRoute(404);
		try {
			const listening = bed({}, { options: { resumeBaseUrl: route.url } });
			expect(await listening.registerWebhook('manual')).toBeUndefined();
			expect(route.requests).toHaveLength(0);
			const trigger = bed({}, { options: { resumeBaseUrl: route.url } });
			expect(await trigger.registerWebhook()).toBeUndefined();
			expect(fallbacks(trigger.logs).map((l) => l.message)).toEqual([
				expect.stringMatching(/did not answer as n8n's webhook routes do \(it answered 404; n8n answers 204\)/),
			]);
		} finally {
			await closed(route.server);
		}
	});
});
