/**
 * The release workflow (.github/workflows/publish.yml) publishes with npm trusted publishing: the
 * publish job may request GitHub's OIDC token, no npm token is referenced anywhere, the npm CLI
 * can exchange the OIDC token (11.5.1 or later), and the publish carries provenance, which n8n
 * requires of community packages. The checks run before the publish, and actions are pinned.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { load } from 'js-yaml';

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, unknown>;
}

interface Job {
	needs?: string | string[];
	environment?: string | { name: string };
	permissions?: Record<string, string>;
	env?: Record<string, unknown>;
	steps: Step[];
}

interface Workflow {
	on: { push?: { tags?: string[] } };
	permissions?: Record<string, string>;
	env?: Record<string, unknown>;
	jobs: Record<string, Job>;
}

const ROOT = path.resolve(__dirname, '..', '..', '..');
const FILE = path.join(ROOT, '.github', 'workflows', 'publish.yml');
const text = readFileSync(FILE, 'utf8');
const workflow = load(text) as Workflow;
const publishJob = workflow.jobs.publish;
const steps = publishJob.steps;
const publishIndex = steps.findIndex((s) => /\bnpm publish\b/.test(s.run ?? ''));

function indexOfRun(pattern: RegExp): number {
	return steps.findIndex((s) => pattern.test(s.run ?? ''));
}

function compareVersions(a: string, b: string): number {
	const [x, y] = [a, b].map((v) => v.split('.').map(Number));
	for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
	return 0;
}

describe('publish.yml: npm trusted publishing', () => {
	it('runs on version tags and has one step that publishes', () => {
		expect(workflow.on.push?.tags).toEqual(['v*.*.*']);
		expect(steps.filter((s) => /\bnpm publish\b/.test(s.run ?? ''))).toHaveLength(1);
	});

	it('gives the publish job the OIDC token (id-token: write) and read-only contents; nothing else may write', () => {
		expect(publishJob.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
		expect(workflow.permissions).toEqual({ contents: 'read' });
		for (const [name, job] of Object.entries(workflow.jobs)) {
			if (name !== 'publish') expect(job.permissions?.['id-token']).toBeUndefined();
		}
	});

	it('references no npm token or other secret (no NODE_AUTH_TOKEN, no NPM_TOKEN)', () => {
		expect(text).not.toMatch(/secrets\./);
		expect(text).not.toMatch(/NODE_AUTH_TOKEN|NPM_TOKEN/);
		const envs = [workflow.env, ...Object.values(workflow.jobs).flatMap((j) => [j.env, ...j.steps.map((s) => s.env)])];
		for (const env of envs) expect(Object.keys(env ?? {})).not.toContain('NODE_AUTH_TOKEN');
	});

	it('publishes with provenance, public, from the npm registry set up by setup-node', () => {
		expect(steps[publishIndex].run?.trim()).toBe('npm publish --provenance --access public');
		const setupNode = steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
		expect(setupNode?.with?.['registry-url']).toBe('https://registry.npmjs.org');
	});

	it('publishes with npm 11.5.1 or later, an exact version installed before the publish', () => {
		const install = indexOfRun(/npm install -g npm@\S+/);
		expect(install).toBeGreaterThanOrEqual(0);
		expect(install).toBeLessThan(publishIndex);
		const version = /npm install -g npm@(\S+)/.exec(steps[install].run ?? '')?.[1] ?? '';
		expect(version).toMatch(/^\d+\.\d+\.\d+$/);
		expect(compareVersions(version, '11.5.1')).toBeGreaterThanOrEqual(0);
	});

	it('checks before publishing: the test matrix, then the tag, lint + build + tests, the scanner and the package contents', () => {
		expect(publishJob.needs).toBe('test');
		const checks = [/package\.json'\)\.version/, /^npm ci$/m, /^npm test$/m, /^npm run scan$/m, /npm pack --dry-run/];
		const positions = checks.map(indexOfRun);
		expect(positions.every((p) => p >= 0)).toBe(true);
		expect([...positions].sort((a, b) => a - b)).toEqual(positions);
		expect(Math.max(...positions)).toBeLessThan(publishIndex);
	});

	it('publishes from the GitHub environment "npm" (named in the trusted publisher on npmjs.com)', () => {
		expect(publishJob.environment).toBe('npm');
	});

	it('pins every action to an exact version', () => {
		const uses = Object.values(workflow.jobs).flatMap((j) => j.steps.map((s) => s.uses).filter((u): u is string => Boolean(u)));
		expect(uses.length).toBeGreaterThan(0);
		for (const action of uses) expect(action).toMatch(/@(v\d+\.\d+\.\d+|[0-9a-f]{40})$/);
	});
});
