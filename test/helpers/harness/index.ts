/** TEST-ONLY node and credential types used by test/engine/harness.test.ts. */
import type { ICredentialType, INodeType } from 'n8n-workflow';

import { HarnessApiKeyApi } from './HarnessApiKeyApi.credentials';
import { HarnessBinaryProbe } from './HarnessBinaryProbe.node';
import { HarnessHttpProbe } from './HarnessHttpProbe.node';
import { HarnessSessionApi } from './HarnessSessionApi.credentials';

export {
	HarnessApiKeyApi,
	HarnessBinaryProbe,
	HarnessHttpProbe,
	HarnessSessionApi,
};

export function harnessTypes(): { nodes: INodeType[]; credentials: ICredentialType[] } {
	return {
		nodes: [new HarnessHttpProbe(), new HarnessBinaryProbe()],
		credentials: [new HarnessApiKeyApi(), new HarnessSessionApi()],
	};
}
