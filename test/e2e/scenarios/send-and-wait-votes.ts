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
 * after the question (each reply once). A case restarts n8n between two votes: only the
 * trigger's static data carries alice's vote to bob's tap. Then two taps in one delivery (the
 * simulator's `tapTogether`), and two votes counted while a delivery with a picture is downloading
 * it (the trigger has Download Images on; that delivery saves the static data it loaded before
 * the votes). Last, the trigger node renamed between two votes (saved and published as the editor
 * does): its votes stay with it. Short form (`npm run test:compat`): two of three, alice's vote counted and bob's
 * deciding; on n8n older than 1.107 the refusal.
 */
import { isDeepStrictEqual } from 'node:util';

import { SIGNED_RESUME_URLS, versionAtLeast } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import { decodeAnswerToken } from '../../../nodes/shared/approvals/tapProtocol';
import { RECHECK_DELAYS_MS } from '../../../nodes/shared/approvals/timing';
import { messageEvent, SEED, sendWebhook } from '../../../simulator';
import type { TapResult } from '../../../simulator';
import { questionsStored, renameNodeIn, triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { ScenarioContext } from '../types';
import { node } from '../workflow';
import type { Asked, ChatCredentials, ChatRun, PushBody, Report } from './send-and-wait-chat';
import { askInChat, chatWorkflow, checkReport, messageOf, messagesStartingWith, refusedQuestion, sentOf, startChatRun } from './send-and-wait-chat';

const project = SEED.groups.project;
const release = project.topics.release;
const IN_RELEASE = { groupId: project._id, topicId: release._id };
const NOT_WAITING = 'This request is no longer waiting for an answer.';
/** The picture of the message delivered while votes are counted, and how long the platform takes to serve it. */
const SLOW_PICTURE = 'pic-e2e-votes';
const SLOW_PICTURE_MS = 6000;
/** The second picture: its delivery is answered before the trigger's first recount (3 s after a counted vote). */
const HELD_PICTURE_MS = 2000;
/** The statuses of every execution (without a status filter n8n 2 lists finished ones only). */
const EVERY_STATUS = ['new', 'running', 'waiting', 'success', 'error', 'crashed', 'canceled'];
const ALREADY_ANSWERED = 'This request was already answered.';

type Person = 'alice' | 'bob' | 'carol';
type Label = 'Approve' | 'Decline';

/**
 * Trigger (Download Images on) -> "votes …" to Ask Votes (a decline vetoes), "count …" to Ask
 * Count (declines counted); both need 2 of alice, bob, carol.
 */
function votesWorkflow(hookId: string, credentials: ChatCredentials) {
	const inRelease = { sendTo: 'group', groupId: project._id, topicId: release._id, allowedApprovers: 'alice, bob, carol', approvalsRequired: 2 };
	return chatWorkflow(hookId, credentials, [
		messagesStartingWith('Votes', 'votes'),
		askInChat('Ask Votes', { ...inRelease, declineRule: 'oneDeclines' }, 'Votes'),
		node('After Votes', 'n8n-nodes-base.noOp', 1, {}, { after: 'Ask Votes' }),
		messagesStartingWith('Count', 'count'),
		askInChat('Ask Count', { ...inRelease, declineRule: 'countDeclines' }, 'Count'),
		node('After Count', 'n8n-nodes-base.noOp', 1, {}, { after: 'Ask Count' }),
	], {}, { downloadImages: true, imageSize: 'small' });
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
/** The outcomes the trigger reported for the taps of one delivery, e.g. ["counted", "resumed"] from "… (counted, resumed); no run started". */
const outcomesOf = (answer: { status: number; body: string }) => /\(([a-zA-Z, ]+)\)/.exec(answer.body)?.[1].split(', ') ?? [`${answer.status} ${answer.body}`];

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
		const ballots = questionsStored(stored, 'votes') as Record<string, { ballots?: unknown[] }>;
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

	// 6. Several taps in one delivery: alice's and bob's Approve on the same question, in one signed
	//    delivery (alice's a second earlier, as the platform sends taps that already happened). Each
	//    tap counts as itself: alice's is counted, bob's (with hers) decides.
	const batch = await ask('votes Ship release 2.2 on Friday?');
	runs = await executions();
	const together = await sim.tapTogether((['alice', 'bob'] as const).map((user) => ({ ...messageOf(sim, batch.approve), label: 'Approve', user })));
	const [batchAlice, batchBob] = together.events.map((event): TapResult => ({ status: together.status, body: together.body, signature: together.signature, event }));
	const batchStatus = await waitFor(batch.executionId, ['success', 'error', 'crashed']);
	// Past the trigger's first recount (3 s after a counted tap): it must resume and post nothing more.
	await sleep(RECHECK_DELAYS_MS[0] + 1000);
	const batchNext = await after(batch.executionId, 'After Votes');
	lines.push(`one delivery, two taps: answered ${together.status} (${outcomesOf(together).join(', ')}); ${batchStatus}; next node got ${JSON.stringify(batchNext)}; replies ${repliesOf(batch)}`);
	check(
		`one delivery, two taps: answered 200, alice's tap counted and bob's resumed (got ${together.status} ${together.body})`,
		together.status === 200 && isDeepStrictEqual(outcomesOf(together), ['counted', 'resumed']),
	);
	check(`one delivery, two taps: the execution resumed, nothing keeps waiting (${batchStatus})`, batchStatus === 'success');
	check(
		`one delivery, two taps: the next node got approved by bob (the later tap), responders alice and bob, once (got ${JSON.stringify(batchNext)})`,
		gotOnce(batchNext, decision(batch, true, [{ user: 'alice', approved: true, tap: batchAlice }, { user: 'bob', approved: true, tap: batchBob }])),
	);
	check(`one delivery, two taps: the bot posted alice's count and "Approved by bob", each once, nothing else (got ${repliesOf(batch)})`, repliesAre(batch, [counted('alice', 'approved', 1), 'Approved by bob']));
	check('one delivery, two taps: the decided question keeps no votes in the trigger\'s static data', await forgotten(batch));
	check('one delivery, two taps: the delivery started no run', (await executions()) === runs);

	// 7. A delivery with a picture while votes are counted: the platform serves the picture after
	//    6 s; meanwhile alice and bob approve (two deliveries). The picture's delivery loaded the
	//    trigger's static data before the votes and saves that copy when it ends. Then carol taps (a
	//    third delivery) and the first recount passes: the votes were kept, the question resumed
	//    once with both, and the picture's run happened once.
	const everyRun = async () => (await srv.server.executions({ workflowId: run.workflowId, status: EVERY_STATUS }, 100)).results;
	const before = new Set((await everyRun()).map((e) => e.id));
	/** A message with a picture the platform serves after `latencyMs`, delivered; returns once the download has begun. */
	const slowPicture = async (pictureId: string, latencyMs: number) => {
		(sim.state as { addPicture(id: string): string }).addPicture(pictureId);
		sim.faults.add({ method: 'GET', path: `/file/image/${pictureId}`, latencyMs, times: 1 });
		const event = messageEvent({ pictureId, fileName: 'whiteboard.png', groupId: project._id, topicId: release._id });
		const answer = sendWebhook(run.url, { kind: 'bot', events: [event] }, { secret: run.secret, timeoutMs: 30_000 }).then((r) => ({ ...r, endedAt: Date.now() }));
		const downloads = () => sim.log.find({ method: 'GET', path: `/file/image/${pictureId}` }).length;
		const began = await until(() => downloads() > 0 || undefined, 10_000);
		return { answer, began: began === true, downloads };
	};
	const slow = await ask('votes Ship release 2.3 on Monday?');
	const picture = await slowPicture(SLOW_PICTURE, SLOW_PICTURE_MS);
	const slowAlice = await tap(slow, 'alice', 'Approve');
	const slowBob = await tap(slow, 'bob', 'Approve');
	const votedAt = Date.now();
	const pictureAnswer = await picture.answer;
	const slowStatus = await waitFor(slow.executionId, ['success', 'error', 'crashed'], 30_000);
	const slowCarol = await tap(slow, 'carol', 'Approve');
	// 7b. One vote while a second picture downloads, its delivery answered before the first recount:
	//     the database still holds the vote once that delivery saved its copy (a process writes back
	//     what it counted when each request ends), and after the recount.
	const held = await ask('votes Ship release 2.4 on Tuesday?');
	const heldPicture = await slowPicture(`${SLOW_PICTURE}-2`, HELD_PICTURE_MS);
	const heldAlice = await tap(held, 'alice', 'Approve');
	// n8n saves a webhook's static data after the node answered: polled, the picture's delivery still holding its copy.
	let keptDuring = await kept(held);
	for (const deadline = Date.now() + 1_500; keptDuring === undefined && Date.now() < deadline; await sleep(100)) keptDuring = await kept(held);
	const secondAnswer = await heldPicture.answer;
	const keptAfterPicture = await kept(held);
	await sleep(Math.max(0, Date.parse(heldAlice.event.timestamp) + RECHECK_DELAYS_MS[0] + 1500 - Date.now()));
	const keptAfterRecount = await kept(held);
	const heldBob = await tap(held, 'bob', 'Approve');
	const heldStatus = await waitFor(held.executionId, ['success', 'error', 'crashed']);
	await sleep(Math.max(0, Date.parse(slowAlice.event.timestamp) + RECHECK_DELAYS_MS[0] + 2000 - Date.now()));
	const slowNext = await after(slow.executionId, 'After Votes');
	const heldNext = await after(held.executionId, 'After Votes');
	// The runs since, besides the two questions' own.
	const added = (await everyRun()).filter((e) => !before.has(e.id) && e.id !== slow.executionId && e.id !== held.executionId);
	const pictureRuns: Record<string, string[]> = {};
	for (const e of added) {
		for (const i of await after(e.id, 'Trigger')) {
			const id = (i.message as { pictureId?: string } | undefined)?.pictureId ?? 'none';
			(pictureRuns[id] ??= []).push(`${e.id} ${e.status}`);
		}
	}
	const runsOf = (id: string) => pictureRuns[id] ?? [];
	// Up to the second question's push (its own replies are checked with it).
	const slowTexts = run.pushes().slice(slow.pushesBefore, held.pushesBefore - 1).map((b) => b.messages?.[0]?.text);
	lines.push(
		`a picture meanwhile: download began ${String(picture.began)}; alice ${outcomeOf(slowAlice)}, bob ${outcomeOf(slowBob)}, ${pictureAnswer.endedAt - votedAt} ms before the picture's delivery was answered ${pictureAnswer.status} ${pictureAnswer.body}; ` +
			`${slowStatus}; carol ${outcomeOf(slowCarol)}; runs by picture ${JSON.stringify(pictureRuns)} (${picture.downloads()} download(s)); replies ${JSON.stringify(slowTexts)}`,
		`one vote while a picture downloads: alice ${outcomeOf(heldAlice)}; taps in the stored static data: ${String(keptDuring)} after her tap, ${String(keptAfterPicture)} after the picture's delivery (${secondAnswer.status}), ${String(keptAfterRecount)} after the first recount; bob ${outcomeOf(heldBob)} (${heldStatus}); replies ${repliesOf(held)}`,
	);
	check('a picture meanwhile: both votes came while the picture was downloading', picture.began && pictureAnswer.endedAt > votedAt);
	check(`a picture meanwhile: alice's vote is counted (${outcomeOf(slowAlice)}), bob's is handed on (${outcomeOf(slowBob)})`, outcomeOf(slowAlice) === 'counted' && ['resumed', 'counted'].includes(outcomeOf(slowBob)));
	check(`a picture meanwhile: the execution resumed, nothing keeps waiting (${slowStatus})`, slowStatus === 'success');
	check(
		`a picture meanwhile: the next node got approved by bob, responders alice and bob, once (got ${JSON.stringify(slowNext)})`,
		gotOnce(slowNext, decision(slow, true, [{ user: 'alice', approved: true, tap: slowAlice }, { user: 'bob', approved: true, tap: slowBob }])),
	);
	check(`a picture meanwhile: carol's later tap resumes nothing (${outcomeOf(slowCarol)})`, slowCarol.status === 200 && ['notWaiting', 'alreadyAnswered'].includes(outcomeOf(slowCarol)));
	check(
		`a picture meanwhile: alice's count and "Approved by bob" posted once each, no reply twice (got ${JSON.stringify(slowTexts)})`,
		slowTexts.filter((t) => t === counted('alice', 'approved', 1)).length === 1 && slowTexts.filter((t) => t === 'Approved by bob').length === 1 && new Set(slowTexts).size === slowTexts.length,
	);
	check(
		`a picture meanwhile: the picture's delivery was answered 200 and its run happened once (${pictureAnswer.status} ${pictureAnswer.body}; runs ${JSON.stringify(runsOf(SLOW_PICTURE))})`,
		pictureAnswer.status === 200 && runsOf(SLOW_PICTURE).length === 1 && picture.downloads() === 1,
	);
	check('a picture meanwhile: the decided question keeps no votes in the trigger\'s static data', await forgotten(slow));
	check(`one vote while a picture downloads: alice's vote counted and stored (${outcomeOf(heldAlice)}, ${String(keptDuring)})`, outcomeOf(heldAlice) === 'counted' && keptDuring === 1);
	check(
		`one vote while a picture downloads: the stored static data still holds her vote once the picture's delivery saved its copy, and after the first recount (${String(keptAfterPicture)}, ${String(keptAfterRecount)})`,
		keptAfterPicture === 1 && keptAfterRecount === 1,
	);
	check(
		`one vote while a picture downloads: bob's approval resumes the execution with both in responders, once (got ${JSON.stringify(heldNext)})`,
		heldStatus === 'success' && gotOnce(heldNext, decision(held, true, [{ user: 'alice', approved: true, tap: heldAlice }, { user: 'bob', approved: true, tap: heldBob }])),
	);
	check(`one vote while a picture downloads: the bot posted the count and "Approved by bob", each once (got ${repliesOf(held)})`, repliesAre(held, [counted('alice', 'approved', 1), 'Approved by bob']));
	check(
		`the pictures' runs: one each, no other run started (${JSON.stringify(pictureRuns)})`,
		added.length === 2 && secondAnswer.status === 200 && runsOf(`${SLOW_PICTURE}-2`).length === 1 && heldPicture.downloads() === 1,
	);

	// 8. The trigger renamed between two votes (as in the editor: its ID and webhook ID stay; the
	//    workflow saved, and published on n8n 2.x): its counted votes stay with it, and bob's tap
	//    decides. Last, since the cases before read the trigger's output by its name.
	const renamed = await ask('votes Ship release 2.2 on Monday?');
	runs = await executions();
	const renamedAlice = await tap(renamed, 'alice', 'Approve');
	const afterRenamedAlice = await settled(renamed);
	const keptBeforeRename = await kept(renamed);
	await renameNodeIn(srv.server, run.workflowId, 'Trigger', 'Release trigger');
	await srv.waitForWebhook(run.url);
	// n8n 2.x registers the published version's webhooks after the call answered, and may answer
	// 404 meanwhile (the old ones already gone): the platform sends a refused delivery again.
	let renamedBob = await tap(renamed, 'bob', 'Approve');
	for (let tries = 0; renamedBob.status === 404 && tries < 20; tries++) {
		await sleep(500);
		renamedBob = await tap(renamed, 'bob', 'Approve');
	}
	const renamedStatus = await waitFor(renamed.executionId, ['success', 'error', 'crashed']);
	const renamedNext = await after(renamed.executionId, 'After Votes');
	lines.push(`rename: alice ${outcomeOf(renamedAlice)} (${afterRenamedAlice}, ${String(keptBeforeRename)} tap(s) kept); trigger renamed; bob ${outcomeOf(renamedBob)} (${renamedStatus}); replies ${repliesOf(renamed)}`);
	check("rename: alice's approval is counted and kept, still waiting", outcomeOf(renamedAlice) === 'counted' && afterRenamedAlice === 'waiting' && keptBeforeRename === 1);
	check(`rename: bob's approval, after the trigger was renamed, resumes the execution (${outcomeOf(renamedBob)}, ${renamedStatus})`, outcomeOf(renamedBob) === 'resumed' && renamedStatus === 'success');
	check(
		`rename: the next node got approved by bob, responders alice and bob, once (got ${JSON.stringify(renamedNext)})`,
		gotOnce(renamedNext, decision(renamed, true, [{ user: 'alice', approved: true, tap: renamedAlice }, { user: 'bob', approved: true, tap: renamedBob }])),
	);
	check(`rename: the bot posted the count and "Approved by bob", each once (got ${repliesOf(renamed)})`, repliesAre(renamed, [counted('alice', 'approved', 1), 'Approved by bob']));
	check('rename: the taps started no run', (await executions()) === runs);
	return { checks: run.checks, lines };
}

/** Polls `probe` until it gives a value (or time runs out: undefined). */
async function until<T>(probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const got = probe();
		if (got !== undefined || Date.now() > deadline) return got;
		await sleep(100);
	}
}

export const scenario = triggerServerScenario({
	name: 'send and wait: several approvers in the chat (Approvals Required 2: counted votes, veto, counted declines, simultaneous taps, a restart, several taps in one delivery, a picture meanwhile, the trigger renamed) (n8n start)',
	compat: true,
	placeholderNote: 'the cases with several approvers in the chat run in before()',
	run: runCases,
	check: checkReport('in-chat votes'),
});
