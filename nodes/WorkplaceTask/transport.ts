import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type { ApiDefinition, RequestContext, WorkplaceResponse } from '../shared/transport';
import { getRetryPolicy, workplaceRequest } from '../shared/transport';

export const TASK_API: ApiDefinition = {
	credentialType: 'workplaceTaskApi',
	baseUrl: (credentials) => String(credentials.baseUrl ?? ''),
};

export const TASKS_PATH = '/api/v1/task-projects/tasks';

/** Retried after a 5xx or a lost connection: the answer may be lost although the task exists. */
function isRetryableFailure(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false; // cancellation and input errors are final
	const platformError = error.context.platformError as { status?: number } | undefined;
	if (platformError === undefined) return true; // no HTTP answer at all (connection refused, reset, timeout)
	return typeof platformError.status === 'number' && platformError.status >= 500;
}

function backoffMs(retry: number): number {
	return Math.min(500 * 2 ** retry, 8000);
}

/**
 * POST a task with an `Idempotency-Key`. The shared transport waits out 429s (Retry-After) but
 * never repeats a POST after a 5xx or a lost connection, since the platform may have created
 * the task already. With the key, the platform answers a repeat with the first result instead
 * of creating a second task, so here a 5xx or a lost connection is retried with the same key
 * and body, with backoff (0.5 s, 1 s, 2 s, ...), up to "Max Server Error Retries" times.
 */
export async function createTaskRequest(
	ctx: RequestContext,
	body: IDataObject,
	idempotencyKey: string,
	itemIndex: number,
): Promise<WorkplaceResponse<IDataObject>> {
	const policy = getRetryPolicy(ctx, itemIndex);
	for (let retry = 0; ; retry++) {
		let failure: unknown;
		try {
			return await workplaceRequest<IDataObject>(
				ctx,
				TASK_API,
				{ method: 'POST', path: TASKS_PATH, body, headers: { 'Idempotency-Key': idempotencyKey } },
				itemIndex,
			);
		} catch (error) {
			failure = error;
		}
		if (retry >= policy.maxServerErrorRetries || !isRetryableFailure(failure)) {
			// The shared transport throws only NodeApiError (platform, network) and NodeOperationError (cancelled).
			if (failure instanceof NodeApiError || failure instanceof NodeOperationError) throw failure;
			throw new NodeOperationError(ctx.getNode(), failure as Error, { itemIndex });
		}
		await sleep(Math.min(backoffMs(retry), policy.maxRetryWaitSeconds * 1000));
	}
}
