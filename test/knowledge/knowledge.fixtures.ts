import type { INodeParameters } from 'n8n-workflow';

import type { Simulator } from '../../simulator';
import type { RunNodeOptions } from '../helpers/engine';
import { runNode } from '../helpers/engine';

export const NODE = 'workplaceKnowledge';

export function knowledgeCredentials(sim: Simulator, apiKey = sim.credentials.knowledgeApiKey) {
	return { workplaceKnowledgeApi: { knowledgeUrl: sim.knowledgeUrl, apiKey } };
}

export const byId = (value: string) => ({ __rl: true, mode: 'id', value });
export const fromList = (value: string) => ({ __rl: true, mode: 'list', value });

/** Runs the Knowledge node once against the simulator with a fresh request log. */
export async function runKnowledge(
	sim: Simulator,
	parameters: INodeParameters,
	options: Partial<RunNodeOptions> = {},
) {
	sim.log.clear();
	const result = await runNode({
		nodeType: NODE,
		parameters,
		credentials: knowledgeCredentials(sim),
		...options,
	});
	return { ...result, requests: sim.log.all().filter((r) => r.interface === 'knowledge') };
}

export { only } from '../helpers/simulator';
