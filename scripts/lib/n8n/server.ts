/** A real n8n server (main, worker or webhook process) and calls to it. */
import { spawn, type ChildProcess } from 'node:child_process';

import { getFreePort, killGroup, sleep, tail, trackGroup, untrackGroup } from '../proc';
import { n8nEnv, type N8nEnvOptions } from './cli';
import type { N8nInstall } from './install';

export interface N8nServer {
	url: string;
	port: number;
	pid: number | undefined;
	process: ChildProcess;
	/** Everything the server printed so far. */
	output(): string;
	/**
	 * Creates the instance owner (POST /rest/owner/setup) once and keeps its auth cookie for rest().
	 * Owner: E2E_OWNER.
	 */
	setupOwner(): Promise<void>;
	/** Logs in as E2E_OWNER (an owner set up earlier, e.g. before a restart) and keeps the cookie. */
	login(): Promise<void>;
	/** A call to n8n's internal REST API (`/rest/...`) as the owner (after setupOwner()); returns `data`. */
	rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
	/** fetch() against the server with the owner's cookie (after setupOwner()). */
	fetch(path: string, init?: RequestInit): Promise<Response>;
	/** GET /rest/executions with a filter (e.g. { workflowId, status: ['success'] }): the total count and the newest `limit`. */
	executions(filter: Record<string, unknown>, limit?: number): Promise<{ count: number; results: ExecutionSummary[] }>;
	stop(): Promise<void>;
}

export interface ExecutionSummary {
	id: string;
	status: string;
	mode?: string;
	finished?: boolean;
}

/**
 * Calls a production webhook until n8n serves it: 2.x registers webhooks shortly after an
 * activation or a start, answering 404 meanwhile. Returns the first other answer.
 */
export async function fetchWebhook(url: string, init: RequestInit = {}, registerTimeoutMs = 30_000): Promise<{ status: number; text: string }> {
	const deadline = Date.now() + registerTimeoutMs;
	for (;;) {
		const res = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(600_000) });
		const text = await res.text();
		if (res.status !== 404) return { status: res.status, text };
		if (Date.now() > deadline) throw new Error(`${url} is still not registered (404): ${text.slice(0, 300)}`);
		await sleep(250);
	}
}

/** Executions of a workflow once none is new, running or waiting and their number stayed the same for `quietMs`. */
export async function settledExecutions(server: N8nServer, workflowId: string, quietMs = 1500): Promise<ExecutionSummary[]> {
	const deadline = Date.now() + 60_000;
	let last = -1;
	let stableSince = Date.now();
	for (;;) {
		const list = (await server.executions({ workflowId })).results;
		const running = list.some((e) => ['new', 'running', 'waiting'].includes(e.status));
		if (list.length !== last || running) {
			last = list.length;
			stableSince = Date.now();
		} else if (Date.now() - stableSince >= quietMs) {
			return list;
		}
		if (Date.now() > deadline) throw new Error(`executions of ${workflowId} did not settle: ${JSON.stringify(list)}`);
		await sleep(250);
	}
}

/**
 * How many executions a workflow has once none is new, running or waiting and the number stayed the
 * same for `quietMs` (n8n's total count: settledExecutions lists only the newest 100).
 */
export async function settledExecutionCount(server: N8nServer, workflowId: string, quietMs = 1500): Promise<number> {
	const deadline = Date.now() + 120_000;
	let last = -1;
	let stableSince = Date.now();
	for (;;) {
		const { count, results } = await server.executions({ workflowId });
		const running = results.some((e) => ['new', 'running', 'waiting'].includes(e.status));
		if (count !== last || running) {
			last = count;
			stableSince = Date.now();
		} else if (Date.now() - stableSince >= quietMs) {
			return count;
		}
		if (Date.now() > deadline) throw new Error(`executions of ${workflowId} did not settle (count ${count})`);
		await sleep(250);
	}
}

export const E2E_OWNER = {
	email: 'owner@e2e.test',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Owner-Passw0rd',
};

/** n8n binds its auth cookie to a browser id header; every call sends the same one. */
const BROWSER_ID = 'n8n-nodes-workplace-e2e';

export interface StartServerOptions {
	userFolder: string;
	/**
	 * The n8n command: `start` (default; the main process with editor and REST API), `worker` (runs
	 * queued executions; ready once its health server says so) or `webhook` (serves production
	 * webhooks in queue mode).
	 */
	command?: 'start' | 'worker' | 'webhook';
	/** Extra arguments, e.g. ['--concurrency=5'] for a worker. */
	args?: string[];
	port?: number;
	env?: NodeJS.ProcessEnv;
	logLevel?: N8nEnvOptions['logLevel'];
	/** Echo server output lines with this prefix. */
	echoPrefix?: string;
	startTimeoutMs?: number;
}

/**
 * /healthz answers as soon as the HTTP server listens; /healthz/readiness once the database is
 * migrated; the REST API (here /rest/settings, public in both majors) only once n8n has set
 * up its routes. Ready = all three.
 */
