/**
 * Node and credential type registry for the engine test bed.
 *
 * The package under test is loaded the way n8n loads an installed community package: the
 * repository root's package.json `n8n` section (pointing to dist/) is read by n8n-core's
 * `LazyPackageDirectoryLoader` (which falls back to the eager `PackageDirectoryLoader`
 * behaviour when there is no dist/known index), and every node/credential class is
 * instantiated by the loader. Node types are then known as `<packageName>.<name>`
 * (e.g. `n8n-nodes-workplace.workplaceKnowledge`), credential types by their name.
 *
 * Test-only types (the start node, anything a test registers with `registerTestTypes`) live next to them under the pseudo package
 * `n8n-nodes-engine-test`.
 */
import 'reflect-metadata';
import './engine-env';

import {
	LazyPackageDirectoryLoader,
	UnrecognizedCredentialTypeError,
	UnrecognizedNodeTypeError,
} from 'n8n-core';
import type {
	ICredentialType,
	ICredentialTypes,
	IDataObject,
	INodeCredentialDescription,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeHelpers, UnexpectedError } from 'n8n-workflow';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { EngineLoop } from './builtin/EngineLoop.node';
import { EngineManualTrigger } from './builtin/EngineManualTrigger.node';
import { initEngineContainer } from './engine-container';

/** Pseudo package name of test-only node types. */
export const TEST_PACKAGE_NAME = 'n8n-nodes-engine-test';
/** Full type name of the start node used by `runNode`. */
export const START_NODE_TYPE = `${TEST_PACKAGE_NAME}.manualTrigger`;
/** Full type name of the loop `runNode` puts before the node under test with `loopRuns`. */
export const LOOP_NODE_TYPE = `${TEST_PACKAGE_NAME}.loop`;

type AnyNodeType = INodeType | IVersionedNodeType;

interface NodeEntry {
	type: AnyNodeType;
	packageName: string;
	className: string;
	sourcePath: string;
}

interface CredentialEntry {
	type: ICredentialType;
	packageName: string;
	className: string;
	sourcePath: string;
}

function isVersioned(type: AnyNodeType): type is IVersionedNodeType {
	return 'nodeVersions' in type;
}

function allVersions(type: AnyNodeType): INodeType[] {
	return isVersioned(type) ? Object.values(type.nodeVersions) : [type];
}

export class EngineTypeRegistry {
	private readonly nodes = new Map<string, NodeEntry>();

	private readonly credentials = new Map<string, CredentialEntry>();

	/** n8n-workflow's INodeTypes view (used by `Workflow` and the execution engine). */
	readonly nodeTypes: INodeTypes = {
		getByName: (nodeType: string): AnyNodeType => this.getNodeEntry(nodeType).type,
		getByNameAndVersion: (nodeType: string, version?: number): INodeType =>
			NodeHelpers.getVersionedNodeType(this.getNodeEntry(nodeType).type, version),
		getKnownTypes: (): IDataObject => {
			const known: IDataObject = {};
			for (const [name, entry] of this.nodes) {
				known[name] = { className: entry.className, sourcePath: entry.sourcePath };
			}
			return known;
		},
	};

	/** n8n-workflow's ICredentialTypes view (used by the credentials helper). */
	readonly credentialTypes: ICredentialTypes = {
		recognizes: (credentialType: string): boolean => this.credentials.has(credentialType),
		getByName: (credentialType: string): ICredentialType => this.getCredentialEntry(credentialType).type,
		getSupportedNodes: (credentialType: string): string[] => this.getSupportedNodes(credentialType),
		getParentTypes: (credentialType: string): string[] => this.getParentTypes(credentialType),
	};

	addNode(fullName: string, type: AnyNodeType, packageName: string, sourcePath = ''): void {
		const existing = this.nodes.get(fullName);
		if (existing) {
			if (existing.type === type) return;
			throw new UnexpectedError(`Engine test bed: node type "${fullName}" is registered twice`);
		}
		this.nodes.set(fullName, {
			type,
			packageName,
			className: type.constructor.name,
			sourcePath,
		});
	}

	addCredential(type: ICredentialType, packageName: string, sourcePath = ''): void {
		const existing = this.credentials.get(type.name);
		if (existing) {
			if (existing.type === type) return;
			throw new UnexpectedError(
				`Engine test bed: credential type "${type.name}" is defined by both "${existing.packageName}" and "${packageName}"`,
			);
		}
		this.credentials.set(type.name, {
			type,
			packageName,
			className: type.constructor.name,
			sourcePath,
		});
	}

	hasNode(fullName: string): boolean {
		return this.nodes.has(fullName);
	}

