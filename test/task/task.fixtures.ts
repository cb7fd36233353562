import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Simulator } from '../../simulator';
import type { RunNodeOptions } from '../helpers/engine';
import { runNode } from '../helpers/engine';

export const NODE = 'workplaceTask';
export const TASKS = '/api/v1/task-projects/tasks';

export function taskCredentials(sim: Simulator, token = sim.credentials.taskJwt): Record<string, IDataObject> {
	return { workplaceTaskApi: { baseUrl: sim.url, token } };
}

/** Runs the Task node once against the simulator with a fresh request log. */
export async function runTask(
	sim: Simulator,
	parameters: INodeParameters,
	options: Partial<RunNodeOptions> & { token?: string } = {},
) {
	sim.log.clear();
	const { token, ...rest } = options;
	const result = await runNode({
		nodeType: NODE,
		parameters: { resource: 'task', operation: 'create', ...parameters },
		credentials: taskCredentials(sim, token),
		...rest,
	});
	return { ...result, requests: sim.log.all().filter((r) => r.interface === 'task') };
}

export { only } from '../helpers/simulator';

/** An Idempotency-Key the node derives (a SHA-256 in UUID layout, version 8). */
export const DERIVED_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
