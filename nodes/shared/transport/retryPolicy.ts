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
 * The policy of a call made for an item when its caller hands none: in a node run, the node's
 * "Request Options" of that item (read once per run and item, parameters.ts); where no item runs
 * (pickers, webhooks) the defaults.
 */
export function itemRetryPolicy(ctx: object, itemIndex: number): RetryPolicy {
	const run = ctx as Partial<IExecuteFunctions>;
	return typeof run.getInputData === 'function' ? readRetryPolicy(ctx as IExecuteFunctions, itemIndex) : DEFAULT_RETRY_POLICY;
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
