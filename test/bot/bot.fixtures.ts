import type { INodeParameters } from 'n8n-workflow';

import type { LoggedRequest, Simulator } from '../../simulator';
import type { RunNodeOptions } from '../helpers/engine';
import { CredentialStore, runNode } from '../helpers/engine';

export function botCredentials(sim: Simulator, clientSecret = sim.credentials.botClientSecret) {
	return {
		workplaceBotOAuth2Api: { baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret },
	};
}

/** Runs the Bot node once; pass a store to model one saved credential across executions. */
export async function runBot(
	sim: Simulator,
	parameters: INodeParameters,
	options: Partial<RunNodeOptions> = {},
) {
	sim.log.clear();
	const credentialStore = options.credentialStore ?? new CredentialStore();
	const result = await runNode({
		nodeType: 'workplaceBot',
		parameters,
		credentials: botCredentials(sim),
		...options,
		credentialStore,
	});
	const log = sim.log.all();
	return {
		...result,
		credentialStore,
		requests: log.filter((r) => r.interface === 'bot' || r.interface === 'image'),
		tokenRequests: log.filter((r) => r.interface === 'oauth'),
	};
}

export { only } from '../helpers/simulator';

export function bearer(request: LoggedRequest): string {
	return request.headers.authorization ?? '';
}
