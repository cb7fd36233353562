/**
 * Real PostgreSQL, Redis and nginx servers on 127.0.0.1 for tests (n8n queue mode, a load
 * balancer in front of several n8n mains).
 *
 * Each server is a detached child in its own process group (tracked with trackGroup, so an
 * interrupted parent kills it), listens on free loopback ports only, and keeps its data, config,
 * sockets and logs in a fresh temp folder that stop() removes. We never use, signal or depend on
 * a system instance of these servers.
 *
 * Missing servers are installed with apt-get (Debian), once per machine, serialized across
 * processes by a lock file in the temp directory.
 *
 * service: the interfaces; process-table: /proc; install: finding and installing the servers;
 * server-process: one started server; postgres, redis, nginx: each server.
 */
export type {
	InstallRecord,
	NginxAccess,
	NginxOptions,
	NginxService,
	PostgresService,
	RedisService,
	Service,
	ServiceOptions,
} from './service';
export { processGroupPids, processTreePids } from './process-table';
export { installHistory } from './install';
export { stopAllServices } from './server-process';
export { startPostgres } from './postgres';
export { pingRedis, startRedis } from './redis';
export { startNginx } from './nginx';
