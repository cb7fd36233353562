/**
 * Jest's globalSetup: refuses to run tests against compiled code older than its sources. Jest runs
 * build/ (tests, simulator, scripts, and the nodes the tests import) and n8n's engine loads dist/
 * (the package as n8n loads it); both come from the TypeScript sources, and a stale copy would test
 * old code without a word. `npm test` builds both first; `npx jest` alone after an edit stops here.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');

/** Every .ts file under `dir` (relative to the repository), declarations excepted. */
function sources(dir) {
	const found = [];
	const walk = (rel) => {
		const abs = path.join(root, rel);
		if (!fs.existsSync(abs)) return;
		for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
			const child = path.join(rel, entry.name);
			if (entry.isDirectory()) walk(child);
			else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(child);
		}
	};
	walk(dir);
	return found;
}

/**
 * Sources whose compiled file under `outDir` is older than they are, or missing where `complete`
 * (dist/ holds every node; build/ only what the tests import).
 */
function stale(dirs, outDir, complete) {
	return dirs
		.flatMap(sources)
		.filter((source) => {
			const compiled = path.join(root, outDir, source.replace(/\.ts$/, '.js'));
			if (!fs.existsSync(compiled)) return complete;
			return fs.statSync(compiled).mtimeMs < fs.statSync(path.join(root, source)).mtimeMs;
		});
}

module.exports = async () => {
	const problems = [
		...stale(['nodes', 'credentials'], 'dist', true).map((s) => `dist/ for ${s}`),
		...stale(['nodes', 'credentials', 'test', 'simulator'], 'build', false).map((s) => `build/ for ${s}`),
	];
	if (problems.length) {
		throw new Error(
			`Compiled code is older than its sources (${problems.length}: ${problems.slice(0, 5).join(', ')}${problems.length > 5 ? ', …' : ''}). Run \`npm run build && npm run build:tools\` first (npm test does).`,
		);
	}
};
