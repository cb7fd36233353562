/**
 * Workplace Bot node versions. 1.1 brought the User and Thread resource locators and the
 * carousel column's action builder; workflows saved with version 1 keep their fields and send
 * the same requests.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { Show } from '../../shared/descriptions/fields';

/** Fields of version 1.1 and later. */
export const FROM_V1_1: Show = { '@version': [{ _cnd: { gte: 1.1 } }] };
/** Fields of version 1 only. */
export const BEFORE_V1_1: Show = { '@version': [{ _cnd: { lt: 1.1 } }] };

/** Whether the running node is version 1.1 or later. */
export function isV1_1OrLater(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return ctx.getNode().typeVersion >= 1.1;
}
