/**
 * The documentation holds together: every relative link and #anchor in the Markdown files users and
 * contributors read resolves (GitHub's heading anchors), and every example workflow imports with the
 * node versions and parameters the built package (dist/) declares. No n8n is started.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** The Markdown files checked, relative to the repository root (folders: every .md below them). */
const DOCS = ['README.md', 'CONTRIBUTING.md', 'docs', 'examples/README.md', 'simulator/README.md', 'test/e2e/README.md'];

function markdownFiles(): string[] {
	const files: string[] = [];
	const walk = (rel: string): void => {
		const abs = path.join(ROOT, rel);
		if (statSync(abs).isDirectory()) {
			for (const entry of readdirSync(abs).sort()) walk(path.join(rel, entry));
		} else if (rel.endsWith('.md')) {
			files.push(rel.split(path.sep).join('/'));
		}
	};
	for (const rel of DOCS) walk(rel);
	return files;
}

/** The text without fenced code blocks (their lines kept empty, so line numbers stay right). */
function withoutCodeBlocks(text: string): string[] {
	const lines = text.split('\n');
	let fence: string | undefined;
	return lines.map((line) => {
		const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
		if (fence) {
			if (open && open[1][0] === fence[0] && open[1].length >= fence.length && line.trim() === open[1]) fence = undefined;
			return '';
		}
		if (open) {
			fence = open[1];
			return '';
		}
		return line;
	});
}

/** A line without its inline code spans. */
function withoutInlineCode(line: string): string {
	return line.replace(/(`+)[\s\S]*?\1/g, '');
}

/** GitHub's anchor of a heading's text (github-slugger): lowercase, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
	const text = heading
		.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/<[^>]+>/g, '')
		.replace(/`/g, '')
		.replace(/[*~]/g, '')
		.replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1');
	return text
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
		.replace(/ /g, '-');
}

/** Every anchor a Markdown file offers: its headings' slugs (repeats get -1, -2, ...) and explicit ids. */
function anchorsOf(text: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of withoutCodeBlocks(text)) {
		const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+\s*)?$/.exec(line);
		if (heading) {
			const base = slug(heading[1]);
			const count = seen.get(base) ?? 0;
			seen.set(base, count + 1);
			anchors.add(count === 0 ? base : `${base}-${count}`);
		}
		for (const id of line.matchAll(/<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) anchors.add(id[1]);
	}
	return anchors;
}

interface Link {
	file: string;
	line: number;
	target: string;
}

/** The links of a Markdown file that point inside the repository: inline, images, references, HTML. */
function relativeLinks(file: string, text: string): Link[] {
	const links: Link[] = [];
	withoutCodeBlocks(text).forEach((raw, index) => {
		const line = withoutInlineCode(raw);
		const targets: string[] = [];
		for (const m of line.matchAll(/\]\(\s*<?([^()\s<>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) targets.push(m[1]);
		const reference = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
		if (reference) targets.push(reference[1]);
		for (const m of line.matchAll(/<(?:a|img)\s[^>]*\b(?:href|src)\s*=\s*["']([^"']+)["']/gi)) targets.push(m[1]);
		for (const target of targets) {
			if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
			links.push({ file, line: index + 1, target });
		}
	});
	return links;
}

/** What is wrong with a link, or undefined when it resolves. */
function problemOf(link: Link, anchorCache: Map<string, Set<string>>): string | undefined {
	const hash = link.target.indexOf('#');
	const pathPart = hash === -1 ? link.target : link.target.slice(0, hash);
	const anchor = hash === -1 ? undefined : link.target.slice(hash + 1);
	let decoded: string;
	try {
		decoded = decodeURIComponent(pathPart);
	} catch {
		return 'the path is not valid URL encoding';
	}
	const resolved =
		decoded === ''
			? path.join(ROOT, link.file)
			: decoded.startsWith('/')
				? path.join(ROOT, decoded)
				: path.resolve(path.dirname(path.join(ROOT, link.file)), decoded);
	const rel = path.relative(ROOT, resolved);
	if (rel.startsWith('..') || path.isAbsolute(rel)) return 'points outside the repository';
	if (!existsSync(resolved)) return `no file or folder ${rel.split(path.sep).join('/') || '.'}`;
	if (anchor === undefined || anchor === '' || !resolved.endsWith('.md') || statSync(resolved).isDirectory()) return undefined;
	let anchors = anchorCache.get(resolved);
	if (!anchors) {
		anchors = anchorsOf(readFileSync(resolved, 'utf8'));
		anchorCache.set(resolved, anchors);
	}
	if (anchors.has(decodeURIComponent(anchor))) return undefined;
	return `no heading or anchor "#${anchor}" in ${rel.split(path.sep).join('/')}`;
}

describe('documentation links', () => {
	const files = markdownFiles();

	it('finds the Markdown files to check', () => {
		expect(files).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'examples/README.md']));
		expect(files.some((f) => f.startsWith('docs/nodes/'))).toBe(true);
	});

	it('slugs headings as GitHub does', () => {
		expect(slug('Activate (n8n 1.x) is Publish (n8n 2.x)')).toBe('activate-n8n-1x-is-publish-n8n-2x');
		expect(slug("Install through n8n's Community Nodes endpoint")).toBe('install-through-n8ns-community-nodes-endpoint');
		expect(slug('`sim.state` (SimulatorState)')).toBe('simstate-simulatorstate');
		expect(slug('Workplace Bot: Send and Wait for Response')).toBe('workplace-bot-send-and-wait-for-response');
		expect(slug('Scripted LLM (OpenAI-compatible chat model)')).toBe('scripted-llm-openai-compatible-chat-model');
		expect(slug('**403** (any node)')).toBe('403-any-node');
		expect(slug('snake_case and _emphasis_')).toBe('snake_case-and-emphasis');
		const repeated = anchorsOf('# Notes\n\n## Notes\n\n```sh\n# Notes\n```\n\n## Notes\n<a id="custom"></a>\n');
		expect([...repeated].sort()).toEqual(['custom', 'notes', 'notes-1', 'notes-2']);
	});

	it('every relative link and #anchor resolves', () => {
		const anchorCache = new Map<string, Set<string>>();
		const broken: string[] = [];
		let checked = 0;
		for (const file of files) {
			for (const link of relativeLinks(file, readFileSync(path.join(ROOT, file), 'utf8'))) {
				checked++;
				const problem = problemOf(link, anchorCache);
				if (problem) broken.push(`${link.file}:${link.line}: (${link.target}): ${problem}`);
			}
		}
		expect(checked).toBeGreaterThan(50);
		if (broken.length > 0) {
			throw new Error(`${broken.length} broken link(s) in the documentation:\n${broken.join('\n')}`);
		}
	});
});

