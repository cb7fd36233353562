/**
 * Helpers to write e2e scenario workflows compactly.
 *
 *   const wf = chain([
 *     node('Start', 'n8n-nodes-base.manualTrigger', 1, {}),
 *     knowledge('Create Base', { resource: 'knowledgeBase', operation: 'create', name: 'x' }, cred),
 *   ]);
 */
import { createHash } from 'node:crypto';

import type { ScenarioCredential, WorkflowJson, WorkflowNode } from './types';

export const PACKAGE = 'n8n-nodes-workplace';

/** A stable 16-character alphanumeric id derived from a text (n8n ids are 16 alphanumerics). */
export function stableId(prefix: string, text: string): string {
	return (prefix + createHash('sha256').update(text).digest('hex')).slice(0, 16);
}

/** A stable uuid-shaped node id. */
function nodeUuid(name: string): string {
	const h = createHash('sha256').update(`node:${name}`).digest('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const credentialId = (name: string) => stableId('cred', name);
export const workflowId = (name: string) => stableId('wf', name);

export interface NodeOptions {
	credentials?: ScenarioCredential | ScenarioCredential[];
	/** Names of the nodes feeding this one (default: the previous node of the chain). [] = none. */
	after?: string | string[];
	/** Node settings such as executeOnce, alwaysOutputData, onError, retryOnFail. */
	settings?: Record<string, unknown>;
}

export interface NodeSpec extends NodeOptions {
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
}

export function node(
	name: string,
	type: string,
	typeVersion: number,
	parameters: Record<string, unknown>,
	options: NodeOptions = {},
): NodeSpec {
	return { name, type, typeVersion, parameters, ...options };
}

export const manualTrigger = (name = 'Start') => node(name, 'n8n-nodes-base.manualTrigger', 1, {}, { after: [] });

/** Set node (v3.4) with simple assignments; values starting with '=' are expressions. */
export function set(name: string, fields: Record<string, string | number | boolean>, options: NodeOptions = {}): NodeSpec {
	const assignments = Object.entries(fields).map(([key, value], i) => ({
		id: stableId('a', `${name}/${i}`),
		name: key,
		type: typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'string',
		value,
	}));
	return node(name, 'n8n-nodes-base.set', 3.4, { assignments: { assignments }, options: {} }, options);
}

/** Convert to File (v1.1) from a base64 string field into a binary property. */
export function base64ToFile(
	name: string,
	opts: { sourceProperty: string; binaryPropertyName?: string; fileName: string; mimeType: string },
	options: NodeOptions = {},
): NodeSpec {
	return node(
		name,
		'n8n-nodes-base.convertToFile',
		1.1,
		{
			operation: 'toBinary',
			sourceProperty: opts.sourceProperty,
			binaryPropertyName: opts.binaryPropertyName ?? 'data',
			options: { fileName: opts.fileName, mimeType: opts.mimeType },
		},
		options,
	);
}

/** A resource locator parameter value in "By ID" mode. */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** Builds nodes and connections; each node connects from `after` (default: the previous spec). */
export function chain(specs: NodeSpec[], extra: Partial<WorkflowJson> = {}): WorkflowJson {
	const nodes: WorkflowNode[] = [];
	const connections: WorkflowJson['connections'] = {};
	const names = new Set<string>();
	specs.forEach((s, i) => {
		if (names.has(s.name)) throw new Error(`Duplicate node name "${s.name}"`);
		names.add(s.name);
		const creds = s.credentials === undefined ? [] : Array.isArray(s.credentials) ? s.credentials : [s.credentials];
		const n: WorkflowNode = {
			id: nodeUuid(s.name),
			name: s.name,
			type: s.type,
			typeVersion: s.typeVersion,
			position: [i * 220, 0],
			parameters: s.parameters,
			...(s.settings ?? {}),
		};
		if (creds.length) n.credentials = Object.fromEntries(creds.map((c) => [c.type, { id: c.id, name: c.name }]));
		nodes.push(n);
		const from = s.after === undefined ? (i > 0 ? [specs[i - 1].name] : []) : Array.isArray(s.after) ? s.after : [s.after];
		for (const f of from) {
			connections[f] ??= { main: [[]] };
			connections[f].main[0].push({ node: s.name, type: 'main', index: 0 });
		}
	});
	for (const f of Object.keys(connections)) {
		if (!names.has(f)) throw new Error(`Connection from unknown node "${f}"`);
	}
	return { nodes, connections, ...extra };
}
