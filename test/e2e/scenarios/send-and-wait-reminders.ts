/**
 * Reminders and escalation of an in-chat approval, in real n8n (`n8n start`): Workplace Trigger ->
 * "remind …" questions -> Send and Wait in the release topic (Allowed Approvers alice and bob,
 * two approvals required; Remind Approvers after 1 minute, at most 2; Escalate after 2 minutes
 * in the same chat with carol as backup approver) -> next node.
 *
 * One question, in time order: alice approves (counted); carol taps before the escalation (not
 * allowed); n8n restarts; the first reminder names bob; at 2 minutes the escalation posts its text
 * and the question again, and the second reminder names bob and carol; carol's tap now counts and
 * decides. A second question, stopped by the user at once, gets nothing. Checked: every push body the bot sent after the question, exactly and each once, the
 * next node's `data`, and that nothing more is posted once the question is decided.
 *
 * Short form (`npm run test:compat`): one question with one reminder after the shortest Remind
 * After the node takes (0.01 minutes: the clock's next 30-s tick posts it), naming alice and bob;
 * then alice's approval is counted and bob's decides. On n8n older than 1.107 the refusal before
 * anything is sent or registered. On every release: the trigger's clock started (trigger() with
 * registerCron).
 */
import { isDeepStrictEqual } from 'node:util';

