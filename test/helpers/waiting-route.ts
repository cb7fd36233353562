/**
 * n8n's waiting-webhook route over HTTP, for tests where the Workplace Trigger hands an in-chat
 * answer to a waiting execution: `POST <url>/<executionId>/<nodeId>?...` runs the waiting node's
 * webhook() through test/helpers/waiting.ts on the execution as stored, and answers as n8n 2.41's
 * waiting-webhooks.ts and webhook-helpers.ts do:
 * - an execution that does not exist: 404 JSON;
 * - one that already resumed (finished): 200 with n8n's "no action required" page;
 * - webhook() answered itself (noWebhookResponse): that answer;
 * - webhook() returned workflowData: the execution resumes, then 200 with its webhookResponse as JSON.
 * Every request is recorded as it arrived (method, path, query, headers, parsed JSON body).
 * `unavailableFirst`: that many requests are answered 503 before any node sees them, as n8n does
 * while it starts or when it is overloaded.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, IRunExecutionData } from 'n8n-workflow';

import type { RunNodeResult } from './engine';
import type { WaitingOutcome } from './waiting';
import { callWaitingWebhook, storedExecution } from './waiting';

export interface RouteRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

export interface WaitingRoute {
	/** n8n's base URL of waiting executions (…/webhook-waiting). */
	url: string;
	requests: RouteRequest[];
	/** What each request that reached a waiting node got from it, in order. */
	outcomes: WaitingOutcome[];
	/** Executions that resumed, in order. */
	resumed: string[];
	/** An execution that started waiting after the route did. */
	addRun(run: RunNodeResult): void;
	/** The next request is answered 503 before any node sees it, as n8n does while it starts. */
	unavailableNext(): void;
	/** The next request that reaches a waiting node is answered 504 after the node ran, as a proxy that gave up waiting. */
	loseNextAnswer(): void;
	/** From now on `POST /webhook/…` (the trigger's production URL on this n8n) goes to this trigger. */
	serveTrigger(trigger: ServedTrigger): void;
	close(): Promise<void>;
}

/** What the route needs of a Workplace Trigger (test/trigger/trigger-bed.ts): one delivery, answered. */
export interface ServedTrigger {
	deliver(request: { rawBody: string; headers: Record<string, string> }): Promise<{ status: number; body: unknown }>;
}

export async function startWaitingRoute(runs: RunNodeResult[], { unavailableFirst = 0 } = {}): Promise<WaitingRoute> {
	let unavailable = unavailableFirst;
	const stored = new Map<string, IRunExecutionData>(runs.map((run) => [run.executionId, storedExecution(run)]));
	const byId = new Map(runs.map((run) => [run.executionId, run]));
	const requests: RouteRequest[] = [];
	const outcomes: WaitingOutcome[] = [];
	const resumed: string[] = [];
	let trigger: ServedTrigger | undefined;
	let loseNext = false;
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			void (async () => {
				const url = new URL(req.url ?? '/', 'http://route');
				const text = Buffer.concat(chunks).toString('utf8');
				let body: unknown = {};
				try {
					body = text === '' ? {} : JSON.parse(text);
				} catch {
					body = text;
				}
				requests.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body });
				const send = (status: number, contentType: string, payload: string) => {
					res.writeHead(status, { 'content-type': contentType });
					res.end(payload);
				};
				if (unavailable > 0) {
					unavailable--;
					return send(503, 'application/json', JSON.stringify({ code: 503, message: 'Service Unavailable' }));
				}
				if (url.pathname.startsWith('/webhook/') && trigger) {
					const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
					const answered = await trigger.deliver({ rawBody: text, headers });
					return send(answered.status, 'application/json', JSON.stringify(answered.body));
				}
				const [, , executionId] = url.pathname.split('/');
				const run = byId.get(executionId);
				if (!run) return send(404, 'application/json', JSON.stringify({ code: 404, message: `The execution "${executionId}" does not exist.` }));
				if (resumed.includes(executionId)) return send(200, 'text/html', '<html><body>No action required</body></html>');
				const outcome = await callWaitingWebhook(run, {
					method: (req.method ?? 'POST') as 'POST',
					url: `${url.pathname}${url.search}`,
					headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
					body: body as IDataObject,
					stored: stored.get(executionId),
				});
				outcomes.push(outcome);
				if (loseNext) {
					loseNext = false;
					return send(504, 'text/html', '<html><body>504 Gateway Time-out</body></html>');
				}
				if (outcome.resumed) {
					resumed.push(executionId);
					return send(200, 'application/json', JSON.stringify(outcome.result.webhookResponse ?? { message: 'Workflow was started' }));
				}
				send(outcome.status, outcome.headers['content-type'] ?? 'application/json', outcome.body);
			})().catch((error: Error) => send500(res, error));
		});
	});
	const send500 = (res: import('node:http').ServerResponse, error: Error) => {
		res.writeHead(500, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ code: 500, message: error.message }));
	};
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/webhook-waiting`,
		requests,
		outcomes,
		resumed,
		addRun(run) {
			stored.set(run.executionId, storedExecution(run));
			byId.set(run.executionId, run);
		},
		unavailableNext() {
			unavailable++;
		},
		loseNextAnswer() {
			loseNext = true;
		},
		serveTrigger(served) {
			trigger = served;
		},
		async close() {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
