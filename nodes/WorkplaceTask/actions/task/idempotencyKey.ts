import { createHash, randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * The Idempotency-Key of an item without one in Options, derived from what identifies its create:
 * the execution, the node, the node's run index, the item index and the body. n8n's Retry On Fail
 * runs the node again with the same run index, so a retried item sends the same key and a platform
 * that honours it answers with the first task; another execution, item or body, or a loop running
 * the node again (a new run index), gets another key. The body is built in a fixed field order, so
 * the same input gives the same bytes.
 */
export function derivedIdempotencyKey(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject): string {
	const executionId = ctx.getExecutionId();
	// Without an execution ID nothing tells two runs apart: a random key, never a shared one.
	if (!executionId) return randomUUID();
	const runIndex = Number(ctx.getWorkflowDataProxy(itemIndex).$runIndex);
	const identity = JSON.stringify([executionId, ctx.getNode().id, runIndex, itemIndex, body]);
	const hex = createHash('sha256').update(identity).digest('hex');
	// UUID layout: version 8 (RFC 9562's custom, e.g. name-based with SHA-256) and the RFC variant.
	const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