import { SIGNED_RESUME_URLS, versionAtLeast } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import { SEED } from '../../../simulator';
import type { TapResult } from '../../../simulator';
import { questionsStored, triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { ScenarioContext } from '../types';
import { node } from '../workflow';
import type { Asked, ChatCredentials, ChatRun, PushBody, Report } from './send-and-wait-chat';
import { asEscalated, askInChat, chatWorkflow, checkReport, escalationMessageOf, messageOf, messagesStartingWith, refusedQuestion, sentOf, startChatRun } from './send-and-wait-chat';

const project = SEED.groups.project;
const release = project.topics.release;
const IN_RELEASE = { groupId: project._id, topicId: release._id };
const QUESTION = 'remind Ship release 3.0 tonight?';
const STOPPED = 'remind Ship release 3.1 later?';
/** The full form's options: a reminder after 1 minute (at most 2), the escalation to carol after 2. */
const FULL_OPTIONS = {
	reminders: { values: { remindAfterAmount: 1, remindAfterUnit: 'minutes', maxReminders: 2 } },
	escalation: { values: { escalateAfterAmount: 2, escalateAfterUnit: 'minutes', backupApprovers: 'carol', postIn: 'sameChat' } },
};
/** The short form's: one reminder after the shortest Remind After the node takes (above 0, two decimals), no escalation. */
const SHORT_REMIND_AFTER_MINUTES = 0.01;
const SHORT_OPTIONS = { reminders: { values: { remindAfterAmount: SHORT_REMIND_AFTER_MINUTES, remindAfterUnit: 'minutes', maxReminders: 1 } } };
/** The trigger's clock ticks every 30 s (WorkplaceTrigger/clock.ts); a due reminder is posted at the next tick. */
const TICK_SECONDS = 30;
/** What the trigger logs when n8n's registerCron takes neither form (reliance 12). */
const CLOCK_NOT_STARTED = 'its clock could not be started';

/** Trigger -> "remind …" questions to Ask Remind in the release topic (alice and bob, two approvals required) with `options`. */
function remindersWorkflow(options: Record<string, unknown>) {
	return (hookId: string, credentials: ChatCredentials) =>
		chatWorkflow(hookId, credentials, [
			messagesStartingWith('Remind', 'remind'),
			askInChat('Ask Remind', { sendTo: 'group', ...IN_RELEASE, allowedApprovers: 'alice, bob', approvalsRequired: 2, options }, 'Remind'),
			node('After Remind', 'n8n-nodes-base.noOp', 1, {}, { after: 'Ask Remind' }),
		]);
}

const text = (t: string): PushBody => ({ gid: project._id, tid: release._id, messages: [{ type: 'text', text: t }] });
const outcomeOf = (tap: TapResult) => /\(([a-zA-Z]+)\)/.exec(tap.body)?.[1] ?? `${tap.status} ${tap.body}`;
type Person = 'alice' | 'bob' | 'carol';
const person = (user: Person) => ({ id: SEED.users[user]._id, username: user, source: 'chat' });

/**
 * One question asked in the release topic, and what the cases look at from then on: the pushes
 * after `pushesBefore` (by default every push after the question's own).
 */
function watch(run: ChatRun, q: Asked, askedAt: number, pushesBefore = run.pushes().findIndex((b) => isDeepStrictEqual(b, q.push)) + 1) {
	const since = () => run.pushes().slice(pushesBefore);
	const seconds = () => Math.round((Date.now() - askedAt) / 1000);
	return {
		since,
		seconds,
		tap: async (user: Person, label: 'Approve' | 'Decline') => await run.tap({ ...messageOf(run.sim, q.approve), label, user }),
		/** Waits until the bot pushed `count` messages after the question (or time runs out): the seconds since the question. */
		async pushed(count: number, timeoutMs: number) {
			const deadline = Date.now() + timeoutMs;
			while (since().length < count && Date.now() < deadline) await sleep(500);
			return seconds();
		},
	};
}

/** The next node's items: approved by the last of `votes`, every vote in `responders`, once. */
function approvedOnce(run: ChatRun, q: Asked, next: Array<Record<string, unknown>>, votes: Array<{ user: Person; tap: TapResult }>): boolean {
	const by = votes[votes.length - 1];
	return (
		next.length === 1 &&
		isDeepStrictEqual(next[0]?.data, {
			approved: true,
			responder: person(by.user),
			respondedAt: by.tap.event.timestamp,
			...sentOf(run.sim, q.approve),
			responders: votes.map((v) => ({ ...person(v.user), approved: true, respondedAt: v.tap.event.timestamp })),
		})
	);
}

/** Checks that no question waits on the trigger's clock any more (its static data). */
async function clockIdle(srv: TriggerServer, run: ChatRun): Promise<void> {
	const stored = await srv.storedStaticData(run.workflowId);
	const reminders = questionsStored(stored, 'reminders') as Record<string, { nextAt: string | null }>;
	const waiting = Object.values(reminders).filter((entry) => entry.nextAt !== null).length;
	run.check(`no question waits on the trigger's clock any more (${waiting} of ${Object.keys(reminders).length} kept)`, waiting === 0);
}

/** On every release: the trigger's clock started (n8n's registerCron took one of its forms). */
function clockStarted(srv: TriggerServer, run: ChatRun): void {
	run.check(`the trigger's clock started (no "${CLOCK_NOT_STARTED}" in n8n's log)`, !srv.output().includes(CLOCK_NOT_STARTED));
}

async function runCases(ctx: ScenarioContext, srv: TriggerServer): Promise<Report> {
	const run = await startChatRun(ctx, srv, 'e2e in-chat reminders', remindersWorkflow(ctx.short ? SHORT_OPTIONS : FULL_OPTIONS));
	if (!versionAtLeast(ctx.n8nVersion, SIGNED_RESUME_URLS)) {
		const refused = await refusedQuestion(ctx, srv, run, QUESTION, IN_RELEASE);
		const stored = await srv.storedStaticData(run.workflowId);
		const registered = Object.keys(questionsStored(stored, 'reminders')).length;
		run.check(`the refused question was not registered with the trigger's clock (${registered} kept)`, registered === 0);
		clockStarted(srv, run);
		return { checks: run.checks, lines: [], refused };
	}
	const report = ctx.short ? await oneReminder(srv, run) : await remindersAndEscalation(srv, run);
	clockStarted(srv, run);
	return report;
}

/** The short form: one reminder at the clock's next tick, naming both approvers; then two approvals decide. */
async function oneReminder(srv: TriggerServer, run: ChatRun): Promise<Report> {
	const { check, lines, waitFor, after } = run;
	const askedAt = Date.now();
	const q = await run.ask(QUESTION, IN_RELEASE);
	const { since, tap, pushed } = watch(run, q, askedAt);
	const remindedAt = await pushed(1, (TICK_SECONDS + 30) * 1000);
	const alice = await tap('alice', 'Approve');
	await sleep(500);
	const bob = await tap('bob', 'Approve');
	const final = await waitFor(q.executionId, ['success', 'error', 'crashed']);
	const next = await after(q.executionId, 'After Remind');
	await pushed(3, 5_000);
	const got = since();
	lines.push(`one reminder (Remind After ${SHORT_REMIND_AFTER_MINUTES} minutes) after ${remindedAt} s; alice ${outcomeOf(alice)}, bob ${outcomeOf(bob)} (${final}); pushes ${JSON.stringify(got.map((b) => b.messages?.map((m) => m.text ?? m.type)))}`);
	const expected: PushBody[] = [
		text('Reminder: "remind Ship release 3.0 tonight?" is still waiting for alice, bob.'),
		text('alice approved: 1 of 2 approvals so far'),
		text('Approved by bob'),
	];
	check(`the reminder came at the clock's next tick, within ${TICK_SECONDS + 15} s of the question (${remindedAt} s)`, remindedAt <= TICK_SECONDS + 15);
	check(`the bot posted the reminder, the count and the confirmation, each once (got ${JSON.stringify(got)})`, isDeepStrictEqual(got, expected));
	check('alice\'s approval is counted, bob\'s decides', outcomeOf(alice) === 'counted' && outcomeOf(bob) === 'resumed' && final === 'success');
	check(`the next node got approved by bob, responders alice and bob (got ${JSON.stringify(next)})`, approvedOnce(run, q, next, [{ user: 'alice', tap: alice }, { user: 'bob', tap: bob }]));
	await clockIdle(srv, run);
	return { checks: run.checks, lines };
}

/** The full form: a reminder after a restart, the escalation counting a backup approver, a stopped question. */
async function remindersAndEscalation(srv: TriggerServer, run: ChatRun): Promise<Report> {
	const { check, lines, waitFor, status, after } = run;
	const askedAt = Date.now();
	const q = await run.ask(QUESTION, IN_RELEASE);
	// A second question the user stops (Stop in the editor) before anything is due: it gets no reminder.
	const stopped = await run.ask(STOPPED, IN_RELEASE);
	await srv.server.rest('POST', `/executions/${stopped.executionId}/stop`);
	const stoppedStatus = await waitFor(stopped.executionId, ['canceled', 'error', 'success'], 10_000);
	const { since, tap, pushed } = watch(run, q, askedAt, run.pushes().length);

	const alice = await tap('alice', 'Approve');
	const carolEarly = await tap('carol', 'Approve');
	await sleep(1000);
	check('alice\'s approval is counted', outcomeOf(alice) === 'counted');
	check('carol\'s tap before the escalation is not allowed', outcomeOf(carolEarly) === 'notAllowed');

	// n8n restarts before the first reminder is due: only the trigger's static data knows the question.
	await srv.restart();
	await srv.waitForWebhook(run.url);
	const afterRestart = await status(q.executionId);
	check(`still waiting after the restart (${afterRestart})`, afterRestart === 'waiting');

	const firstAt = await pushed(3, 150_000);
	const secondAt = await pushed(5, 120_000);
	// A backup approver answers on the buttons the escalation posted.
	const carol = await run.tap({ ...escalationMessageOf(run.sim, q.approve), label: 'Approve', user: 'carol' });
	const final = await waitFor(q.executionId, ['success', 'error', 'crashed']);
	const next = await after(q.executionId, 'After Remind');
	await sleep(35_000);
	const got = since();
	lines.push(`reminder after ${firstAt} s (restart in between), escalation and second reminder after ${secondAt} s; carol ${outcomeOf(carol)} (${final}); pushes ${JSON.stringify(got.map((b) => b.messages?.map((m) => m.text ?? m.type)))}`);

	const escalationText = 'Escalated: "remind Ship release 3.0 tonight?" still needs an answer. carol, your answer counts from now on.';
	const expected: PushBody[] = [
		text('alice approved: 1 of 2 approvals so far'),
		text('carol may not answer this request.'),
		text('Reminder: "remind Ship release 3.0 tonight?" is still waiting for bob.'),
		// The question again, with buttons of its own (the escalation's answer codes), on which carol counts.
		{ gid: project._id, tid: release._id, messages: [{ type: 'text', text: escalationText }, asEscalated(q.push.messages![0], got[3]?.messages?.[1])] },
		text('Reminder: "remind Ship release 3.0 tonight?" is still waiting for bob, carol.'),
		text('Approved by carol'),
	];
	check(`the first reminder came between 60 and 100 s after the question, after a restart (${firstAt} s)`, firstAt >= 60 && firstAt <= 100);
	check(`the escalation and the second reminder came between 120 and 160 s (${secondAt} s)`, secondAt >= 120 && secondAt <= 160);
	check(`the bot posted the count, the refusal, the reminder, the escalation with the question, the second reminder and the confirmation, each once and nothing after (got ${JSON.stringify(got)})`, isDeepStrictEqual(got, expected));
	check(`the stopped question is canceled (${stoppedStatus}) and got no reminder`, stoppedStatus === 'canceled' && !JSON.stringify(got).includes('3.1'));
	check('carol\'s tap after the escalation counts and decides', outcomeOf(carol) === 'resumed' && final === 'success');
	check(`the next node got approved by carol, responders alice and carol (got ${JSON.stringify(next)})`, approvedOnce(run, q, next, [{ user: 'alice', tap: alice }, { user: 'carol', tap: carol }]));
	await clockIdle(srv, run);
	return { checks: run.checks, lines };
}

export const scenario = triggerServerScenario({
	name: 'send and wait: reminders and escalation in the chat (a reminder after a restart, the escalation counting a backup approver) (n8n start)',
	compat: true,
	placeholderNote: 'the reminder cases run in before()',
	run: runCases,
	check: checkReport('in-chat reminders'),
});