	listNodeTypes(packageName?: string): string[] {
		return [...this.nodes.entries()]
			.filter(([, entry]) => packageName === undefined || entry.packageName === packageName)
			.map(([name]) => name);
	}

	listCredentialTypes(packageName?: string): string[] {
		return [...this.credentials.entries()]
			.filter(([, entry]) => packageName === undefined || entry.packageName === packageName)
			.map(([name]) => name);
	}

	/**
	 * Full type name for `name`: a name containing a dot is taken as is; a short name is
	 * looked up in the package under test first, then among the test-only types.
	 */
	resolveNodeTypeName(name: string, preferredPackage?: string): string {
		if (name.includes('.')) {
			this.getNodeEntry(name);
			return name;
		}
		const candidates = [preferredPackage, TEST_PACKAGE_NAME]
			.filter((pkg): pkg is string => pkg !== undefined)
			.map((pkg) => `${pkg}.${name}`);
		const found = candidates.find((candidate) => this.nodes.has(candidate));
		if (found) return found;
		const matches = [...this.nodes.keys()].filter((full) => full.endsWith(`.${name}`));
		if (matches.length === 1) return matches[0];
		throw new UnexpectedError(
			`Engine test bed: unknown node type "${name}". Known: ${[...this.nodes.keys()].join(', ') || '(none)'}`,
		);
	}

	/** The version a new node of this type gets in the editor: defaultVersion, else the latest. */
	defaultVersion(fullName: string): number {
		const type = this.getNodeEntry(fullName).type;
		if (isVersioned(type)) return type.description.defaultVersion ?? type.currentVersion;
		const { version, defaultVersion } = type.description;
		if (Array.isArray(version)) return defaultVersion ?? Math.max(...version);
		return version;
	}

	getParentTypes(credentialType: string): string[] {
		const type = this.credentials.get(credentialType)?.type;
		if (!type?.extends) return [];
		const parents: string[] = [];
		for (const parent of type.extends) {
			parents.push(parent, ...this.getParentTypes(parent));
		}
		return parents;
	}

	getSupportedNodes(credentialType: string): string[] {
		const supported: string[] = [];
		for (const [fullName, entry] of this.nodes) {
			const uses = allVersions(entry.type).some((version) =>
				(version.description.credentials ?? []).some(
					(credential: INodeCredentialDescription) => credential.name === credentialType,
				),
			);
			if (uses) supported.push(fullName);
		}
		return supported;
	}

	private getNodeEntry(fullName: string): NodeEntry {
		const entry = this.nodes.get(fullName);
		if (entry) return entry;
		const dot = fullName.lastIndexOf('.');
		throw new UnrecognizedNodeTypeError(fullName.slice(0, Math.max(dot, 0)), fullName.slice(dot + 1));
	}

	private getCredentialEntry(name: string): CredentialEntry {
		const entry = this.credentials.get(name);
		if (entry) return entry;
		throw new UnrecognizedCredentialTypeError(name);
	}
}

/** The process-wide registry (one per jest test file, as jest isolates module registries). */
export const engineTypes = new EngineTypeRegistry();
engineTypes.addNode(START_NODE_TYPE, new EngineManualTrigger(), TEST_PACKAGE_NAME, __filename);
engineTypes.addNode(LOOP_NODE_TYPE, new EngineLoop(), TEST_PACKAGE_NAME, __filename);

/** Registers test-only node and credential types (node types become `n8n-nodes-engine-test.<name>`). */
export function registerTestTypes(types: {
	nodes?: AnyNodeType[];
	credentials?: ICredentialType[];
}): { nodes: string[]; credentials: string[] } {
	const nodes: string[] = [];
	for (const type of types.nodes ?? []) {
		const fullName = `${TEST_PACKAGE_NAME}.${type.description.name}`;
		engineTypes.addNode(fullName, type, TEST_PACKAGE_NAME);
		nodes.push(fullName);
	}
	const credentials: string[] = [];
	for (const type of types.credentials ?? []) {
		engineTypes.addCredential(type, TEST_PACKAGE_NAME);
		credentials.push(type.name);
	}
	return { nodes, credentials };
}

/**
 * n8n's "<node> Tool" variant of a node of the package under test, which n8n registers for every
 * `usableAsTool` node and runs when an AI agent calls the node as a tool: the same node class
 * under the type name with `Tool` appended (`n8n-nodes-workplace.workplaceKnowledgeTool`), so a
 * node's `getNode().type` ends with `Tool`. Returns that full type name, for runNode's `nodeType`.
 */
