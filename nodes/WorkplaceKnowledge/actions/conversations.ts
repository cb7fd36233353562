import type { IExecuteFunctions } from 'n8n-workflow';

import { requireId } from '../../shared/validation';

/**
 * The router's conversations of the knowledge operations (see router.ts): items in one go one
 * after another, in item order; items in different ones may run at once.
 */

/** Items that change one knowledge base or its files: in item order. */
export function knowledgeBaseConversationKey(this: IExecuteFunctions, itemIndex: number): string {
	return `knowledgeBase:${requireId(this, itemIndex, 'knowledgeBaseId', 'Knowledge Base')}`;
}

/**
 * File uploads, replacements and downloads: one at a time, as before the node adapted its
 * concurrency; in n8n's database binary mode each may hold a whole file in memory.
 */
export function fileTransferConversationKey(): string {
	return 'fileTransfer';
}
