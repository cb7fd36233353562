import type { IExecuteFunctions } from 'n8n-workflow';

import { DEFAULT_TIMEOUT_SECONDS } from './timeLimit';
import { nodeParameter } from '../parameters';

/** How an item's calls are retried, and how long each may take ("Request Options"). */
export interface RetryPolicy {
	/** How many times a 429 answer is waited out and retried. */
	maxRateLimitRetries: number;
	/** Longest Retry-After honoured; a longer one fails at once instead of stalling the workflow. */
	maxRetryWaitSeconds: number;
	/** Retries of idempotent calls (GET, PUT, DELETE) after a 5xx, a lost connection or a timeout. */
	maxServerErrorRetries: number;
	/**
	 * "Timeout": the time limit of one attempt (timeLimit.ts). A call's whole answer must come within
	 * it; an upload or download fails only after this long without a byte moving.
	 */
	timeoutSeconds: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxRateLimitRetries: 3,
	maxRetryWaitSeconds: 60,
	maxServerErrorRetries: 2,
	timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
};

/** The node's "Request Options" for one item, over the defaults. */
export function readRetryPolicy(ctx: IExecuteFunctions, itemIndex: number): RetryPolicy {
	const options = nodeParameter(ctx, 'requestOptions', itemIndex, {}) as Partial<RetryPolicy>;
	const policy = { ...DEFAULT_RETRY_POLICY, ...options };
	// an expression may give anything: a limit is a positive number of seconds
	policy.timeoutSeconds = Number(policy.timeoutSeconds) > 0 ? Number(policy.timeoutSeconds) : DEFAULT_TIMEOUT_SECONDS;
	return policy;
}

/**
 * Policies the router handed over, per node run and item: operations pass only their item
 * index to the transport, so the policy travels beside the call instead of through every
 * operation's arguments.
 */
const handedPolicies = new WeakMap<object, Map<number, RetryPolicy>>();

/** Called by the router before an item's operation runs. */
export function handRetryPolicy(ctx: object, itemIndex: number, policy: RetryPolicy): void {
	let perItem = handedPolicies.get(ctx);
	if (!perItem) {
		perItem = new Map();
		handedPolicies.set(ctx, perItem);
	}
	perItem.set(itemIndex, policy);
}

/** The policy the router handed over for this item; the defaults for load-options and webhook calls. */
export function getRetryPolicy(ctx: object, itemIndex: number): RetryPolicy {
	return handedPolicies.get(ctx)?.get(itemIndex) ?? DEFAULT_RETRY_POLICY;
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(parseFloat(text) * 1000);
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The wait before a retry the platform gave no Retry-After for. */
export function backoffMs(attempt: number): number {
	return Math.min(500 * 2 ** attempt, 8000);
}