export async function registerToolVariant(name: string): Promise<string> {
	const pkg = await loadPackageNodeTypes();
	const fullType = engineTypes.resolveNodeTypeName(name, pkg.packageName);
	const toolType = `${fullType}Tool`;
	if (!engineTypes.hasNode(toolType)) {
		engineTypes.addNode(toolType, engineTypes.nodeTypes.getByName(fullType), pkg.packageName ?? TEST_PACKAGE_NAME);
	}
	return toolType;
}

export interface PackageLoadResult {
	/** Package directory (the one holding package.json). */
	directory: string;
	/** `name` from package.json, `undefined` if nothing was loaded. */
	packageName: string | undefined;
	/** false when loading was skipped because dist/ does not exist (not built yet). */
	loaded: boolean;
	skippedReason?: string;
	/** Full node type names, e.g. `n8n-nodes-workplace.workplaceKnowledge`. */
	nodeTypes: string[];
	credentialTypes: string[];
}

/**
 * Loads one package directory through n8n-core's package loader and registers its types.
 * Throws on a broken layout (no `n8n` section, listed files missing, class names not
 * matching file names, ...), exactly where n8n would fail to load the package.
 */
export async function loadPackageDirectory(
	directory: string,
	registry: EngineTypeRegistry = engineTypes,
): Promise<PackageLoadResult> {
	await initEngineContainer(); // the loader logs through the DI container's Logger
	const packageJson = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as {
		n8n?: { nodes?: unknown; credentials?: unknown };
	};
	if (!packageJson.n8n || typeof packageJson.n8n !== 'object') {
		throw new UnexpectedError(`package.json in ${directory} has no "n8n" section`);
	}

	const loader = new LazyPackageDirectoryLoader(directory);
	await loader.loadAll();

	const { packageName } = loader;
	const nodeTypes: string[] = [];
	for (const name of Object.keys(loader.known.nodes)) {
		const { type, sourcePath } = loader.getNode(name);
		const fullName = `${packageName}.${name}`;
		registry.addNode(fullName, type, packageName, path.resolve(loader.directory, sourcePath));
		nodeTypes.push(fullName);
	}
	const credentialTypes: string[] = [];
	for (const name of Object.keys(loader.known.credentials)) {
		const { type, sourcePath } = loader.getCredential(name);
		registry.addCredential(type, packageName, path.resolve(loader.directory, sourcePath));
		credentialTypes.push(name);
	}

	const declared = (value: unknown) => (Array.isArray(value) ? value.length : 0);
	if (nodeTypes.length !== declared(packageJson.n8n.nodes)) {
		throw new UnexpectedError(
			`${packageName}: package.json declares ${declared(packageJson.n8n.nodes)} node file(s) but ${nodeTypes.length} node type(s) were loaded`,
		);
	}
	if (credentialTypes.length !== declared(packageJson.n8n.credentials)) {
		throw new UnexpectedError(
			`${packageName}: package.json declares ${declared(packageJson.n8n.credentials)} credential file(s) but ${credentialTypes.length} credential type(s) were loaded`,
		);
	}

	return { directory, packageName, loaded: true, nodeTypes, credentialTypes };
}

/** Finds the repository root: the nearest ancestor of this file with a package.json that has an `n8n` section. */
export function findPackageRoot(start: string = __dirname): string {
	const override = process.env.N8N_ENGINE_PACKAGE_DIR;
	if (override) return path.resolve(override);
	let dir = start;
	for (;;) {
		const candidate = path.join(dir, 'package.json');
		if (existsSync(candidate)) {
			const json = JSON.parse(readFileSync(candidate, 'utf8')) as { n8n?: unknown };
			if (json.n8n) return dir;
		}
		const parent = path.dirname(dir);
		if (parent === dir) {
			throw new UnexpectedError(`No package.json with an "n8n" section above ${start}`);
		}
		dir = parent;
	}
}

let packageLoad: Promise<PackageLoadResult> | undefined;

/**
 * Loads the package under test (the repository root, compiled to dist/ by `npm run build`)
 * into the registry, once per process. Only when dist/ does not exist at all is loading
 * skipped (result `loaded: false`); any other problem rejects.
 */
export async function loadPackageNodeTypes(): Promise<PackageLoadResult> {
	packageLoad ??= (async (): Promise<PackageLoadResult> => {
		const directory = findPackageRoot();
		if (!existsSync(path.join(directory, 'dist'))) {
			return {
				directory,
				packageName: undefined,
				loaded: false,
				skippedReason: `${path.join(directory, 'dist')} does not exist (run "npm run build")`,
				nodeTypes: [],
				credentialTypes: [],
			};
		}
		return await loadPackageDirectory(directory);
	})();
	return await packageLoad;
}
