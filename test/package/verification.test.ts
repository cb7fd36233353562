/**
 * What n8n's verification guidelines for community nodes ask of package.json and the repository
 * (https://docs.n8n.io/integrations/creating-nodes/build/reference/verification-guidelines/), as far
 * as files can tell, and the two conditions of `n8n-node cloud-support` (@n8n/node-cli): strict mode
 * and n8n's default eslint.config.mjs. `npm run cloud-support` asks the CLI itself, compares the
 * config with the CLI's own template and runs `n8n-node lint`; `npm test` runs it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const read = (name: string) => readFileSync(path.join(ROOT, name), 'utf8');

interface PackageJson {
	name: string;
	license?: string;
	keywords?: string[];
	homepage?: string;
	repository?: { type?: string; url?: string } | string;
	files?: string[];
	scripts: Record<string, string>;
	dependencies?: Record<string, string>;
	optionalDependencies?: Record<string, string>;
	bundleDependencies?: unknown;
	bundledDependencies?: unknown;
	peerDependencies?: Record<string, string>;
	n8n?: { strict?: boolean; nodes?: string[]; credentials?: string[] };
}

const pkg = JSON.parse(read('package.json')) as PackageJson;

/** dist/template/templates/shared/default/eslint.config.mjs of @n8n/node-cli 0.48.3, byte for byte. */
const N8N_DEFAULT_ESLINT_CONFIG = "import { config } from '@n8n/node-cli/eslint';\n\nexport default config;\n";

describe("n8n Cloud: what `n8n-node cloud-support` checks", () => {
	it('package.json declares strict mode ("n8n": {"strict": true})', () => {
		expect(pkg.n8n?.strict).toBe(true);
	});

	it("eslint.config.mjs is n8n's default config, byte for byte (this repository's rules are in eslint.project.config.mjs)", () => {
		expect(read('eslint.config.mjs')).toBe(N8N_DEFAULT_ESLINT_CONFIG);
		expect(existsSync(path.join(ROOT, 'eslint.project.config.mjs'))).toBe(true);
	});

	it('npm test runs the cloud-support check with n8n-node lint, and npm run lint runs both ESLint configs', () => {
		expect(pkg.scripts.test).toMatch(/node build\/scripts\/cloud-support\.js( |$)/);
		expect(pkg.scripts.test).not.toMatch(/--no-lint/);
		expect(pkg.scripts['cloud-support']).toMatch(/node build\/scripts\/cloud-support\.js$/);
		expect(pkg.scripts.lint).toBe('npm run lint:project && npm run lint:n8n');
		expect(pkg.scripts['lint:project']).toBe('eslint -c eslint.project.config.mjs --max-warnings 0 .');
	});
});

describe("n8n's verification guidelines: package.json and repository", () => {
	it('is named n8n-nodes-* and carries the n8n-community-node-package keyword', () => {
		expect(pkg.name).toMatch(/^(@[a-z0-9-~][a-z0-9-._~]*\/)?n8n-nodes-/);
		expect(pkg.keywords).toContain('n8n-community-node-package');
	});

	it('is MIT licensed (package.json and LICENSE)', () => {
		expect(pkg.license).toBe('MIT');
		expect(read('LICENSE')).toMatch(/^MIT License\n/);
	});

	it('names its public GitHub repository, and the homepage is that repository', () => {
		const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
		const match = /^(?:git\+)?https:\/\/github\.com\/([\w.-]+\/[\w.-]+?)(?:\.git)?$/.exec(url ?? '');
		expect(match).not.toBeNull();
		expect(pkg.homepage?.startsWith(`https://github.com/${match?.[1]}`)).toBe(true);
	});

	it('has no runtime dependencies: n8n-workflow is a peer dependency, everything else is a dev dependency', () => {
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.optionalDependencies ?? {}).toEqual({});
		expect(pkg.bundleDependencies ?? pkg.bundledDependencies ?? []).toEqual([]);
		expect(Object.keys(pkg.peerDependencies ?? {})).toEqual(['n8n-workflow']);
	});

	it('publishes dist/ only, and lists its nodes and credentials in the n8n section', () => {
		expect(pkg.files).toEqual(['dist']);
		expect(pkg.n8n?.nodes?.length).toBeGreaterThan(0);
		for (const file of [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])]) expect(file).toMatch(/^dist\/.+\.js$/);
	});

	it('has documentation: a README with installation, credentials, usage and example workflows', () => {
		const readme = read('README.md');
		for (const heading of ['## Installation', '## Credentials', '## Operations', '## Usage']) expect(readme).toContain(`\n${heading}\n`);
		expect(readme).toMatch(/\]\(examples\//);
	});
});
