/** Options > Limit Wait Time: when n8n stops waiting and the execution goes on as timed out. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { readDateInput, toIsoUtc } from '../../../../shared/dates';
import { invalidInput } from '../../../../shared/validation';
import { nodeParameter } from '../../../../shared/parameters';

const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** The date n8n resumes the execution without an answer; WAIT_INDEFINITELY without a limit. */
export function readWaitTill(ctx: IExecuteFunctions, itemIndex: number, now = Date.now()): Date {
	const limit = nodeParameter(ctx, 'options.limitWaitTime.values', itemIndex, {}) as IDataObject;
	if (Object.keys(limit).length === 0) return WAIT_INDEFINITELY;
	const field = 'Options > Limit Wait Time';
	if (limit.limitType === 'atSpecifiedTime') {
		const parsed = readDateInput(ctx, itemIndex, `${field} > Max Date and Time`, limit.maxDateAndTime);
		const at = new Date(toIsoUtc(parsed, ctx.getTimezone()));
		if (at.getTime() <= now) {
			throw invalidInput(ctx, itemIndex, `${field} > Max Date and Time`, 'must be in the future', limit.maxDateAndTime);
		}
		return at;
	}
	const amount = limit.resumeAmount ?? 1;
	if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
		throw invalidInput(ctx, itemIndex, `${field} > Amount`, 'must be a number above 0', amount);
	}
	const unit = String(limit.resumeUnit ?? 'hours');
	const unitMs = UNIT_MS[unit];
	if (unitMs === undefined) {
		throw invalidInput(ctx, itemIndex, `${field} > Unit`, 'must be "minutes", "hours" or "days"', unit);
	}
	return new Date(now + amount * unitMs);
}
