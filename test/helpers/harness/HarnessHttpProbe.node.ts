import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

const CREDENTIAL_BY_AUTHENTICATION: Record<string, string> = {
	apiKey: 'harnessApiKeyApi',
	session: 'harnessSessionApi',
};

/**
 * TEST-ONLY node for test/engine/harness.test.ts (not part of the package): sends one
 * request per item with `this.helpers.httpRequestWithAuthentication`, like a real
 * programmatic node, and returns the response body.
 */
export class HarnessHttpProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness HTTP Probe',
		name: 'harnessHttpProbe',
		group: ['transform'],
		version: [1, 2],
		defaultVersion: 2,
		description: 'Calls a local test server with authentication applied by n8n',
		defaults: { name: 'HTTP Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'harnessApiKeyApi',
				required: true,
				displayOptions: { show: { authentication: ['apiKey'] } },
			},
			{
				name: 'harnessSessionApi',
				required: true,
				displayOptions: { show: { authentication: ['session'] } },
			},
		],
		properties: [
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'options',
				options: [
					{ name: 'API Key', value: 'apiKey' },
					{ name: 'Session Token', value: 'session' },
				],
				default: 'apiKey',
			},
			{
				displayName: 'Method',
				name: 'method',
				type: 'options',
				options: [
					{ name: 'GET', value: 'GET' },
					{ name: 'POST', value: 'POST' },
				],
				default: 'GET',
			},
			{
				displayName: 'Path',
				name: 'path',
				type: 'string',
				default: '/echo',
				required: true,
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const returnData: INodeExecutionData[] = [];
		const authentication = this.getNodeParameter('authentication', 0) as string;
		const credentialType = CREDENTIAL_BY_AUTHENTICATION[authentication];

		for (let i = 0; i < items.length; i++) {
			try {
				const credentials = await this.getCredentials<{ baseUrl: string }>(credentialType, i);
				const method = this.getNodeParameter('method', i) as IHttpRequestMethods;
				const path = this.getNodeParameter('path', i) as string;
				const response = (await this.helpers.httpRequestWithAuthentication.call(this, credentialType, {
					method,
					url: `${credentials.baseUrl}${path}`,
					qs: { item: i },
					body: method === 'POST' ? { item: items[i].json } : undefined,
					json: true,
				})) as IDataObject;
				returnData.push({ json: response, pairedItem: { item: i } });
			} catch (error) {
				if (this.continueOnFail()) {
					returnData.push({
						json: { error: error.message, httpCode: error.httpCode },
						pairedItem: { item: i },
					});
					continue;
				}
				if (error instanceof NodeApiError || error instanceof NodeOperationError) throw error;
				throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
			}
		}
		return [returnData];
	}
}
