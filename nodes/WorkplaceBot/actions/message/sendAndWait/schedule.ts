/**
 * Options > Remind Approvers and Options > Escalate of an in-chat approval: what is due when. The
 * actions (each reminder, the escalation) are fixed by the question's time (in its nonce, signed
 * by n8n) and the node's options, so the waiting node needs only how many were done (`step`,
 * kept by the Workplace Trigger) to tell what is due now (../../../../shared/approvals/clockProtocol.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../../../../shared/validation';

export const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** The most reminders one question may send. */
export const MAX_REMINDERS = 10;

export interface Reminders {
	everyMs: number;
	times: number;
	text: string;
}

export interface Escalation {
	afterMs: number;
	/** User IDs or usernames whose taps count on the buttons the escalation posts. */
	backups: string[];
	/** Where the question goes again: its own chat, or another group (and topic). */
	to: { sameChat: true } | { sameChat: false; groupId: string; topicId: string };
	text: string;
}

export interface Schedule {
	reminders?: Reminders;
	escalation?: Escalation;
}

export const DEFAULT_REMINDER_TEXT = 'Reminder: "{question}" is still waiting for {pending}.';
export const DEFAULT_ESCALATION_TEXT = 'Escalated: "{question}" still needs an answer. {backups}, your answer counts from now on.';

/** A problem with one field of the options: its name as the UI shows it, the rule, the value. */
export interface ScheduleProblem {
	field: string;
	rule: string;
	actual: unknown;
}

export function splitNames(value: unknown): string[] {
	return String(value ?? '')
		.split(/[\s,]+/)
		.map((entry) => entry.trim())
		.filter(Boolean);
}

function duration(values: IDataObject, amountKey: string, unitKey: string, field: string): number | ScheduleProblem {
	const amount = values[amountKey] ?? 1;
	if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
		return { field: `${field} > Amount`, rule: 'must be a number above 0', actual: amount };
	}
	const unit = String(values[unitKey] ?? 'hours');
	const unitMs = UNIT_MS[unit];
	if (unitMs === undefined) return { field: `${field} > Unit`, rule: 'must be "minutes", "hours" or "days"', actual: unit };
	return Math.round(amount * unitMs);
}

function readReminders(values: IDataObject): Reminders | ScheduleProblem {
	const field = 'Options > Remind Approvers';
	const everyMs = duration(values, 'remindAfterAmount', 'remindAfterUnit', field);
	if (typeof everyMs !== 'number') return everyMs;
	const times = values.maxReminders ?? 1;
	if (typeof times !== 'number' || !Number.isInteger(times) || times < 1 || times > MAX_REMINDERS) {
		return { field: `${field} > Reminders at Most`, rule: `must be a whole number from 1 to ${MAX_REMINDERS}`, actual: times };
	}
	const text = typeof values.reminderText === 'string' && values.reminderText.trim() !== '' ? values.reminderText : DEFAULT_REMINDER_TEXT;
	return { everyMs, times, text };
}

function readEscalation(values: IDataObject): Escalation | ScheduleProblem {
	const field = 'Options > Escalate';
	const afterMs = duration(values, 'escalateAfterAmount', 'escalateAfterUnit', field);
	if (typeof afterMs !== 'number') return afterMs;
	const backups = splitNames(values.backupApprovers);
	const text = typeof values.escalationText === 'string' && values.escalationText.trim() !== '' ? values.escalationText : DEFAULT_ESCALATION_TEXT;
	if (values.postIn !== 'group') {
		if (backups.length === 0) return { field: `${field} > Backup Approvers`, rule: 'must name someone when the question is posted again in its own chat', actual: values.backupApprovers ?? '' };
		return { afterMs, backups, to: { sameChat: true }, text };
	}
	const groupId = String(values.groupId ?? '').trim();
	if (groupId === '') return { field: `${field} > Group ID`, rule: 'must not be empty when Post In is "Another Group or Topic"', actual: values.groupId ?? '' };
	return { afterMs, backups, to: { sameChat: false, groupId, topicId: String(values.topicId ?? '').trim() }, text };
}

function valuesOf(options: IDataObject, name: string): IDataObject | undefined {
	const collection = options[name];
	const values = isPlainObject(collection) ? collection.values : undefined;
	return isPlainObject(values) ? values : undefined;
}

/** The schedule of the node's Options, or the first problem with it. */
export function readSchedule(options: IDataObject): Schedule | ScheduleProblem {
	const schedule: Schedule = {};
	const reminders = valuesOf(options, 'reminders');
	if (reminders) {
		const read = readReminders(reminders);
		if ('rule' in read) return read;
		schedule.reminders = read;
	}
	const escalation = valuesOf(options, 'escalation');
	if (escalation) {
		const read = readEscalation(escalation);
		if ('rule' in read) return read;
		schedule.escalation = read;
	}
	return schedule;
}

export function isScheduled(schedule: Schedule): boolean {
	return schedule.reminders !== undefined || schedule.escalation !== undefined;
}

export type ClockAction = { kind: 'reminder'; at: number } | { kind: 'escalation'; at: number };

/** Every action of the question, in time order (the escalation first when both fall at once). */
export function actionsOf(schedule: Schedule, askedAt: number): ClockAction[] {
	const actions: ClockAction[] = [];
	if (schedule.escalation) actions.push({ kind: 'escalation', at: askedAt + schedule.escalation.afterMs });
	const reminders = schedule.reminders;
	for (let n = 1; reminders && n <= reminders.times; n++) actions.push({ kind: 'reminder', at: askedAt + n * reminders.everyMs });
	return actions.sort((a, b) => a.at - b.at || (a.kind === 'escalation' ? -1 : 1));
}

/**
 * What is due now after `step` actions: the escalation when its time came, and one reminder
 * however many fell due (after n8n was down, one reminder is enough); then the new step and when
 * the next action is due.
 */
export function dueActions(actions: ClockAction[], step: number, now: number): { due: ClockAction[]; step: number; nextAt: number | null } {
	let next = Math.max(0, step);
	const due: ClockAction[] = [];
	while (next < actions.length && actions[next].at <= now) {
		const action = actions[next];
		if (action.kind === 'escalation' || !due.some((d) => d.kind === 'reminder')) due.push(action);
		next++;
	}
	return { due, step: next, nextAt: next < actions.length ? actions[next].at : null };
}

/** When the first action is due; null without any. */
export function firstActionAt(schedule: Schedule, askedAt: number): number | null {
	return actionsOf(schedule, askedAt)[0]?.at ?? null;
}
