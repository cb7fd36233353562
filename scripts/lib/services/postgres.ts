/** PostgreSQL on a free loopback port, with its own data folder and a test superuser. */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { formatDuration, getFreePort, run, runChecked } from '../proc';
import { ensureInstalled, isRoot, POSTGRES } from './install';
import { LaunchSpec, makeTempDir, ServerProcess, withPortRetry } from './server-process';
import { HOST, installLog, noLog, PostgresService, ServiceOptions } from './service';

/** `"name"` with embedded quotes doubled. */
function quoteIdent(name: string): string {
	return `"${name.replace(/"/g, '""')}"`;
}

function quoteLiteral(value: string): string {
	return `'${value.replace(/'/g, "''")}'`;
}

async function postgresOsUser(): Promise<{ uid: number; gid: number } | undefined> {
	// initdb and postgres refuse to run as root
	if (!isRoot()) return undefined;
	const r = await run('getent', ['passwd', 'postgres'], { timeoutMs: 10_000 });
	const fields = r.stdout.trim().split(':');
	if (r.code !== 0 || fields.length < 4) {
		throw new Error(
			'We run as root, and PostgreSQL refuses root: the OS user `postgres` is needed (the Debian package postgresql-common creates it), but `getent passwd postgres` found none.',
		);
	}
	return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

class PostgresServer extends ServerProcess implements PostgresService {
	readonly host = HOST;
	readonly user = 'n8n_test';
	readonly password = randomBytes(12).toString('hex');

	constructor(
		spec: LaunchSpec,
		readonly binDir: string,
		readonly socketDir: string,
	) {
		super(spec);
	}

	private psqlEnv(): NodeJS.ProcessEnv {
		return { ...process.env, PGPASSWORD: this.password, PGCONNECT_TIMEOUT: '10', PGAPPNAME: 'services.ts' };
	}

	async createDatabase(name: string): Promise<void> {
		await this.query('postgres', `create database ${quoteIdent(name)}`);
	}

	async query(database: string, sql: string): Promise<string> {
		const result = await runChecked(
			path.join(this.binDir, 'psql'),
			['-X', '-q', '-A', '-t', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-h', HOST, '-p', String(this.port), '-U', this.user, '-d', database, '-c', sql],
			{ env: this.psqlEnv(), timeoutMs: 120_000 },
		);
		return result.stdout.trim();
	}

	n8nEnv(database: string): Record<string, string> {
		return {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: HOST,
			DB_POSTGRESDB_PORT: String(this.port),
			DB_POSTGRESDB_DATABASE: database,
			DB_POSTGRESDB_USER: this.user,
			DB_POSTGRESDB_PASSWORD: this.password,
			DB_POSTGRESDB_SCHEMA: 'public',
		};
	}

	/** Superuser over the Unix socket (trust), to create the test role. */
	async adminSql(sql: string): Promise<void> {
		await runChecked(
			path.join(this.binDir, 'psql'),
			['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', this.socketDir, '-p', String(this.port), '-U', 'postgres', '-d', 'postgres', '-c', sql],
			{ timeoutMs: 60_000 },
		);
	}
}

export async function startPostgres(options: ServiceOptions = {}): Promise<PostgresService> {
	const log = options.log ?? noLog;
	const binDir = await ensureInstalled(POSTGRES, options.log ?? installLog);
	const owner = await postgresOsUser();
	return withPortRetry('postgres', log, async () => {
		const started = Date.now();
		const dir = makeTempDir('postgres');
		const dataDir = path.join(dir, 'data');
		const socketDir = path.join(dir, 'socket');
		let server: PostgresServer | undefined;
		try {
			fs.mkdirSync(socketDir, { mode: 0o700 });
			if (owner) {
				fs.chownSync(dir, owner.uid, owner.gid);
				fs.chownSync(socketDir, owner.uid, owner.gid);
			}
			const initdb = [
				path.join(binDir, 'initdb'),
				'-D', dataDir,
				'-U', 'postgres',
				'-E', 'UTF8',
				'--locale=C',
				// local socket: trust (our admin connection); TCP: password, as n8n connects
				'--auth-local=trust',
				'--auth-host=scram-sha-256',
				'--no-sync',
			];
			const asOwner = owner ? ['runuser', '-u', 'postgres', '--', ...initdb] : initdb;
			await runChecked(asOwner[0], asOwner.slice(1), { cwd: dir, timeoutMs: 120_000 });
			const port = await getFreePort();
			server = new PostgresServer(
				{
					name: 'postgres',
					bin: path.join(binDir, 'postgres'),
					args: [
						'-D', dataDir,
						'-p', String(port),
						'-k', socketDir,
						'-c', `listen_addresses=${HOST}`,
						// throwaway data: durability only costs time
						'-c', 'fsync=off',
						'-c', 'synchronous_commit=off',
						'-c', 'full_page_writes=off',
						// n8n queue mode: main(s) and workers each open connection pools
						'-c', 'max_connections=200',
					],
					dir,
					port,
					outputFile: path.join(dir, 'postgres.log'),
					// fast shutdown: SIGTERM (smart) would wait for n8n's pooled connections to close
					stopSignal: 'SIGINT',
					uid: owner?.uid,
					gid: owner?.gid,
				},
				binDir,
				socketDir,
			);
			const pg = server;
			await pg.waitUntil('accept connections', 60_000, async () => {
				const r = await run(path.join(binDir, 'pg_isready'), ['-q', '-h', HOST, '-p', String(port), '-t', '2'], {
					timeoutMs: 10_000,
				});
				return r.code === 0;
			});
			await pg.adminSql(`create role ${quoteIdent(pg.user)} login superuser password ${quoteLiteral(pg.password)}`);
			log(`postgres ${path.basename(path.dirname(binDir))} on ${HOST}:${port} (pid ${pg.pid}) in ${formatDuration(Date.now() - started)}`);
			return pg;
		} catch (e) {
			let message = (e as Error).message;
			// e.g. psql failed: the server log tells why
			if (server && !message.includes('--- postgres log')) message += `\n--- postgres log (tail) ---\n${server.logTail()}`;
			if (server) await server.stop();
			else fs.rmSync(dir, { recursive: true, force: true });
			throw new Error(message);
		}
	});
}