interface NodeDescription {
	name: string;
	version: number | number[];
	usableAsTool?: boolean;
	properties: Array<{ name: string }>;
}

interface WorkflowNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters?: Record<string, unknown>;
}

const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	name: string;
	n8n: { nodes: string[] };
};

/** The package's node descriptions by name, loaded from dist/ as n8n loads them. */
function packageNodes(): Map<string, NodeDescription> {
	const nodes = new Map<string, NodeDescription>();
	for (const file of PACKAGE.n8n.nodes) {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exports = require(path.join(ROOT, file)) as Record<string, new () => { description: NodeDescription }>;
		for (const NodeClass of Object.values(exports)) {
			if (typeof NodeClass !== 'function') continue;
			const { description } = new NodeClass();
			nodes.set(description.name, description);
		}
	}
	return nodes;
}

/** Whether a node has a Send and Wait operation (n8n 2 then offers it as a human review tool). */
function hasSendAndWait(description: NodeDescription): boolean {
	return description.properties.some((p) => p.name === 'operation' && (p as { options?: Array<{ value?: unknown }> }).options?.some((o) => o.value === 'sendAndWait'));
}

/** Parameters n8n adds to a node used as an AI Agent's tool (`<name>Tool`). */
const TOOL_PARAMETERS = ['descriptionType', 'toolDescription'];

describe('example workflows', () => {
	const nodes = packageNodes();
	const examples = readdirSync(path.join(ROOT, 'examples'))
		.filter((f) => f.endsWith('.json'))
		.sort();

	it('loads the five nodes and finds the examples', () => {
		expect([...nodes.keys()].sort()).toEqual([
			'workplaceBot',
			'workplaceForm',
			'workplaceKnowledge',
			'workplaceTask',
			'workplaceTrigger',
		]);
		expect(examples.length).toBeGreaterThan(0);
	});

	it.each(examples)('%s uses the shipped node versions and parameters', (example) => {
		const workflow = JSON.parse(readFileSync(path.join(ROOT, 'examples', example), 'utf8')) as { nodes: WorkflowNode[] };
		const problems: string[] = [];
		let workplaceNodes = 0;
		for (const node of workflow.nodes) {
			if (!node.type.startsWith(`${PACKAGE.name}.`)) continue;
			workplaceNodes++;
			const typeName = node.type.slice(PACKAGE.name.length + 1);
			// n8n 2 makes a human review tool (`<node>HitlTool`) of every node with a Send and Wait operation.
			const asReview = !nodes.has(typeName) && typeName.endsWith('HitlTool');
			const asTool = !nodes.has(typeName) && typeName.endsWith('Tool');
			const description = nodes.get(asReview ? typeName.slice(0, -'HitlTool'.length) : asTool ? typeName.slice(0, -'Tool'.length) : typeName);
			if (!description || (asReview && !hasSendAndWait(description)) || (asTool && !asReview && !description.usableAsTool)) {
				problems.push(`"${node.name}": the package has no node type ${node.type}`);
				continue;
			}
			const versions = Array.isArray(description.version) ? description.version : [description.version];
			if (!versions.includes(node.typeVersion)) {
				problems.push(`"${node.name}": typeVersion ${node.typeVersion}, the package ships ${versions.join(', ')}`);
			}
			const known = new Set([...description.properties.map((p) => p.name), ...(asTool ? TOOL_PARAMETERS : [])]);
			for (const parameter of Object.keys(node.parameters ?? {})) {
				if (!known.has(parameter)) problems.push(`"${node.name}": parameter "${parameter}" is not a property of ${description.name}`);
			}
		}
		expect(workplaceNodes).toBeGreaterThan(0);
		expect(problems).toEqual([]);
	});
});
