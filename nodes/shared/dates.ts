/**
 * Date inputs of the form and task nodes: whatever n8n hands a node for a date (the date
 * picker's `2025-03-31T00:00:00`, an ISO 8601 string with or without a time zone, a Luxon
 * DateTime from `{{ $now }}`, a JS Date, epoch milliseconds or seconds) read as one of three
 * kinds, then written as the platform wants it: `YYYY-MM-DD` (a form's due date) or ISO 8601
 * UTC (a form stage's or a task's). The checkers use isCalendarDate and isWireTimestamp on
 * request bodies, so a body given as JSON is held to the same calendar.
 *
 * A value without a time zone is read in the workflow's time zone. Uses Intl only, so the
 * package needs no date library at run time.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { FieldName } from './validation';
import { invalidInput } from './validation';

export type ParsedDate =
	/** A calendar date with no time: `2025-03-31`. */
	| { kind: 'date'; year: number; month: number; day: number }
	/** A wall-clock date and time without a zone: `2025-03-31T17:00:00` from the date picker. */
	| { kind: 'local'; year: number; month: number; day: number; hour: number; minute: number; second: number; ms: number }
	/** A point in time: a zoned ISO string, a Date, a Luxon DateTime or epoch time. */
	| { kind: 'instant'; epochMs: number; calendarDate?: string };

interface LuxonLike {
	isValid: boolean;
	toMillis(): number;
	toISODate(): string | null;
}

function isLuxonDateTime(value: unknown): value is LuxonLike {
	return (
		value !== null &&
		typeof value === 'object' &&
		typeof (value as LuxonLike).toMillis === 'function' &&
		typeof (value as LuxonLike).toISODate === 'function' &&
		typeof (value as LuxonLike).isValid === 'boolean'
	);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function validCalendarDate(year: number, month: number, day: number): boolean {
	if (month < 1 || month > 12 || day < 1) return false;
	const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
	return day <= last;
}

/** Whether a value is a `YYYY-MM-DD` date that exists on the calendar. */
export function isCalendarDate(value: unknown): value is string {
	const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
	return m !== null && validCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

const ZONED_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Whether a request body's value is a time the platform reads: epoch time, a calendar date or a zoned ISO 8601 date-time. */
export function isWireTimestamp(value: unknown): boolean {
	if (typeof value === 'number') return Number.isFinite(value) && value >= 0;
	return isCalendarDate(value) || (typeof value === 'string' && ZONED_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)));
}

const ISO =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** Reads a date input; undefined when it is not one of the accepted forms. */
export function parseDateInput(value: unknown): ParsedDate | undefined {
	if (isLuxonDateTime(value)) {
		if (!value.isValid) return undefined;
		return { kind: 'instant', epochMs: value.toMillis(), calendarDate: value.toISODate() ?? undefined };
	}
	if (value instanceof Date) {
		const ms = value.getTime();
		return Number.isNaN(ms) ? undefined : { kind: 'instant', epochMs: ms };
	}
	if (typeof value === 'number') {
		if (!Number.isFinite(value) || value < 0) return undefined;
		// Epoch seconds stay below 1e11 until the year 5138; milliseconds pass it in 1973.
		return { kind: 'instant', epochMs: value < 1e11 ? value * 1000 : value };
	}
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (/^\d{9,13}$/.test(text)) return parseDateInput(Number(text));
	const m = ISO.exec(text);
	if (!m) return undefined;
	const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
	if (!validCalendarDate(year, month, day)) return undefined;
	if (m[4] === undefined) return { kind: 'date', year, month, day };
	const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
	if (hour > 23 || minute > 59 || second > 59) return undefined;
	const ms = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
	const zone = m[8];
	if (zone === undefined) return { kind: 'local', year, month, day, hour, minute, second, ms };
	let offsetMinutes = 0;
	if (zone.toUpperCase() !== 'Z') {
		const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
		if (!z) return undefined;
		offsetMinutes = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0));
	}
	const epochMs = Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000;
	return { kind: 'instant', epochMs, calendarDate: `${m[1]}-${m[2]}-${m[3]}` };
}

/** Milliseconds to add to UTC to get the wall clock of `timeZone` at that instant. */
function zoneOffsetMs(epochMs: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: 'numeric',
		day: 'numeric',
		hour: 'numeric',
		minute: 'numeric',
		second: 'numeric',
	}).formatToParts(new Date(epochMs));
	const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
	const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
	return wall - (epochMs - (((epochMs % 1000) + 1000) % 1000));
}

/** The instant of a wall-clock time in `timeZone` (the earlier one when the clock repeats). */
function wallClockToEpoch(
	wall: { year: number; month: number; day: number; hour: number; minute: number; second: number; ms: number },
	timeZone: string,
): number {
	const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.ms);
	const first = asUtc - zoneOffsetMs(asUtc, timeZone);
	const second = asUtc - zoneOffsetMs(first, timeZone);
	return Math.min(first, second);
}

function safeZone(timeZone: string | undefined): string {
	if (!timeZone) return 'UTC';
	try {
		new Intl.DateTimeFormat('en-US', { timeZone });
		return timeZone;
	} catch {
		return 'UTC';
	}
}

/** `YYYY-MM-DD`: the date as written, a Luxon value's own date, else the date in `timeZone`. */
export function toDateOnly(parsed: ParsedDate, timeZone?: string): string {
	if (parsed.kind === 'date' || parsed.kind === 'local') {
		return `${pad(parsed.year, 4)}-${pad(parsed.month)}-${pad(parsed.day)}`;
	}
	if (parsed.calendarDate) return parsed.calendarDate;
	const shifted = new Date(parsed.epochMs + zoneOffsetMs(parsed.epochMs, safeZone(timeZone)));
	return shifted.toISOString().slice(0, 10);
}

/** ISO 8601 in UTC (`2025-03-31T15:00:00Z`, milliseconds only when not zero). A date alone means its midnight in `timeZone`. */
export function toIsoUtc(parsed: ParsedDate, timeZone?: string): string {
	let epochMs: number;
	if (parsed.kind === 'instant') {
		epochMs = parsed.epochMs;
	} else {
		const wall =
			parsed.kind === 'date' ? { ...parsed, hour: 0, minute: 0, second: 0, ms: 0 } : parsed;
		epochMs = wallClockToEpoch(wall, safeZone(timeZone));
	}
	return new Date(epochMs).toISOString().replace('.000Z', 'Z');
}

const DATE_FORMS_HINT =
	'a date such as 2025-03-31, an ISO 8601 date-time such as 2025-03-31T17:00:00Z, an n8n date ({{ $now }}) or epoch time';

/** A date input of a node field, read by parseDateInput; anything else is the item's error. */
export function readDateInput(
	ctx: Pick<IExecuteFunctions, 'getNode'>,
	itemIndex: number,
	field: string | FieldName,
	value: unknown,
): ParsedDate {
	const parsed = parseDateInput(value);
	if (parsed === undefined) throw invalidInput(ctx, itemIndex, field, `must be ${DATE_FORMS_HINT}`, value);
	return parsed;
}
