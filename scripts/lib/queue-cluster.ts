/**
 * n8n in queue mode on one host, as a user scales it out: PostgreSQL and Redis shared by a main
 * process (editor and REST API; N8N_DISABLE_PRODUCTION_MAIN_PROCESS=true, so it serves no
 * production webhook), workers that run the executions and webhook processes that receive
 * production webhooks and n8n's resume URLs (/webhook-waiting/: a main without production webhooks
 * does not register that route either), with nginx in front of the webhook processes (resume URLs
 * go by execution id, see services/nginx.ts). Every n8n process has its own user folder with this
 * package installed in the Community Nodes layout (as on separate hosts), the same encryption key,
 * its own task broker port, and binary data kept in the database (the mode that works across hosts
 * without a licence).
 *
 * How the package gets into the user folders: on n8n 1.x one install in the Community Nodes
 * layout, copied to every folder. On n8n 2.x (installByEnv) every process starts with an empty
 * user folder and the same N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV / N8N_COMMUNITY_PACKAGES (name,
 * version, checksum = the tarball's dist.integrity) and N8N_REINSTALL_MISSING_PACKAGES=true: the
 * main process installs the package from the registry at startup and records it in the database
 * (n8n's CommunityPackagesInstanceSettingsLoader, which only `n8n start` runs); workers and
 * webhook processes find that record without the package on disk and install the same version
 * from the registry (CommunityPackagesService.checkForMissingPackages). See docs/queue-mode.md.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { startLocalRegistry, type LocalRegistry } from './local-registry';

import {
	createUserFolder,
	installCommunityPackage,
	startN8nServer,
	type Logger,
	type N8nInstall,
	type N8nServer,
} from './n8n';
import { formatDuration } from './proc';
import {
	startNginx,
	startPostgres,
	startRedis,
	type NginxService,
	type PostgresService,
	type RedisService,
} from './services';

export interface QueueClusterOptions {
	/** The packed package (npm pack), installed into every process's user folder. */
	tarball: string;
	workers?: number;
	webhookProcesses?: number;
	/** Executions a worker runs at once (`n8n worker --concurrency`; default DEFAULT_WORKER_CONCURRENCY). */
	concurrency?: number;
	/** More environment for every n8n process (e.g. EXECUTIONS_DATA_PRUNE). */
	env?: NodeJS.ProcessEnv;
	/**
	 * nginx's upstream `hash` for the webhook processes. The default sends every request for one
	 * URL (one trigger) to the same webhook process; '' = round robin.
	 */
	nginxHash?: string;
	log?: Logger;
	verbose?: boolean;
	/**
	 * Install the package through N8N_COMMUNITY_PACKAGES (n8n 2.x; default: on for n8n 2) from
	 * local registries (scripts/lib/local-registry.ts) instead of copying one install into every
	 * user folder.
	 */
	installByEnv?: boolean;
}

/** One n8n process's package source when installed by environment (QueueClusterOptions.installByEnv). */
export interface ProcessPackageSource {
	/** main, worker1, webhook1, … (as clusterProcesses names them) */
	process: string;
	userFolder: string;
	/**
	 * The registry this process's N8N_COMMUNITY_PACKAGES_REGISTRY points at: one per process, all
	 * serving the same tarball (same dist.integrity), so the test can tell which process fetched it.
	 */
	registry: LocalRegistry;
}

export interface PackageByEnv {
	name: string;
	version: string;
	/** The checksum in N8N_COMMUNITY_PACKAGES: the tarball's sha512 SRI (npm's dist.integrity). */
	integrity: string;
	/** The value of N8N_COMMUNITY_PACKAGES every process got. */
	value: string;
	processes: ProcessPackageSource[];
}

export interface QueueCluster {
	main: N8nServer;
	workers: N8nServer[];
	webhookProcesses: N8nServer[];
	postgres: PostgresService;
	redis: RedisService;
	nginx: NginxService;
	/** A production webhook through nginx: /webhook/<webhookId>[/<path>]. */
	webhookUrl(webhookId: string, webhookPath?: string): string;
	/** The same webhook straight at one webhook process (bypassing nginx). */
	directWebhookUrl(index: number, webhookId: string, webhookPath?: string): string;
	/** SIGTERM to every webhook process, then each started again on its port. */
	restartWebhookProcesses(): Promise<void>;
	/** How long each part took to start. */
	timings: string[];
	/** Set when the processes installed the package by environment (installByEnv). */
	packageByEnv?: PackageByEnv;
	stop(): Promise<void>;
}

export const QUEUE_DATABASE = 'n8n';

/** `n8n worker --concurrency` unless QueueClusterOptions.concurrency says otherwise (n8n's own default is 10). */
export const DEFAULT_WORKER_CONCURRENCY = 5;

