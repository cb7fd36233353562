import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { credentialText, runCredentialProbe } from '../shared/credentialTest';

import type { RequestContext, WorkplaceRequest, WorkplaceResponse } from '../shared/transport';
import { requestAllPages, workplaceRequest } from '../shared/transport';
import type { ApiDefinition } from '../shared/transport';

export const KNOWLEDGE_API: ApiDefinition = {
	credentialType: 'workplaceKnowledgeApi',
	baseUrl: (credentials) => String(credentials.knowledgeUrl ?? ''),
};

export async function knowledgeRequest<T = IDataObject>(
	ctx: RequestContext,
	request: WorkplaceRequest,
	itemIndex = 0,
): Promise<WorkplaceResponse<T>> {
	return await workplaceRequest<T>(ctx, KNOWLEDGE_API, request, itemIndex);
}

export async function knowledgeList(
	ctx: RequestContext,
	path: string,
	itemIndex: number,
	options: { pageSize: number; limit?: number },
): Promise<IDataObject[]> {
	return await requestAllPages<IDataObject>(ctx, KNOWLEDGE_API, { method: 'GET', path }, itemIndex, options);
}

/**
 * The credential's "Test" button: lists one knowledge base (GET {knowledge_url}/knowledge),
 * which reads nothing sensitive and proves the address, the key and the allowed address list.
 */
export async function testKnowledgeCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const apiKey = credentialText(credential.data, 'apiKey');
	if (apiKey.trim() === '') return { status: 'Error', message: 'Enter the API key in the "API Key" field' };
	return await runCredentialProbe(this.helpers, {
		api: 'knowledge API',
		method: 'GET',
		baseUrl: credentialText(credential.data, 'knowledgeUrl'),
		urlField: 'Knowledge URL',
		urlHint: 'It is the address of the knowledge API including its /api/v1 prefix, e.g. https://workplace.example.com/api/v1.',
		path: '/knowledge',
		qs: { page: 1, pageSize: 1 },
		headers: { 'x-api-key': apiKey, accept: 'application/json' },
		secretName: 'API key',
		rejectedSecret: 'API key',
		secretFields: 'the "API Key" field',
		unauthorizedHint:
			"The knowledge API also answers 401 when n8n calls from an address that is not on the platform's allowed list.",
		forbiddenHint: 'the API key may not list knowledge bases',
		secrets: [apiKey],
	});
}
