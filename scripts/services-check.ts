/**
 * Self-check of scripts/lib/services/: starts real PostgreSQL, Redis and nginx (installing
 * them with apt-get when missing), exercises each, stops them and verifies nothing is left.
 *
 *   npx tsc -p tsconfig.tools.json && node build/scripts/services-check.js
 */
import * as fs from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { formatDuration, isProcessAlive } from './lib/proc';
import {
	installHistory,
	pingRedis,
	processTreePids,
	startNginx,
	startPostgres,
	startRedis,
	stopAllServices,
	type Service,
} from './lib/services';

const log = (m: string) => console.log(`  ${m}`);

function check(ok: boolean, what: string): void {
	if (!ok) throw new Error(`check failed: ${what}`);
	log(`ok: ${what}`);
}

async function timed<T>(label: string, fn: () => Promise<T>, timings: [string, number][]): Promise<T> {
	const started = Date.now();
	const result = await fn();
	timings.push([label, Date.now() - started]);
	return result;
}

interface Backend {
	name: string;
	server: Server;
	port: number;
	/** Request paths this backend received. */
	seen: string[];
}

/** A tiny HTTP server that answers its own name; `/drop` closes the connection without an answer. */
async function startBackend(name: string): Promise<Backend> {
	const seen: string[] = [];
	const server = createServer((req, res) => {
		seen.push(`${req.method} ${req.url}`);
		if (req.url === '/drop') {
			req.socket.destroy();
			return;
		}
		req.resume();
		req.on('end', () => res.end(name));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { name, server, port: (server.address() as AddressInfo).port, seen };
}

function httpRequest(url: string, method = 'GET', body?: string): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const req = request(url, { method, agent: false }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
			res.on('error', reject);
		});
		req.on('error', reject);
		req.end(body);
	});
}