/**
 * WEBHOOK_URL of every process: the public address a deployment sets everywhere. Workers build
 * resume URLs from it, and n8n 1.x signs their host; the tests send such URLs to nginx or a
 * webhook process with this Host header.
 */
export const QUEUE_PUBLIC_URL = 'http://n8n-queue.test/';

export async function startQueueCluster(inst: N8nInstall, options: QueueClusterOptions): Promise<QueueCluster> {
	const log = options.log ?? (() => undefined);
	const workerCount = options.workers ?? 2;
	const webhookCount = options.webhookProcesses ?? 2;
	const concurrency = options.concurrency ?? DEFAULT_WORKER_CONCURRENCY;
	const timings: string[] = [];
	const folders: string[] = [];
	const started: Array<{ stop(): Promise<void> }> = [];
	const registries: LocalRegistry[] = [];
	let t = Date.now();
	const lap = (what: string) => {
		timings.push(`${what} ${formatDuration(Date.now() - t)}`);
		t = Date.now();
	};
	const stopAll = async () => {
		// n8n processes first (they hold connections), then nginx, Redis and PostgreSQL
		for (const s of [...started].reverse()) {
			try {
				await s.stop();
			} catch {
				// keep stopping the rest
			}
		}
		started.length = 0;
		for (const r of registries.splice(0)) await r.close();
		if (process.env.QUEUE_KEEP !== '1') for (const f of folders) fs.rmSync(f, { recursive: true, force: true });
	};

	try {
		const postgres = await startPostgres({ log });
		started.push(postgres);
		await postgres.createDatabase(QUEUE_DATABASE);
		const redis = await startRedis({ log });
		started.push(redis);
		lap('PostgreSQL and Redis');

		const byEnv = options.installByEnv ?? inst.target.major === '2';
		let packageByEnv: PackageByEnv | undefined;
		let template: string | undefined;
		let preload: string | undefined;
		if (byEnv) {
			// n8n accepts N8N_COMMUNITY_PACKAGES_REGISTRY other than registry.npmjs.org only with the
			// license feature feat:communityNodes:customRegistry. The test switches on that one
			// feature with a preload (as n8n's own E2E_TESTS mode does through PATCH /rest/e2e/feature,
			// which comes too late here: the main process installs before its server starts).
			const support = createUserFolder(`n8n-queue-${inst.target.id}-env-`);
			folders.push(support);
			preload = path.join(support, 'custom-registry-license.cjs');
			fs.writeFileSync(preload, CUSTOM_REGISTRY_PRELOAD);
		} else {
			// One install in the Community Nodes layout, copied to every process's folder.
			template = createUserFolder(`n8n-queue-${inst.target.id}-package-`);
			folders.push(template);
			await installCommunityPackage(inst, template, options.tarball);
		}
		const packageEnv = new Map<string, NodeJS.ProcessEnv>();
		const folderFor = async (name: string) => {
			const folder = createUserFolder(`n8n-queue-${inst.target.id}-${name}-`);
			folders.push(folder);
			if (template) {
				fs.cpSync(path.join(template, '.n8n', 'nodes'), path.join(folder, '.n8n', 'nodes'), { recursive: true });
				return folder;
			}
			const registry = await startLocalRegistry({ tarball: options.tarball });
			registries.push(registry);
			const value = JSON.stringify([{ name: registry.name, version: registry.version, checksum: registry.integrity }]);
			packageByEnv ??= { name: registry.name, version: registry.version, integrity: registry.integrity, value, processes: [] };
			packageByEnv.processes.push({ process: name, userFolder: folder, registry });
			packageEnv.set(name, {
				N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV: 'true',
				N8N_COMMUNITY_PACKAGES: value,
				N8N_COMMUNITY_PACKAGES_REGISTRY: registry.url,
				N8N_REINSTALL_MISSING_PACKAGES: 'true',
				// an empty npm cache per process: each one fetches the tarball from its registry
				npm_config_cache: path.join(folder, 'npm-cache'),
				NODE_OPTIONS: `--require ${preload}`,
			});
			return folder;
		};
		if (template) lap('package install');

		const shared: NodeJS.ProcessEnv = {
			EXECUTIONS_MODE: 'queue',
			...postgres.n8nEnv(QUEUE_DATABASE),
			...redis.n8nEnv(),
			N8N_DEFAULT_BINARY_DATA_MODE: 'database',
			N8N_AVAILABLE_BINARY_DATA_MODES: 'filesystem,database',
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '15',
			WEBHOOK_URL: QUEUE_PUBLIC_URL,
			...options.env,
		};
		const logLevel = options.verbose ? 'debug' : 'info';
		const start = (name: string, command: 'start' | 'worker' | 'webhook', folder: string, extra: NodeJS.ProcessEnv = {}, port?: number) =>
			startN8nServer(inst, {
				userFolder: folder,
				command,
				args: command === 'worker' ? [`--concurrency=${concurrency}`] : [],
				port,
				env: { ...shared, ...packageEnv.get(name), ...extra },
				logLevel,
				echoPrefix: options.verbose ? `      [${name}] ` : undefined,
			});

		// The main process migrates the database: the others start once it is ready.
		const main = await start('main', 'start', await folderFor('main'), { N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' });
		started.push(main);
		await main.setupOwner();
		lap('main');

		const webhookFolders: string[] = [];
		for (let i = 0; i < webhookCount; i++) webhookFolders.push(await folderFor(`webhook${i + 1}`));
		const workerFolders: string[] = [];
		for (let i = 0; i < workerCount; i++) workerFolders.push(await folderFor(`worker${i + 1}`));
		const [workers, webhookProcesses] = await Promise.all([
			Promise.all(workerFolders.map((folder, i) => start(`worker${i + 1}`, 'worker', folder))),
			Promise.all(webhookFolders.map((folder, i) => start(`webhook${i + 1}`, 'webhook', folder))),
		]);
		started.push(...workers, ...webhookProcesses);
		lap(`${workerCount} workers and ${webhookCount} webhook processes`);

		const nginx = await startNginx({
			upstreams: webhookProcesses.map((w) => w.port),
			hash: options.nginxHash ?? '$request_uri consistent',
			log,
		});
		// nginx is stopped after the n8n processes but before Redis and PostgreSQL
		started.splice(2, 0, nginx);
		lap('nginx');

		const hookPath = (webhookId: string, webhookPath?: string) => `/webhook/${webhookId}${webhookPath ? `/${webhookPath}` : ''}`;
		const cluster: QueueCluster = {
			main,
			workers,
			webhookProcesses,
			postgres,
			redis,
			nginx,
			webhookUrl: (webhookId, webhookPath) => `${nginx.url}${hookPath(webhookId, webhookPath)}`,
			directWebhookUrl: (index, webhookId, webhookPath) => `${cluster.webhookProcesses[index].url}${hookPath(webhookId, webhookPath)}`,
			async restartWebhookProcesses() {
				const ports = cluster.webhookProcesses.map((w) => w.port);
				await Promise.all(cluster.webhookProcesses.map((w) => w.stop()));
				const restarted = await Promise.all(ports.map((port, i) => start(`webhook${i + 1}`, 'webhook', webhookFolders[i], {}, port)));
				for (const [i, w] of restarted.entries()) {
					started[started.indexOf(cluster.webhookProcesses[i])] = w;
				}
				cluster.webhookProcesses = restarted;
			},
			timings,
			packageByEnv,
			stop: stopAll,
		};
		return cluster;
	} catch (e) {
		await stopAll();
		throw e;
	}
}

/**
 * CommonJS preload for n8n 2.x (NODE_OPTIONS=--require): License.isCustomNpmRegistryEnabled() answers
 * true, nothing else changes. n8n's community-packages.service.js requires "../../license".
 */
const CUSTOM_REGISTRY_PRELOAD = `'use strict';
const Module = require('node:module');
const load = Module._load;
Module._load = function (request) {
	const exported = load.apply(this, arguments);
	if (/(^|\\/)license(\\.js)?$/.test(request)) {
		const License = exported && exported.License;
		if (License && License.prototype && typeof License.prototype.isCustomNpmRegistryEnabled === 'function') {
			License.prototype.isCustomNpmRegistryEnabled = function () { return true; };
			Module._load = load;
		}
	}
	return exported;
};
`;

/** The cluster's n8n processes by name, as a request goes: main, webhook1, webhook2, …, worker1, worker2, … */
export function clusterProcesses(cluster: QueueCluster): Array<{ name: string; server: N8nServer }> {
	return [
		{ name: 'main', server: cluster.main },
		...cluster.webhookProcesses.map((server, i) => ({ name: `webhook${i + 1}`, server })),
		...cluster.workers.map((server, i) => ({ name: `worker${i + 1}`, server })),
	];
}

/** The last `lines` lines each n8n process printed, for a failure report. */
export function clusterOutputTails(cluster: QueueCluster, lines = 15): string {
	return clusterProcesses(cluster)
		.map(({ name, server }) => `--- ${name} (tail) ---\n${server.output().split('\n').slice(-lines).join('\n')}`)
		.join('\n');
}

/** Where each worker's log stands now: pass it to executionsPerWorker later. */
export function workerLogMarks(cluster: QueueCluster): number[] {
	return cluster.workers.map((w) => w.output().split('\n').length - 1);
}

/** Executions each worker started since `since` (workerLogMarks), from its log ("Worker started execution <id>" at info level). */
export function executionsPerWorker(cluster: QueueCluster, since: number[]): number[] {
	return cluster.workers.map((w, i) => {
		const lines = w.output().split('\n').slice(since[i]);
		return lines.filter((l) => /Worker started execution|Start job/i.test(l)).length;
	});
}
