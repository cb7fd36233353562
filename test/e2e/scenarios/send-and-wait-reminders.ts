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
 */
import { isDeepStrictEqual } from 'node:util';

import { SIGNED_RESUME_URLS, versionAtLeast } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import { SEED } from '../../../simulator';
import type { TapResult } from '../../../simulator';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { ScenarioContext } from '../types';
import { node } from '../workflow';
import type { ChatCredentials, PushBody, Report } from './send-and-wait-chat';
import { asEscalated, askInChat, chatWorkflow, checkReport, escalationMessageOf, messageOf, messagesStartingWith, refusedQuestion, sentOf, startChatRun } from './send-and-wait-chat';

const project = SEED.groups.project;
const release = project.topics.release;
const IN_RELEASE = { groupId: project._id, topicId: release._id };
const QUESTION = 'remind Ship release 3.0 tonight?';
const STOPPED = 'remind Ship release 3.1 later?';

function remindersWorkflow(hookId: string, credentials: ChatCredentials) {
	return chatWorkflow(hookId, credentials, [
		messagesStartingWith('Remind', 'remind'),
		askInChat(
			'Ask Remind',
			{
				sendTo: 'group',
				...IN_RELEASE,
				allowedApprovers: 'alice, bob',
				approvalsRequired: 2,
				options: {
					reminders: { values: { remindAfterAmount: 1, remindAfterUnit: 'minutes', maxReminders: 2 } },
					escalation: { values: { escalateAfterAmount: 2, escalateAfterUnit: 'minutes', backupApprovers: 'carol', postIn: 'sameChat' } },
				},
			},
			'Remind',
		),
		node('After Remind', 'n8n-nodes-base.noOp', 1, {}, { after: 'Ask Remind' }),
	]);
}

const text = (t: string): PushBody => ({ gid: project._id, tid: release._id, messages: [{ type: 'text', text: t }] });
const outcomeOf = (tap: TapResult) => /\(([a-zA-Z]+)\)/.exec(tap.body)?.[1] ?? `${tap.status} ${tap.body}`;
const person = (user: 'alice' | 'carol') => ({ id: SEED.users[user]._id, username: user, source: 'chat' });

async function runCases(ctx: ScenarioContext, srv: TriggerServer): Promise<Report> {
	const run = await startChatRun(ctx, srv, 'e2e in-chat reminders', remindersWorkflow);
	if (!versionAtLeast(ctx.n8nVersion, SIGNED_RESUME_URLS)) {
		return { checks: [], lines: [], refused: await refusedQuestion(ctx, srv, run, QUESTION, IN_RELEASE) };
	}
	const { sim, check, lines, waitFor, status, after } = run;
	const askedAt = Date.now();
	const q = await run.ask(QUESTION, IN_RELEASE);
	// A second question the user stops (Stop in the editor) before anything is due: it gets no reminder.
	const stopped = await run.ask(STOPPED, IN_RELEASE);
	await srv.server.rest('POST', `/executions/${stopped.executionId}/stop`);
	const stoppedStatus = await waitFor(stopped.executionId, ['canceled', 'error', 'success'], 10_000);
	const pushesBefore = run.pushes().length;
	const since = () => run.pushes().slice(pushesBefore);
	const seconds = () => Math.round((Date.now() - askedAt) / 1000);
	const tap = async (user: 'alice' | 'bob' | 'carol', label: 'Approve' | 'Decline') => await run.tap({ ...messageOf(sim, q.approve), label, user });
	/** Waits until the bot pushed `count` messages after the question (or time runs out). */
	const pushed = async (count: number, timeoutMs: number) => {
		const deadline = Date.now() + timeoutMs;
		while (since().length < count && Date.now() < deadline) await sleep(500);
		return seconds();
	};

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
	const carol = await run.tap({ ...escalationMessageOf(sim, q.approve), label: 'Approve', user: 'carol' });
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
	const sent = sentOf(sim, q.approve);
	const data = next[0]?.data as Record<string, unknown> | undefined;
	check(
		`the next node got approved by carol, responders alice and carol (got ${JSON.stringify(next)})`,
		next.length === 1 &&
			isDeepStrictEqual(data, {
				approved: true,
				responder: person('carol'),
				respondedAt: carol.event.timestamp,
				...sent,
				responders: [
					{ ...person('alice'), approved: true, respondedAt: alice.event.timestamp },
					{ ...person('carol'), approved: true, respondedAt: carol.event.timestamp },
				],
			}),
	);
	const stored = await srv.storedStaticData(run.workflowId);
	const reminders = (stored['node:Trigger'] as { inChatReminders?: Record<string, { nextAt: string | null }> } | undefined)?.inChatReminders ?? {};
	const waiting = Object.values(reminders).filter((entry) => entry.nextAt !== null).length;
	check(`no question waits on the trigger's clock any more (${waiting} of ${Object.keys(reminders).length} kept)`, waiting === 0);
	return { checks: run.checks, lines };
}

export const scenario = triggerServerScenario({
	name: 'send and wait: reminders and escalation in the chat (a reminder after a restart, the escalation counting a backup approver) (n8n start)',
	placeholderNote: 'the reminder cases run in before()',
	run: runCases,
	check: checkReport('in-chat reminders'),
});