async function main(): Promise<void> {
	const started = Date.now();
	const timings: [string, number][] = [];
	const services: Service[] = [];
	const backends: Backend[] = [];
	try {
		console.log('postgres');
		const pg = await timed('start postgres (incl. any install)', () => startPostgres({ log }), timings);
		services.push(pg);
		await pg.createDatabase('check');
		check((await pg.query('check', 'select 1')) === '1', "select 1 = '1'");
		await pg.query('check', 'create table t (id int primary key, name text)');
		await pg.query('check', "insert into t values (1, 'one'), (2, 'two')");
		check((await pg.query('check', 'select id, name from t order by id')) === '1\tone\n2\ttwo', 'create table / insert / select');
		check((await pg.query('check', 'show max_connections')) === '200', 'max_connections = 200');
		const who = await pg.query('check', 'select current_user, host(inet_server_addr())');
		check(who === `${pg.user}\t127.0.0.1`, `connected over TCP 127.0.0.1 as the test user with its password (${who.replace('\t', ' @ ')})`);
		const env = pg.n8nEnv('check');
		check(env.DB_TYPE === 'postgresdb' && env.DB_POSTGRESDB_PORT === String(pg.port), 'n8nEnv');

		console.log('redis');
		const redis = await timed('start redis (incl. any install)', () => startRedis({ log }), timings);
		services.push(redis);
		check((await pingRedis(redis.port)) === '+PONG', 'PING -> +PONG');
		check(redis.n8nEnv().QUEUE_BULL_REDIS_PORT === String(redis.port), 'n8nEnv');

		console.log('nginx');
		backends.push(await startBackend('a'), await startBackend('b'));
		const [a, b] = backends;
		const nginx = await timed(
			'start nginx (incl. any install)',
			() => startNginx({ upstreams: [a.port, b.port], hash: '$request_uri consistent', log }),
			timings,
		);
		services.push(nginx);
		const paths = Array.from({ length: 20 }, (_, i) => `/path-${i}`);
		const first = new Map<string, string>();
		for (const p of paths) first.set(p, (await httpRequest(nginx.url + p)).body);
		let same = true;
		for (const p of paths) same &&= (await httpRequest(nginx.url + p)).body === first.get(p);
		check(same, 'the same path twice goes to the same backend');
		check(new Set(first.values()).size === 2, `both backends used (a: ${a.seen.length}, b: ${b.seen.length} requests)`);
		// n8n's resume URLs go by execution id: every link of one execution reaches the same backend
		const executions = Array.from({ length: 20 }, (_, i) => i + 1);
		const byExecution = await Promise.all(executions.map(async (id) => {
			const links = [`?approved=true&signature=${id}a`, `?approved=false&signature=${id}b`, '?signature=c', '/node-x?signature=d'];
			const bodies = new Set<string>();
			for (const link of links) bodies.add((await httpRequest(`${nginx.url}/webhook-waiting/${id}/node-1${link}`)).body);
			return [...bodies];
		}));
		check(byExecution.every((b) => b.length === 1), 'every /webhook-waiting/ URL of one execution goes to the same backend');
		check(new Set(byExecution.flat()).size === 2, 'both backends used for /webhook-waiting/');
		const post = await httpRequest(`${nginx.url}/echo`, 'POST', 'x'.repeat(100_000));
		check(post.status === 200, 'POST with a 100 kB body proxied');
		const dropped = await httpRequest(`${nginx.url}/drop`, 'POST', 'once');
		const dropHits = [...a.seen, ...b.seen].filter((s) => s === 'POST /drop').length;
		check(dropped.status === 502 && dropHits === 1, `a failed POST is not resent to another backend (502, ${dropHits} attempt)`);

		await timed('nginx setUpstreams', () => nginx.setUpstreams([b.port]), timings);
		const afterBodies = new Set<string>();
		for (const p of paths) afterBodies.add((await httpRequest(nginx.url + p)).body);
		check(afterBodies.size === 1 && afterBodies.has('b'), 'after setUpstreams([b]) every request goes to b');
		check(nginx.config.includes(`server 127.0.0.1:${b.port} max_fails=0;`) && !nginx.config.includes(`:${a.port} `), 'config regenerated');

		console.log('stop');
		// an open connection in a long query: stop must not wait for clients (n8n keeps pools open)
		const sleeping = pg.query('check', 'select pg_sleep(600)').then(
			() => 'finished',
			() => 'aborted',
		);
		for (let i = 0; i < 100 && (await pg.query('check', "select count(*) from pg_stat_activity where query like 'select pg_sleep%'")) !== '1'; i++) {
			await new Promise((r) => setTimeout(r, 50));
		}
		const groups = services.map((s) => ({ name: s.name, pid: s.pid as number, members: processTreePids(s.pid as number) }));
		const dirs = services.map((s) => (s as unknown as { dir: string }).dir);
		for (const g of groups) log(`${g.name}: pid ${g.pid}, ${g.members.length} processes`);
		await timed('stop all', () => stopAllServices(), timings);
		for (const g of groups) {
			const alive = g.members.filter((p) => isProcessAlive(p));
			check(alive.length === 0, `${g.name}: all ${g.members.length} processes gone`);
		}
		check((await sleeping) === 'aborted', 'a running postgres query was cut off by stop (fast shutdown)');
		check(dirs.every((d) => !fs.existsSync(d)), 'temp folders removed');
		check(nginx.logTail().length > 0, 'logTail still available after stop');
		await stopAllServices(); // idempotent
	} finally {
		await stopAllServices();
		for (const b of backends) b.server.close();
	}

	console.log('timings');
	for (const i of installHistory()) log(`install ${i.packages.join(' ')}: ${formatDuration(i.durationMs)}`);
	for (const [label, ms] of timings) log(`${label}: ${formatDuration(ms)}`);
	log(`total: ${formatDuration(Date.now() - started)}`);
	console.log('PASS');
}

main().catch((e: Error) => {
	console.error(`FAIL: ${e.stack ?? e.message}`);
	process.exitCode = 1;
});
