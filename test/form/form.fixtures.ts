import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Simulator } from '../../simulator';
import type { RunNodeOptions } from '../helpers/engine';
import { runNode } from '../helpers/engine';

export const NODE = 'workplaceForm';
export const FORMS = '/v1/forms';

export function formCredentials(
	sim: Simulator,
	overrides: { apiKey?: string; token?: string; baseUrl?: string } = {},
): Record<string, IDataObject> {
	return {
		workplaceFormApi: {
			baseUrl: sim.url,
			apiKey: sim.credentials.formApiKey,
			token: sim.credentials.formApiToken,
			...overrides,
		},
	};
}

/** The parameters every form needs, in the node's field mode. */
export const BASE: INodeParameters = {
	name: 'Leave request',
	subject: 'Leave from 3 to 5 March',
	senderUserId: 'alice',
	receiverUserIds: 'bob',
	status: 'submitted',
	formFields: { field: [{ type: 'textinput', name: 'Reason', value: '', editable: true }] },
};

/** Runs the Form node once against the simulator with a fresh request log. */
export async function runForm(
	sim: Simulator,
	parameters: INodeParameters,
	options: Partial<RunNodeOptions> & { credentials?: Record<string, IDataObject> } = {},
) {
	sim.log.clear();
	const result = await runNode({
		nodeType: NODE,
		parameters: { resource: 'form', operation: 'create', ...parameters },
		credentials: formCredentials(sim),
		...options,
	});
	return { ...result, requests: sim.log.all().filter((r) => r.interface === 'form') };
}

export { only } from '../helpers/simulator';
