/**
 * Workplace-specific helpers for e2e scenarios: credentials against the simulator and
 * node builders for this package's nodes.
 */
import { createHash } from 'node:crypto';

import type { ScenarioCredential, LoggedRequest } from './types';
import { credentialId, node, PACKAGE, type NodeOptions, type NodeSpec } from './workflow';

export const knowledgeCredential: ScenarioCredential = {
	id: credentialId('workplaceKnowledgeApi/simulator'),
	name: 'Workplace Knowledge (simulator)',
	type: 'workplaceKnowledgeApi',
	data: ({ sim }) => ({ knowledgeUrl: sim.knowledgeUrl, apiKey: sim.credentials.knowledgeApiKey }),
};

/** A builder of one of this package's nodes (typeVersion 1) with a credential and preset parameters. */
export function packageNode(type: string, credential: ScenarioCredential, preset: Record<string, unknown> = {}) {
	return (name: string, parameters: Record<string, unknown>, options: NodeOptions = {}): NodeSpec =>
		node(name, `${PACKAGE}.${type}`, 1, { ...preset, ...parameters }, { credentials: credential, ...options });
}

/** A Workplace Knowledge node (typeVersion 1) using the simulator credential. */
export const knowledge = packageNode('workplaceKnowledge', knowledgeCredential);

export const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Deterministic pseudo-random bytes (xorshift), so uploads are binary-safe and reproducible. */
export function pseudoRandomBytes(size: number, seed = 1): Buffer {
	const out = Buffer.alloc(size);
	let x = seed >>> 0 || 1;
	for (let i = 0; i < size; i++) {
		x ^= x << 13;
		x >>>= 0;
		x ^= x >>> 17;
		x ^= x << 5;
		x >>>= 0;
		out[i] = x & 0xff;
	}
	return out;
}

/** "METHOD /path" of each logged request, for compact sequence assertions. */
export const requestLines = (log: LoggedRequest[]) => log.map((r) => `${r.method} ${r.path}`);

export const botCredential: ScenarioCredential = {
	id: credentialId('workplaceBotOAuth2Api/simulator'),
	name: 'Workplace Bot (simulator)',
	type: 'workplaceBotOAuth2Api',
	data: ({ sim }) => ({ baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret: sim.credentials.botClientSecret }),
};

/** A Workplace Bot node (typeVersion 1) using the simulator credential. */
export const bot = packageNode('workplaceBot', botCredential);
