import type { INodeProperties } from 'n8n-workflow';

import type { Resource, SelectorChoices } from '../resource';
import { DEFAULT_TIMEOUT_SECONDS } from '../transport/timeLimit';

/** The subtitle of every action node: the chosen operation and resource, e.g. "create: form". */
export const OPERATION_SUBTITLE = '={{$parameter["operation"] + ": " + $parameter["resource"]}}';

/** "Request Options", shown on every operation of every action node. Defaults match DEFAULT_RETRY_POLICY (timeLimit.ts: DEFAULT_TIMEOUT_SECONDS) and DEFAULT_MAX_CONCURRENCY. */
export const requestOptionsProperty: INodeProperties = {
	displayName: 'Request Options',
	name: 'requestOptions',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	description: 'How many calls the node makes at once, how long each may take, and how it waits and retries when the platform is busy',
	options: [
		{
			displayName: 'Max Concurrency',
			// saved as "concurrency": a value saved when it was a fixed number becomes the maximum
			name: 'concurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 200 },
			default: 50,
			description:
				'Most items worked on at once. Below it the node adapts: more calls while the platform answers, fewer and paced after a 429 (rate limit). Items for the same user, group, thread or knowledge base always go one after another, in item order.',
		},
		{
			displayName: 'Max Rate Limit Retries',
			name: 'maxRateLimitRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 20 },
			default: 3,
			description:
				'How many times a call answered with 429 (rate limit) is retried after the wait the platform asks for in Retry-After',
		},
		{
			displayName: 'Max Retry Wait (Seconds)',
			name: 'maxRetryWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 3600 },
			default: 60,
			description:
				'Longest Retry-After the node waits for; a longer one fails the item at once instead of stalling the workflow',
		},
		{
			displayName: 'Max Server Error Retries',
			name: 'maxServerErrorRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 10 },
			default: 2,
			description:
				'How many times a call the platform can safely receive twice (a read, replace or delete, or a create sent with an idempotency key) is retried after a 5xx answer, a lost connection or a timeout. Other creates, uploads and sends are never retried after these, so nothing is created twice.',
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 3600 },
			default: DEFAULT_TIMEOUT_SECONDS,
			description:
				'How long a call may wait for the platform. A call fails when its answer has not come within this time; a file upload or download only when no data moved for this long, so a large file is never cut off while it flows. A timed-out read, replace or delete is retried (Max Server Error Retries); a create, upload or send is not sent again, as it may have reached the platform.',
		},
	],
};

/** Return All / Limit, as in n8n's built-in nodes. */
export function returnAllOrLimit(displayOptions: INodeProperties['displayOptions']): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			displayOptions,
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			displayOptions: {
				...displayOptions,
				show: { ...(displayOptions?.show ?? {}), returnAll: [false] },
			},
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
		},
	];
}

/**
 * An action node's properties: the "Resource" selector, each resource's operation selector and
 * fields in the order of `resources`, then `requestOptions`.
 */
export function actionNodeProperties(
	resources: Record<string, Resource>,
	{ options, default: firstResource }: SelectorChoices,
	requestOptions: INodeProperties = requestOptionsProperty,
): INodeProperties[] {
	return [
		{
			displayName: 'Resource',
			name: 'resource',
			type: 'options',
			noDataExpression: true,
			options,
			default: firstResource,
		},
		...Object.values(resources).flatMap((resource) => resource.description),
		requestOptions,
	];
}
