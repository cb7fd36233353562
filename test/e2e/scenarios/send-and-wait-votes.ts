/**
 * Send and Wait for Response answered in the chat by several approvers (Approvals Required 2),
 * in real n8n (`n8n start`): one active workflow, Workplace Trigger -> filters -> Send and Wait
 * asking the project group's release topic (Allowed Approvers alice, bob, carol) -> next node.
 * "votes …" questions go to Ask Votes (the first decline declines), "count …" questions to Ask
 * Count (declined once two people declined). People's taps are the simulator's `tap`.
 *
 * Per case: what the trigger answered each tap (its outcome), the waiting execution's status
 * after each tap, the exact `data` the next node got (approved, who decided and when, every
 * counted person in time order, the question's message), and the exact push bodies the bot sent
 * after the question (each reply once). The last case restarts n8n between two votes: only the
 * trigger's static data carries alice's vote to bob's tap. Short form (`npm run test:compat`):
 * two of three, alice's vote counted and bob's deciding; on n8n older than 1.107 the refusal.
 */
import { isDeepStrictEqual } from 'node:util';

import { SIGNED_RESUME_URLS, versionAtLeast } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import { decodeAnswerToken } from '../../../nodes/shared/approvals/tapProtocol';
import { SEED } from '../../../simulator';
import type { TapResult } from '../../../simulator';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { ScenarioContext } from '../types';
import { node } from '../workflow';
import type { Asked, ChatCredentials, ChatRun, PushBody, Report } from './send-and-wait-chat';
import { askInChat, chatWorkflow, checkReport, messageOf, messagesStartingWith, refusedQuestion, sentOf, startChatRun } from './send-and-wait-chat';

const project = SEED.groups.project;
const release = project.topics.release;
const IN_RELEASE = { groupId: project._id, topicId: release._id };
const NOT_WAITING = 'This request is no longer waiting for an answer.';
const ALREADY_ANSWERED = 'This request was already answered.';

type Person = 'alice' | 'bob' | 'carol';
type Label = 'Approve' | 'Decline';

/** Trigger -> "votes …" to Ask Votes (a decline vetoes), "count …" to Ask Count (declines counted); both need 2 of alice, bob, carol. */
function votesWorkflow(hookId: string, credentials: ChatCredentials) {
	const inRelease = { sendTo: 'group', groupId: project._id, topicId: release._id, allowedApprovers: 'alice, bob, carol', approvalsRequired: 2 };
	return chatWorkflow(hookId, credentials, [
		messagesStartingWith('Votes', 'votes'),
		askInChat('Ask Votes', { ...inRelease, declineRule: 'oneDeclines' }, 'Votes'),
		node('After Votes', 'n8n-nodes-base.noOp', 1, {}, { after: 'Ask Votes' }),
		messagesStartingWith('Count', 'count'),
		askInChat('Ask Count', { ...inRelease, declineRule: 'countDeclines' }, 'Count'),
		node('After Count', 'n8n-nodes-base.noOp', 1, {}, { after: 'Ask Count' }),
	]);
}

/** A question asked in the release topic: its buttons, its message, and how many pushes there were once it was sent. */
interface Question extends Asked {
	message: { messageId: string; groupId: string; threadId: string };
	/** The key the trigger keeps its taps under: execution:node:nonce. */
	request: string;
	pushesBefore: number;
}

/** A counted tap: who, what, and the tap (its event's timestamp is the vote's time). */
interface Cast {
	user: Person;
	approved: boolean;
	tap: TapResult;
}

const person = (user: Person) => ({ id: SEED.users[user]._id, username: user, source: 'chat' });

/** The `data` a decision gives: the last counted vote decided; every counted vote is listed in time order. */
function decision(q: Question, approved: boolean, counted: Cast[]) {
	const by = counted[counted.length - 1];
	return {
		approved,
		responder: person(by.user),
		respondedAt: by.tap.event.timestamp,
		...q.message,
		responders: counted.map((c) => ({ ...person(c.user), approved: c.approved, respondedAt: c.tap.event.timestamp })),
	};
}

/** The push body of a reply the bot posts in the release topic. */
const reply = (text: string): PushBody => ({ gid: project._id, tid: release._id, messages: [{ type: 'text', text }] });

const counted = (user: Person, answer: 'approved' | 'declined', approvals: number) => `${user} ${answer}: ${approvals} of 2 approvals so far`;

/** The outcome the trigger reported for a tap, e.g. "counted" from "… (counted); no run started". */
const outcomeOf = (tap: TapResult) => /\(([a-zA-Z]+)\)/.exec(tap.body)?.[1] ?? `${tap.status} ${tap.body}`;

