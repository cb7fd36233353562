/** This package: pack it and install it as a community package. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { runChecked } from '../proc';
import type { N8nInstall } from './install';
import { cleanEnv, npmEnv } from './npm-env';
import { npmCliPath, repoRoot } from './paths';

/** `npm pack` of the repository (dist/ must be built) into outDir; returns the tarball path. */
export async function packPackage(outDir: string): Promise<string> {
	fs.mkdirSync(outDir, { recursive: true });
	const root = repoRoot();
	if (!fs.existsSync(path.join(root, 'dist'))) throw new Error(`${root}/dist is missing: run \`npm run build\` first`);
	const r = await runChecked(process.execPath, [npmCliPath(), 'pack', '--pack-destination', outDir, '--json', '--ignore-scripts'], {
		cwd: root,
		env: cleanEnv(),
		timeoutMs: 120_000,
	});
	const info = JSON.parse(r.stdout) as Array<{ filename: string }>;
	const file = path.join(outDir, info[0].filename.replace(/^@/, '').replace(/\//, '-'));
	if (!fs.existsSync(file)) throw new Error(`npm pack did not create ${file}`);
	return file;
}

/** Node and credential type names the package declares (package.json `n8n`, read from dist/). */
export function declaredTypes(): { nodes: string[]; credentials: string[] } {
	const root = repoRoot();
	const pj = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
		name: string;
		n8n?: { nodes?: string[]; credentials?: string[] };
	};
	const load = (file: string): Array<Record<string, unknown>> => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const mod = require(path.join(root, file)) as Record<string, unknown>;
		return Object.values(mod)
			.filter((v): v is new () => Record<string, unknown> => typeof v === 'function')
			.map((C) => new C());
	};
	const nodes = (pj.n8n?.nodes ?? []).flatMap((f) =>
		load(f).flatMap((n) => {
			const d = (n.description ?? (n.baseDescription as Record<string, unknown> | undefined)) as
				| { name?: string }
				| undefined;
			return d?.name ? [`${pj.name}.${d.name}`] : [];
		}),
	);
	const credentials = (pj.n8n?.credentials ?? []).flatMap((f) =>
		load(f).flatMap((c) => (typeof c.name === 'string' ? [c.name] : [])),
	);
	return { nodes, credentials };
}

export interface InstalledCommunityPackage {
	name: string;
	version: string;
	dir: string;
}

/**
 * Installs a package tarball into a user folder exactly as n8n's Community Nodes panel does
 * (CommunityPackagesService.downloadPackage in n8n 1.123 and 2.41):
 *   <N8N_USER_FOLDER>/.n8n/nodes/package.json  {name: 'installed-nodes', private, dependencies}
 *   <N8N_USER_FOLDER>/.n8n/nodes/node_modules/<name>/  <- `tar -xzf <tgz> --strip-components=1`
 *   package.json without devDependencies, peerDependencies, optionalDependencies, then
 *   `npm install --audit=false --fund=false --bin-links=false --install-strategy=shallow
 *    --ignore-scripts=true --package-lock=false` inside the package folder,
 *   and the version recorded in nodes/package.json.
 * n8n loads every package in nodes/node_modules at startup (community-packages module's loadDir),
 * with node types named `<package name>.<node name>` (no renaming, unlike N8N_CUSTOM_EXTENSIONS).
 * The panel also records the package in the installed_packages table; that only feeds the UI list.
 */
export async function installCommunityPackage(
	inst: N8nInstall,
	userFolder: string,
	tarball: string,
): Promise<InstalledCommunityPackage> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const nodesPackageJson = path.join(nodesDir, 'package.json');
	fs.mkdirSync(nodesDir, { recursive: true });
	if (!fs.existsSync(nodesPackageJson)) {
		fs.writeFileSync(
			nodesPackageJson,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
			'utf-8',
		);
	}
	const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-pkg-'));
	try {
		await runChecked('tar', ['-xzf', tarball, '-C', staging, '--strip-components=1'], { timeoutMs: 60_000 });
		const pj = JSON.parse(fs.readFileSync(path.join(staging, 'package.json'), 'utf-8')) as {
			name: string;
			version: string;
			devDependencies?: unknown;
			peerDependencies?: unknown;
			optionalDependencies?: unknown;
		};
		const packageDir = path.join(nodesDir, 'node_modules', pj.name);
		fs.rmSync(packageDir, { recursive: true, force: true });
		fs.mkdirSync(packageDir, { recursive: true });
		await runChecked('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], { timeoutMs: 60_000 });
		const { devDependencies: _d, peerDependencies: _p, optionalDependencies: _o, ...stripped } = pj;
		void _d;
		void _p;
		void _o;
		fs.writeFileSync(path.join(packageDir, 'package.json'), JSON.stringify(stripped, null, 2), 'utf-8');
		await runChecked(
			inst.node.bin,
			[
				npmCliPath(),
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
			],
			{ cwd: packageDir, env: npmEnv(inst.node.bin, { NODE_ENV: 'production' }), timeoutMs: 300_000 },
		);
		const nodesPj = JSON.parse(fs.readFileSync(nodesPackageJson, 'utf-8')) as { dependencies: Record<string, string> };
		nodesPj.dependencies = { ...nodesPj.dependencies, [pj.name]: pj.version };
		fs.writeFileSync(nodesPackageJson, JSON.stringify(nodesPj, null, 2), 'utf-8');
		return { name: pj.name, version: pj.version, dir: packageDir };
	} finally {
		fs.rmSync(staging, { recursive: true, force: true });
	}
}
