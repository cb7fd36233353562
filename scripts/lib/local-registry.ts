/**
 * A minimal npm registry on 127.0.0.1 that serves one package tarball (the `npm pack` of this
 * repository), so n8n's own Community Nodes install code (which runs `npm pack <name>@<version>
 * --registry=<registry>`) can fetch it as from registry.npmjs.org.
 *
 * Routes (GET only, what npm and n8n ask for):
 *   /<name>                     packument: dist-tags {latest}, versions {<version>: manifest}
 *   /<name>/<version or tag>    one version's manifest (n8n checks the version exists with it)
 *   /<name>/-/<name>-<v>.tgz    the tarball
 * The manifest is the tarball's own package.json plus `_id` and `dist` {tarball, shasum,
 * integrity (sha512)}, computed from the tarball's bytes, so npm verifies what it downloads.
 * Anything else answers 404 (JSON, as the npm registry does). Every request is logged.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface RegistryRequest {
	method: string;
	/** Decoded path, e.g. `/n8n-nodes-workplace` or `/n8n-nodes-workplace/-/n8n-nodes-workplace-0.1.0.tgz`. */
	path: string;
	status: number;
	/** What was served: packument, manifest, tarball or nothing. */
	served: 'packument' | 'manifest' | 'tarball' | 'none';
	userAgent?: string;
}

export interface LocalRegistry {
	/** `http://127.0.0.1:<port>` (no trailing slash) */
	url: string;
	name: string;
	version: string;
	/** URL of the tarball, as listed in the manifest's dist.tarball. */
	tarballUrl: string;
	/** sha512 SRI of the tarball (dist.integrity) */
	integrity: string;
	/** Paths inside the package (without the leading `package/`), files only, sorted. */
	files: string[];
	requests: RegistryRequest[];
	close(): Promise<void>;
}

interface TarEntry {
	name: string;
	type: string;
	data: Buffer;
}

/** Reads the entries of a .tgz (ustar, as `npm pack` writes: regular files, pax headers). */
export function readTarball(tgz: Buffer): TarEntry[] {
	const tar = gunzipSync(tgz);
	const entries: TarEntry[] = [];
	let paxPath: string | undefined;
	let offset = 0;
	while (offset + 512 <= tar.length) {
		const header = tar.subarray(offset, offset + 512);
		if (header.every((b) => b === 0)) break;
		const field = (start: number, length: number) =>
			header
				.subarray(start, start + length)
				.toString('utf8')
				.replace(/\0.*$/s, '');
		const size = parseInt(field(124, 12).trim() || '0', 8);
		const type = field(156, 1) || '0';
		const prefix = field(345, 155);
		const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
		const data = tar.subarray(offset + 512, offset + 512 + size);
		offset += 512 + Math.ceil(size / 512) * 512;
		if (type === 'x') {
			// pax extended header: "<len> path=<value>\n" records
			const m = /\d+ path=([^\n]*)\n/.exec(data.toString('utf8'));
			paxPath = m?.[1];
			continue;
		}
		if (type === 'g') continue;
		entries.push({ name: paxPath ?? name, type, data: Buffer.from(data) });
		paxPath = undefined;
	}
	return entries;
}

/** Strips the tarball's top folder (`package/`). */
function inPackage(name: string): string {
	return name.replace(/^[^/]+\//, '');
}

export async function startLocalRegistry(options: { tarball: string; port?: number }): Promise<LocalRegistry> {
	const bytes = fs.readFileSync(options.tarball);
	const entries = readTarball(bytes);
	const pjEntry = entries.find((e) => inPackage(e.name) === 'package.json');
	if (!pjEntry) throw new Error(`${options.tarball} has no package/package.json`);
	const pj = JSON.parse(pjEntry.data.toString('utf8')) as Record<string, unknown> & { name: string; version: string };
	const { name, version } = pj;
	const files = entries
		.filter((e) => e.type === '0' || e.type === '')
		.map((e) => inPackage(e.name))
		.sort();
	const tarballFile = `${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
	const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
	const shasum = createHash('sha1').update(bytes).digest('hex');
	const requests: RegistryRequest[] = [];

	let url = '';
	const manifest = () => ({
		...pj,
		_id: `${name}@${version}`,
		dist: { tarball: `${url}/${name}/-/${tarballFile}`, shasum, integrity },
	});
	const packument = () => {
		const time = new Date(fs.statSync(options.tarball).mtimeMs).toISOString();
		return {
			_id: name,
			name,
			description: pj.description,
			'dist-tags': { latest: version },
			versions: { [version]: manifest() },
			time: { created: time, modified: time, [version]: time },
		};
	};

	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		let path: string;
		try {
			path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
		} catch {
			path = req.url ?? '/';
		}
		const entry: RegistryRequest = { method: req.method ?? 'GET', path, status: 404, served: 'none', userAgent: req.headers['user-agent'] };
		requests.push(entry);
		const send = (status: number, body: Buffer | string, type: string) => {
			entry.status = status;
			// no caching: every install asks again (the tests count the requests)
			res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
			res.end(req.method === 'HEAD' ? undefined : body);
		};
		const json = (status: number, body: unknown) => send(status, JSON.stringify(body), 'application/json');
		if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'method not allowed' });

		const prefix = `/${name}`;
		if (path === prefix) {
			entry.served = 'packument';
			return json(200, packument());
		}
		if (path === `${prefix}/-/${tarballFile}`) {
			entry.served = 'tarball';
			return send(200, bytes, 'application/octet-stream');
		}
		if (path.startsWith(`${prefix}/`) && !path.slice(prefix.length + 1).includes('/')) {
			const spec = path.slice(prefix.length + 1);
			if (spec === version || spec === 'latest') {
				entry.served = 'manifest';
				return json(200, manifest());
			}
			return json(404, { error: `version not found: ${spec}` });
		}
		return json(404, { error: 'not_found' });
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
	});
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url,
		name,
		version,
		tarballUrl: `${url}/${name}/-/${tarballFile}`,
		integrity,
		files,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