async function isReady(url: string): Promise<boolean> {
	try {
		for (const p of ['/healthz', '/healthz/readiness']) {
			const res = await fetch(`${url}${p}`, { signal: AbortSignal.timeout(2000) });
			if (res.status !== 200) return false;
		}
		const res = await fetch(`${url}/rest/settings`, { signal: AbortSignal.timeout(5000) });
		if (res.status !== 200) return false;
		JSON.parse(await res.text());
		return true;
	} catch {
		return false;
	}
}

/** A worker or webhook process: its HTTP server answers /healthz, and /healthz/readiness once database and Redis are up. */
async function isHealthy(url: string): Promise<boolean> {
	try {
		for (const p of ['/healthz', '/healthz/readiness']) {
			const res = await fetch(`${url}${p}`, { signal: AbortSignal.timeout(2000) });
			await res.text();
			if (res.status !== 200) return false;
		}
		return true;
	} catch {
		return false;
	}
}

/**
 * Starts `n8n start` (or `worker`, `webhook`: options.command) on a free port (or the given one)
 * with the given user folder and waits until it is ready (see isReady: /healthz,
 * /healthz/readiness, then the REST API; a worker's or webhook process's health only). A worker's
 * port is its health server (QUEUE_HEALTH_CHECK_PORT). stop() sends SIGTERM to the process group,
 * then SIGKILL.
 */
export async function startN8nServer(inst: N8nInstall, options: StartServerOptions): Promise<N8nServer> {
	const command = options.command ?? 'start';
	const port = options.port ?? (await getFreePort());
	const url = `http://127.0.0.1:${port}`;
	const env = n8nEnv(inst, {
		userFolder: options.userFolder,
		logLevel: options.logLevel ?? 'info',
		env: {
			N8N_PORT: String(port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			WEBHOOK_URL: `${url}/`,
			N8N_EDITOR_BASE_URL: `${url}/`,
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			...(command === 'worker' ? { QUEUE_HEALTH_CHECK_PORT: String(port), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' } : {}),
			// each process on one host needs its own task broker port
			N8N_RUNNERS_BROKER_PORT: String(await getFreePort()),
			...options.env,
		},
	});
	const child = spawn(inst.node.bin, [inst.n8nBin, command, ...(options.args ?? [])], {
		cwd: options.userFolder,
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	trackGroup(child.pid);
	let output = '';
	const onData = (c: Buffer) => {
		const s = c.toString('utf8');
		output += s;
		if (options.echoPrefix !== undefined) {
			for (const line of s.split('\n')) if (line.trim()) process.stdout.write(`${options.echoPrefix}${line}\n`);
		}
	};
	child.stdout!.on('data', onData);
	child.stderr!.on('data', onData);
	let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	const exitPromise = new Promise<void>((resolve) =>
		child.on('exit', (code, signal) => {
			exited = { code, signal };
			untrackGroup(child.pid);
			resolve();
		}),
	);

	const stop = async () => {
		if (exited) return;
		killGroup(child.pid, 'SIGTERM');
		const t = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 15_000);
		await exitPromise;
		clearTimeout(t);
		killGroup(child.pid, 'SIGKILL'); // leftovers (task runners) in the group
	};

	const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
	for (;;) {
		if (exited) {
			throw new Error(`n8n ${command} exited early (code ${exited.code}, signal ${exited.signal}):\n${tail(output)}`);
		}
		if (command === 'start' ? await isReady(url) : await isHealthy(url)) break;
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n ${command} did not become healthy on ${url} in time:\n${tail(output)}`);
		}
		await sleep(500);
	}
	let cookie = '';
	const doFetch = (p: string, init: RequestInit = {}) => {
		const headers = new Headers(init.headers);
		headers.set('browser-id', BROWSER_ID);
		if (cookie) headers.set('cookie', cookie);
		return fetch(`${url}${p}`, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(60_000) });
	};
	const rest = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
		const res = await doFetch(`/rest${p.startsWith('/') ? p : `/${p}`}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok) throw new Error(`${method} /rest${p} answered ${res.status}: ${text.slice(0, 500)}`);
		const setCookie = res.headers.get('set-cookie');
		if (setCookie) cookie = setCookie.split(';')[0];
		const parsed = text ? (JSON.parse(text) as { data?: T }) : {};
		return (parsed.data ?? parsed) as T;
	};
	const setupOwner = async () => {
		if (cookie) return;
		await rest('POST', '/owner/setup', E2E_OWNER);
		if (!cookie) throw new Error('POST /rest/owner/setup set no auth cookie');
	};
	const login = async () => {
		// 1.x takes `email`, 2.x `emailOrLdapLoginId`; each ignores the other
		await rest('POST', '/login', { emailOrLdapLoginId: E2E_OWNER.email, email: E2E_OWNER.email, password: E2E_OWNER.password });
		if (!cookie) throw new Error('POST /rest/login set no auth cookie');
	};
	const executions = async (filter: Record<string, unknown>, limit = 100) => {
		const data = await rest<{ count?: number; results?: ExecutionSummary[] }>(
			'GET',
			`/executions?filter=${encodeURIComponent(JSON.stringify(filter))}&limit=${limit}`,
		);
		return { count: data.count ?? 0, results: data.results ?? [] };
	};
	return { url, port, pid: child.pid, process: child, output: () => output, setupOwner, login, rest, fetch: doFetch, executions, stop };
}