async function runCases(ctx: ScenarioContext, srv: TriggerServer): Promise<Report> {
	const run: ChatRun = await startChatRun(ctx, srv, 'e2e in-chat votes', votesWorkflow);
	if (!versionAtLeast(ctx.n8nVersion, SIGNED_RESUME_URLS)) {
		return { checks: [], lines: [], refused: await refusedQuestion(ctx, srv, run, 'votes Ship release 1.7?', IN_RELEASE) };
	}
	const { sim, check, lines, waitFor, status, after, executions } = run;

	const ask = async (text: string): Promise<Question> => {
		const asked = await run.ask(text, IN_RELEASE);
		const token = decodeAnswerToken(asked.approve)!;
		return { ...asked, message: sentOf(sim, asked.approve), request: `${token.executionId}:${token.nodeId}:${token.nonce}`, pushesBefore: run.pushes().length };
	};
	const tap = async (q: Question, user: Person, label: Label) => await run.tap({ ...messageOf(sim, q.approve), label, user });
	/** The status a tap left the execution in: a counted vote must leave it waiting. */
	const settled = async (q: Question) => {
		await sleep(500);
		return await status(q.executionId);
	};
	/** Everything the bot pushed after the question, compared whole with the replies expected. */
	const repliesAre = (q: Question, texts: string[]) => isDeepStrictEqual(run.pushes().slice(q.pushesBefore), texts.map(reply));
	const repliesOf = (q: Question) => JSON.stringify(run.pushes().slice(q.pushesBefore).map((b) => b.messages?.[0]?.text));
	/** What the next node got, once: one run, one item, this data. */
	const gotOnce = (items: Array<Record<string, unknown>>, data: Record<string, unknown>) => items.length === 1 && isDeepStrictEqual(items[0].data, data);
	/** How many taps of the question the trigger's static data holds (undefined: the question is not there). */
	const kept = async (q: Question) => {
		const stored = await srv.storedStaticData(run.workflowId);
		const ballots = (stored['node:Trigger'] as { inChatBallots?: Record<string, { ballots?: unknown[] }> } | undefined)?.inChatBallots;
		return ballots?.[q.request]?.ballots?.length;
	};
	/** A decided question keeps no votes in the trigger (done; its static data is saved just after the tap was answered). */
	const forgotten = async (q: Question) => {
		await sleep(500);
		return ((await kept(q)) ?? 0) === 0;
	};

	// 1. Two of three: alice's vote is counted, her second and third taps are not (and she is told
	//    once), bob's approval decides; carol comes too late. The short form (npm run test:compat):
	//    alice's vote counted, bob's deciding.
	const short = ctx.short;
	const two = await ask('votes Ship release 1.7 on Friday?');
	check('two of three: the question is in the release topic', two.message.groupId === project._id && two.message.threadId === release._id);
	check('two of three: waiting after sending', (await waitFor(two.executionId, ['waiting'])) === 'waiting');
	let runs = await executions();
	const alice1 = await tap(two, 'alice', 'Approve');
	const afterAlice1 = await settled(two);
	const repeats = short ? [] : [await tap(two, 'alice', 'Approve'), await tap(two, 'alice', 'Decline')];
	const afterAlice3 = short ? afterAlice1 : await settled(two);
	const bob = await tap(two, 'bob', 'Approve');
	const twoStatus = await waitFor(two.executionId, ['success', 'error', 'crashed']);
	const twoNext = await after(two.executionId, 'After Votes');
	const carol = short ? undefined : await tap(two, 'carol', 'Approve');
	await sleep(1500);
	lines.push(
		`two of three: alice ${outcomeOf(alice1)} (${afterAlice1}), again ${repeats.map(outcomeOf).join(', ') || '-'} (${afterAlice3}); bob ${outcomeOf(bob)} (${twoStatus}); carol ${carol ? outcomeOf(carol) : '-'}; replies ${repliesOf(two)}`,
	);
	check('two of three: alice\'s approval is counted and the execution keeps waiting', alice1.status === 200 && outcomeOf(alice1) === 'counted' && afterAlice1 === 'waiting');
	if (!short) {
		check('two of three: alice\'s second and third taps (Approve, Decline) do not count', repeats.every((t) => t.status === 200 && outcomeOf(t) === 'alreadyVoted') && afterAlice3 === 'waiting');
	}
	check('two of three: bob\'s approval resumes the execution', bob.status === 200 && outcomeOf(bob) === 'resumed' && twoStatus === 'success');
	check(
		`two of three: the next node got approved by bob, responders alice and bob, once (got ${JSON.stringify(twoNext)})`,
		gotOnce(twoNext, decision(two, true, [{ user: 'alice', approved: true, tap: alice1 }, { user: 'bob', approved: true, tap: bob }])),
	);
	const replies = [counted('alice', 'approved', 1), 'Approved by bob'];
	if (carol) {
		const late = outcomeOf(carol) === 'notWaiting' ? NOT_WAITING : ALREADY_ANSWERED;
		check(`two of three: carol's late tap resumes nothing (${outcomeOf(carol)})`, carol.status === 200 && ['notWaiting', 'alreadyAnswered'].includes(outcomeOf(carol)));
		check('two of three: the output is unchanged after carol\'s tap', isDeepStrictEqual(await after(two.executionId, 'After Votes'), twoNext));
		replies.splice(1, 0, 'alice, your vote was already counted.');
		replies.push(late);
	}
	check(
		`two of three: the bot posted ${short ? 'the count and the confirmation' : 'the count, "already counted" once, the confirmation and the late reply'}, each once (got ${repliesOf(two)})`,
		repliesAre(two, replies),
	);
	check('two of three: the decided question keeps no votes in the trigger\'s static data', await forgotten(two));
	check('two of three: the taps started no run', (await executions()) === runs);
	if (short) return { checks: run.checks, lines };

	// 2. Veto: alice approves, carol declines; one decline decides.
	const veto = await ask('votes Ship release 1.8 on Monday?');
	runs = await executions();
	const vetoAlice = await tap(veto, 'alice', 'Approve');
	const afterVetoAlice = await settled(veto);
	const vetoCarol = await tap(veto, 'carol', 'Decline');
	const vetoStatus = await waitFor(veto.executionId, ['success', 'error', 'crashed']);
	const vetoNext = await after(veto.executionId, 'After Votes');
	lines.push(`veto: alice ${outcomeOf(vetoAlice)} (${afterVetoAlice}); carol ${outcomeOf(vetoCarol)} (${vetoStatus}); replies ${repliesOf(veto)}`);
	check('veto: alice\'s approval is counted, still waiting', outcomeOf(vetoAlice) === 'counted' && afterVetoAlice === 'waiting');
	check('veto: carol\'s decline resumes the execution', vetoCarol.status === 200 && outcomeOf(vetoCarol) === 'resumed' && vetoStatus === 'success');
	check(
		`veto: the next node got declined by carol, responders alice (approved) and carol (declined) (got ${JSON.stringify(vetoNext)})`,
		gotOnce(vetoNext, decision(veto, false, [{ user: 'alice', approved: true, tap: vetoAlice }, { user: 'carol', approved: false, tap: vetoCarol }])),
	);
	check(`veto: the bot posted the count and "Declined by carol", each once (got ${repliesOf(veto)})`, repliesAre(veto, [counted('alice', 'approved', 1), 'Declined by carol']));
	check('veto: the decided question keeps no votes in the trigger\'s static data', await forgotten(veto));
	check('veto: the taps started no run', (await executions()) === runs);

	// 3. Count declines: one decline does not decide, the second does. Bob taps only after the
	//    trigger's first recount (3 s after a counted tap, approvals/recounts.ts): it finds nothing new, so
	//    it posts nothing and resumes nothing.
	const count = await ask('count Ship release 1.9 on Tuesday?');
	runs = await executions();
	const countAlice = await tap(count, 'alice', 'Decline');
	await sleep(4000);
	const afterCountAlice = await settled(count);
	const countBob = await tap(count, 'bob', 'Decline');
	const countStatus = await waitFor(count.executionId, ['success', 'error', 'crashed']);
	const countNext = await after(count.executionId, 'After Count');
	lines.push(`count declines: alice ${outcomeOf(countAlice)} (${afterCountAlice}); bob ${outcomeOf(countBob)} (${countStatus}); replies ${repliesOf(count)}`);
	check('count declines: alice\'s decline is counted, still waiting after the first recount', outcomeOf(countAlice) === 'counted' && afterCountAlice === 'waiting');
	check('count declines: bob\'s decline resumes the execution', countBob.status === 200 && outcomeOf(countBob) === 'resumed' && countStatus === 'success');
	check(
		`count declines: the next node got declined by bob, responders alice and bob, both declined (got ${JSON.stringify(countNext)})`,
		gotOnce(countNext, decision(count, false, [{ user: 'alice', approved: false, tap: countAlice }, { user: 'bob', approved: false, tap: countBob }])),
	);
	check(`count declines: the bot posted the count and "Declined by bob", each once (got ${repliesOf(count)})`, repliesAre(count, [counted('alice', 'declined', 0), 'Declined by bob']));
	check('count declines: the decided question keeps no votes in the trigger\'s static data', await forgotten(count));
	check('count declines: the taps started no run', (await executions()) === runs);

	// 4. Simultaneous taps: alice and bob approve at the same moment. The trigger hands one tap on
	//    at a time per question: the first is counted, the second (with the first) decides. Who
	//    decided is the later vote by the taps' times (equal times: the one handed on second).
	const same = await ask('votes Ship release 2.0 on Wednesday?');
	runs = await executions();
	const [sameAlice, sameBob] = await Promise.all([tap(same, 'alice', 'Approve'), tap(same, 'bob', 'Approve')]);
	const sameStatus = await waitFor(same.executionId, ['success', 'error', 'crashed']);
	await sleep(1000);
	const sameNext = await after(same.executionId, 'After Votes');
	lines.push(`simultaneous: alice ${outcomeOf(sameAlice)} at ${sameAlice.event.timestamp}, bob ${outcomeOf(sameBob)} at ${sameBob.event.timestamp} (${sameStatus}); replies ${repliesOf(same)}`);
	const casts: Cast[] = [
		{ user: 'alice', approved: true, tap: sameAlice },
		{ user: 'bob', approved: true, tap: sameBob },
	];
	const first = casts.find((c) => outcomeOf(c.tap) === 'counted');
	const second = casts.find((c) => outcomeOf(c.tap) === 'resumed');
	check(`simultaneous: one tap counted, the other resumed (alice ${outcomeOf(sameAlice)}, bob ${outcomeOf(sameBob)})`, first !== undefined && second !== undefined && sameStatus === 'success');
	if (first && second) {
		// Time order, the order handed on for equal times.
		const inTime = [first, second].sort((a, b) => Date.parse(a.tap.event.timestamp) - Date.parse(b.tap.event.timestamp));
		const decider = inTime[1].user;
		check(`simultaneous: the next node got approved by ${decider}, both in responders, once (got ${JSON.stringify(sameNext)})`, gotOnce(sameNext, decision(same, true, inTime)));
		check(
			`simultaneous: the bot posted ${first.user}'s count and "Approved by ${decider}", each once (got ${repliesOf(same)})`,
			repliesAre(same, [counted(first.user, 'approved', 1), `Approved by ${decider}`]),
		);
	}
	check(`simultaneous: the decided question keeps no votes in the trigger's static data (${String(await kept(same))} tap(s) kept)`, await forgotten(same));
	check('simultaneous: the taps started no run', (await executions()) === runs);

	// 5. Restart: alice's counted vote is kept in the trigger's static data; n8n restarts (its
	//    memory is gone); bob's tap brings alice's vote from there and decides.
	const restart = await ask('votes Ship release 2.1 on Thursday?');
	runs = await executions();
	const restartAlice = await tap(restart, 'alice', 'Approve');
	const afterRestartAlice = await settled(restart);
	const keptBefore = await kept(restart);
	await srv.restart();
	await srv.waitForWebhook(run.url);
	const afterRestart = await status(restart.executionId);
	const restartBob = await tap(restart, 'bob', 'Approve');
	const restartStatus = await waitFor(restart.executionId, ['success', 'error', 'crashed']);
	const restartNext = await after(restart.executionId, 'After Votes');
	lines.push(
		`restart: alice ${outcomeOf(restartAlice)} (${afterRestartAlice}, ${String(keptBefore)} tap(s) in the static data); after the restart ${afterRestart}; bob ${outcomeOf(restartBob)} (${restartStatus}); replies ${repliesOf(restart)}`,
	);
	check('restart: alice\'s approval is counted, still waiting', outcomeOf(restartAlice) === 'counted' && afterRestartAlice === 'waiting');
	check(`restart: the trigger's static data holds alice's tap (${String(keptBefore)})`, keptBefore === 1);
	check(`restart: still waiting after the restart (${afterRestart})`, afterRestart === 'waiting');
	check('restart: bob\'s approval resumes the execution', restartBob.status === 200 && outcomeOf(restartBob) === 'resumed' && restartStatus === 'success');
	check(
		`restart: the next node got approved by bob, responders alice and bob, once (got ${JSON.stringify(restartNext)})`,
		gotOnce(restartNext, decision(restart, true, [{ user: 'alice', approved: true, tap: restartAlice }, { user: 'bob', approved: true, tap: restartBob }])),
	);
	check(`restart: the bot posted the count and "Approved by bob", each once (got ${repliesOf(restart)})`, repliesAre(restart, [counted('alice', 'approved', 1), 'Approved by bob']));
	check('restart: the decided question keeps no votes in the trigger\'s static data', await forgotten(restart));
	check('restart: the taps started no run', (await executions()) === runs);
	return { checks: run.checks, lines };
}

export const scenario = triggerServerScenario({
	name: 'send and wait: several approvers in the chat (Approvals Required 2: counted votes, veto, counted declines, simultaneous taps, a restart) (n8n start)',
	compat: true,
	placeholderNote: 'the cases with several approvers in the chat run in before()',
	run: runCases,
	check: checkReport('in-chat votes'),
});
