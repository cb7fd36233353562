/** Redis on a free loopback port. */
import * as net from 'node:net';
import * as path from 'node:path';

import { formatDuration, getFreePort } from '../proc';
import { ensureInstalled, REDIS } from './install';
import { makeTempDir, ServerProcess, withPortRetry } from './server-process';
import { HOST, installLog, noLog, RedisService, ServiceOptions } from './service';

/** Sends a RESP PING and returns the first reply line (`+PONG` when ready). */
export function pingRedis(port: number, host = HOST, timeoutMs = 2_000): Promise<string> {
	return new Promise((resolve, reject) => {
		const socket = net.connect({ host, port });
		let data = '';
		const done = (error: Error | undefined, line?: string) => {
			clearTimeout(timer);
			socket.destroy();
			if (error) reject(error);
			else resolve(line ?? '');
		};
		const timer = setTimeout(() => done(new Error(`no PING reply from ${host}:${port} within ${timeoutMs} ms`)), timeoutMs);
		socket.on('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
		socket.on('data', (chunk: Buffer) => {
			data += chunk.toString('utf8');
			const end = data.indexOf('\r\n');
			if (end >= 0) done(undefined, data.slice(0, end));
		});
		socket.on('error', (e) => done(e));
		socket.on('close', () => done(new Error(`connection to ${host}:${port} closed without a reply`)));
	});
}

class RedisServer extends ServerProcess implements RedisService {
	readonly host = HOST;

	n8nEnv(): Record<string, string> {
		return { QUEUE_BULL_REDIS_HOST: HOST, QUEUE_BULL_REDIS_PORT: String(this.port) };
	}
}

export async function startRedis(options: ServiceOptions = {}): Promise<RedisService> {
	const log = options.log ?? noLog;
	const bin = await ensureInstalled(REDIS, options.log ?? installLog);
	return withPortRetry('redis', log, async () => {
		const started = Date.now();
		const dir = makeTempDir('redis');
		const port = await getFreePort();
		const server = new RedisServer({
			name: 'redis',
			bin,
			// no persistence: a test queue, thrown away with the folder
			args: ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir],
			dir,
			port,
			outputFile: path.join(dir, 'redis.log'),
			stopSignal: 'SIGTERM',
		});
		try {
			await server.waitUntil('answer PING', 30_000, () =>
				pingRedis(port).then(
					(line) => line === '+PONG',
					() => false,
				),
			);
		} catch (e) {
			await server.stop();
			throw e;
		}
		log(`redis on ${HOST}:${port} (pid ${server.pid}) in ${formatDuration(Date.now() - started)}`);
		return server;
	});
}
