/**
 * Tiny HTTP server on 127.0.0.1 for test/engine/harness.test.ts. Records every request and
 * implements just enough auth behaviour to observe what the engine sends:
 *
 *   GET  /echo            -> echoes method, path, query, headers and body
 *   POST /token           -> session token for username/password (counts fetches)
 *   GET  /session/echo    -> requires `Authorization: Bearer <live session token>`, else 401
 *   GET  /fail            -> 500 with a JSON error body
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	headers: IncomingHttpHeaders;
	body: string;
	status: number;
}

export interface HarnessServerOptions {
	apiKey: string;
	username: string;
	password: string;
}

export class HarnessServer {
	readonly requests: RecordedRequest[] = [];

	readonly sessionTokens = new Set<string>();

	sessionTokenFetches = 0;

	/** Countdown of successful /session/echo requests after which all session tokens are revoked. */
	private sessionRevokeCountdown: number | undefined;

	private server: Server | undefined;

	baseUrl = '';

	constructor(readonly options: HarnessServerOptions) {}

	async start(): Promise<void> {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const url = new URL(req.url ?? '/', 'http://127.0.0.1');
				const record: RecordedRequest = {
					method: req.method ?? 'GET',
					path: url.pathname,
					query: Object.fromEntries(url.searchParams.entries()),
					headers: req.headers,
					body: Buffer.concat(chunks).toString('utf8'),
					status: 0,
				};
				this.requests.push(record);
				const [status, body] = this.handle(record);
				record.status = status;
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(body));
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		const { port } = this.server.address() as AddressInfo;
		this.baseUrl = `http://127.0.0.1:${port}`;
	}

	async close(): Promise<void> {
		await new Promise<void>((resolve, reject) =>
			this.server ? this.server.close((error) => (error ? reject(error) : resolve())) : resolve(),
		);
	}

	/** Forgets requests, tokens and counters. */
	reset(): void {
		this.requests.length = 0;
		this.sessionTokens.clear();
		this.sessionTokenFetches = 0;
		this.sessionRevokeCountdown = undefined;
	}

	/** Revokes every session token right after the next `successes` successful /session/echo calls. */
	revokeSessionsAfter(successes: number): void {
		this.sessionRevokeCountdown = successes;
	}

	private bearer(record: RecordedRequest): string | undefined {
		const header = record.headers.authorization;
		return header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
	}

	private handle(record: RecordedRequest): [number, unknown] {
		const { options } = this;
		const route = `${record.method} ${record.path}`;
		switch (route) {
			case 'GET /echo':
			case 'POST /echo':
				return [200, { method: record.method, path: record.path, query: record.query, headers: record.headers, body: record.body }];
			case 'POST /token': {
				const body = JSON.parse(record.body || '{}') as { username?: string; password?: string };
				if (body.username !== options.username || body.password !== options.password) {
					return [401, { message: 'bad login' }];
				}
				this.sessionTokenFetches++;
				const token = `session-${this.sessionTokenFetches}`;
				this.sessionTokens.add(token);
				return [200, { token }];
			}
			case 'GET /session/echo': {
				const token = this.bearer(record);
				if (!token || !this.sessionTokens.has(token)) return [401, { message: 'session expired' }];
				if (this.sessionRevokeCountdown !== undefined && --this.sessionRevokeCountdown <= 0) {
					this.sessionRevokeCountdown = undefined;
					this.sessionTokens.clear();
				}
				return [200, { token, item: record.query.item }];
			}
			case 'GET /fail':
				return [500, { message: 'Upstream exploded', code: 'E_BOOM' }];
			default:
				return [404, { message: `no route ${route}` }];
		}
	}
}
