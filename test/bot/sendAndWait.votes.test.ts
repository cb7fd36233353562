/**
 * Several approvers in the chat (Approvals Required above 1): the waiting node counts the taps the
 * Workplace Trigger sends along, each verified again; the trigger keeps counted taps in memory and
 * in its static data (a restart keeps them), and a recount brings together taps that two n8n
 * processes counted apart.
 */
import type { IDataObject } from 'n8n-workflow';

import { SEED, postbackEvent, signBody } from '../../simulator';
import { forgetProcessMemoryForTests } from '../../nodes/shared/processMemory';
import type { Ballot } from '../../nodes/shared/approvals/tapProtocol';
import { ballotId } from '../../nodes/WorkplaceTrigger/approvals/questionStore';
import type { Recount } from '../../nodes/shared/approvals/ownMessages';
import { ownMessageBody } from '../../nodes/shared/approvals/ownMessages';
import { useSimulator } from '../helpers/simulator';
import { callWaitingWebhook, storedExecution } from '../helpers/waiting';
import type { WaitingRoute } from '../helpers/waiting-route';
import { startWaitingRoute } from '../helpers/waiting-route';
import type { TriggerBed } from '../trigger/trigger-bed';
import { runBot } from './bot.fixtures';
import { SECRET, chatHelpers, delivery, forwarded, inChat, replyOf, toAlice, toReleaseTopic, urlOf } from './sendAndWait.chat.fixtures';
import { PUSH, alice, project, sentMessage } from './sendAndWait.fixtures';

const sim = useSimulator();
const { ask, trigger, tap } = chatHelpers(sim);
const bob = SEED.users.bob;
const carol = SEED.users.carol;
const release = project.topics.release;
const people = { alice, bob, carol };
type Person = keyof typeof people;

const twoOfThree = (extra: IDataObject = {}) => inChat({ ...toReleaseTopic, allowedApprovers: 'alice, bob, carol', approvalsRequired: 2, ...extra });

/** A tap of one person on the Approve (0) or Decline (1) button, signed; its time a minute apart per `minute`. */
function tapOf(data: string, who: Person, minute: number) {
	const person = people[who];
	const event = postbackEvent({ data, userId: person._id, username: person.username, groupId: project._id, topicId: release._id, timestamp: `2026-11-27T10:0${minute}:00.000Z` });
	const { raw, signature } = delivery(event);
	return { event, ballot: forwarded(raw, signature) };
}

function responder(who: Person) {
	return { id: people[who]._id, username: people[who].username, source: 'chat' };
}

/** Asks two of three in the release topic; `vote` hands one tap (with earlier ones) to the waiting node. */
async function askTwoOfThree(extra: IDataObject = {}) {
	const { run, actions } = await ask(twoOfThree(extra));
	const stored = storedExecution(run);
	const vote = async (button: 0 | 1, tapBody: IDataObject | undefined, ballots: IDataObject[] = []) => {
		const body = { ...(tapBody ?? {}), ...(ballots.length ? { ballots } : {}) };
		return await callWaitingWebhook(run, { method: 'POST', url: urlOf(actions[button].data), body, stored });
	};
	return { run, actions, vote };
}

describe('the waiting node counts the votes', () => {
	it('two of three: the first approval is counted and it keeps waiting; the second resumes once, listing both', async () => {
		const { run, actions, vote } = await askTwoOfThree();
		const byAlice = tapOf(actions[0].data, 'alice', 1);
		const first = await vote(0, byAlice.ballot);
		expect([first.status, first.resumed]).toEqual([200, false]);
		expect(JSON.parse(first.body)).toEqual({ outcome: 'counted', message: '1 of 2 approvals, 0 declined', reply: 'alice approved: 1 of 2 approvals so far' });

		const byBob = tapOf(actions[0].data, 'bob', 2);
		const second = await vote(0, byBob.ballot, [byAlice.ballot]);
		expect(second.resumed).toBe(true);
		expect(second.items).toEqual([
			{
				json: {
					data: {
						approved: true,
						responder: responder('bob'),
						respondedAt: byBob.event.timestamp,
						...sentMessage(run),
						responders: [
							{ ...responder('alice'), approved: true, respondedAt: byAlice.event.timestamp },
							{ ...responder('bob'), approved: true, respondedAt: byBob.event.timestamp },
						],
					},
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(second.result.webhookResponse).toEqual({ outcome: 'resumed', message: 'Approved', reply: 'Approved by bob' });
	});

	it("a person's second tap does not count: the fixed reply, and it keeps waiting", async () => {
		const { actions, vote } = await askTwoOfThree();
		const earlier = tapOf(actions[0].data, 'alice', 1);
		const again = await vote(0, tapOf(actions[0].data, 'alice', 2).ballot, [earlier.ballot]);
		expect([again.status, again.resumed]).toEqual([200, false]);
		expect(JSON.parse(again.body)).toEqual({ outcome: 'alreadyVoted', message: 'This person already voted', reply: 'alice, your vote was already counted.' });
	});

	it('earlier taps that are forged, on another message or by someone not allowed do not count', async () => {
		const { actions, vote } = await askTwoOfThree({ allowedApprovers: 'alice, bob' });
		const other = await ask(twoOfThree());
		const forgedRaw = JSON.stringify({ events: [tapOf(actions[0].data, 'alice', 1).event] });
		const forged = forwarded(forgedRaw, signBody('another secret', forgedRaw));
		const elsewhere = tapOf(other.actions[0].data, 'alice', 1).ballot;
		const byCarol = tapOf(actions[0].data, 'carol', 1).ballot;
		const outcome = await vote(0, tapOf(actions[0].data, 'bob', 2).ballot, [forged, elsewhere, byCarol]);
		expect(outcome.resumed).toBe(false);
		expect(JSON.parse(outcome.body)).toEqual({ outcome: 'counted', message: '1 of 2 approvals, 0 declined', reply: 'bob approved: 1 of 2 approvals so far' });
	});

	it('One Decline Decides: a decline after an approval declines, listing both', async () => {
		const { actions, vote } = await askTwoOfThree();
		const byAlice = tapOf(actions[0].data, 'alice', 1);
		const byCarol = tapOf(actions[1].data, 'carol', 2);
		const outcome = await vote(1, byCarol.ballot, [byAlice.ballot]);
		expect(outcome.resumed).toBe(true);
		const data = outcome.items[0].json.data as IDataObject;
		expect([data.approved, data.responder, data.respondedAt]).toEqual([false, responder('carol'), byCarol.event.timestamp]);
		expect(data.responders).toEqual([
			{ ...responder('alice'), approved: true, respondedAt: byAlice.event.timestamp },
			{ ...responder('carol'), approved: false, respondedAt: byCarol.event.timestamp },
		]);
		expect(outcome.result.webhookResponse).toEqual({ outcome: 'resumed', message: 'Declined', reply: 'Declined by carol' });
	});

	it('Count Declines Like Approvals: one decline is counted, the second declines', async () => {
		const { actions, vote } = await askTwoOfThree({ declineRule: 'countDeclines', options: { voteCountedReply: '{user}: {answer} ({declines} of {required} declines)' } });
		const byAlice = tapOf(actions[1].data, 'alice', 1);
		const first = await vote(1, byAlice.ballot);
		expect(JSON.parse(first.body)).toEqual({ outcome: 'counted', message: '0 of 2 approvals, 1 declined', reply: 'alice: declined (1 of 2 declines)' });
		const second = await vote(1, tapOf(actions[1].data, 'bob', 2).ballot, [byAlice.ballot]);
		expect(second.resumed).toBe(true);
		expect((second.items[0].json.data as IDataObject).approved).toBe(false);
	});

	it('a recount (earlier taps, no new one) resumes when they decide, and posts nothing while they do not', async () => {
		const { actions, vote } = await askTwoOfThree();
		const byAlice = tapOf(actions[0].data, 'alice', 1).ballot;
		const short = await vote(0, undefined, [byAlice]);
		expect(JSON.parse(short.body)).toEqual({ outcome: 'counted', message: '1 of 2 approvals, 0 declined', reply: '' });
		const decided = await vote(0, undefined, [byAlice, tapOf(actions[0].data, 'bob', 2).ballot]);
		expect(decided.resumed).toBe(true);
		expect(decided.result.webhookResponse).toEqual({ outcome: 'resumed', message: 'Approved', reply: 'Approved by bob' });
	});

	it.each([
		['more than the Allowed Approvers', { ...toReleaseTopic, allowedApprovers: 'alice, bob', approvalsRequired: 3 }, 'must not exceed the 2 Allowed Approvers'],
		['above 1 in a direct chat without Allowed Approvers', { ...toAlice, approvalsRequired: 2 }, 'must be 1 in a direct chat without Allowed Approvers'],
		['not a whole number', { ...toReleaseTopic, approvalsRequired: 1.5 }, 'must be a whole number from 1 to 50'],
	])('Approvals Required %s: refused before anything is sent', async (_, parameters, rule) => {
		const run = await runBot(sim, inChat(parameters), { credentials: { workplaceWebhookApi: { secret: SECRET } } });
		expect(run.error?.message).toContain('Approvals Required');
		expect(run.error?.message).toContain(rule);
		expect(run.requests).toHaveLength(0);
	});
});

describe('the trigger keeps counted taps', () => {
	let route: WaitingRoute | undefined;
	afterEach(async () => {
		await route?.close();
		route = undefined;
	});

	/** A forwarded tap as the trigger keeps it among the earlier ones: without its event's place. */
	const asBallot = (body: unknown) => ({ delivery: (body as IDataObject).delivery, signature: (body as IDataObject).signature });
	/** What the stored copy keeps of a decided question: done, without votes. */
	const decided = (bed: TriggerBed) => Object.values(bed.questionsStored('votes'));
	const texts = (replies: Array<{ body?: unknown }>) => replies.map((r) => ((r.body as IDataObject).messages as IDataObject[])[0].text);

	it("alice's tap is counted and kept; bob's carries it along and resumes; then nothing is kept", async () => {
		const { run } = await ask(twoOfThree());
		route = await startWaitingRoute([run]);
		const bed = trigger(route);
		const byAlice = await tap(bed, 'Approve', 'alice');
		expect(route.requests[0].body).toEqual({ delivery: Buffer.from(byAlice.raw).toString('base64'), signature: byAlice.signature, event: 0 });
		expect(byAlice.replies.map(replyOf)).toEqual([{ gid: project._id, tid: release._id, messages: [{ type: 'text', text: 'alice approved: 1 of 2 approvals so far' }] }]);
		expect(Object.values(bed.questionsStored('votes'))).toEqual([{ at: expect.any(Number), ballots: [asBallot(route.requests[0].body)] }]);
		expect(route.resumed).toEqual([]);

		const again = await tap(bed, 'Approve', 'alice');
		expect(texts(again.replies)).toEqual(['alice, your vote was already counted.']);

		const byBob = await tap(bed, 'Approve', 'bob');
		expect(route.requests[2].body).toEqual({ delivery: Buffer.from(byBob.raw).toString('base64'), signature: byBob.signature, event: 0, ballots: [asBallot(route.requests[0].body)] });
		expect(route.resumed).toEqual([run.executionId]);
		const data = route.outcomes[2].items[0].json.data as IDataObject;
		expect((data.responders as IDataObject[]).map((r) => [r.username, r.approved])).toEqual([
			['alice', true],
			['bob', true],
		]);
		expect(texts(byBob.replies)).toEqual(['Approved by bob']);
		expect(decided(bed)).toEqual([{ at: expect.any(Number), ballots: [], done: expect.any(Number) }]);
	});

	it("a restart between the votes: the stored copy still holds alice's tap", async () => {
		const { run } = await ask(twoOfThree());
		route = await startWaitingRoute([run]);
		const before = trigger(route);
		await tap(before, 'Approve', 'alice');
		forgetProcessMemoryForTests();
		const after = trigger(route, {}, before);
		const byBob = await tap(after, 'Approve', 'bob');
		expect(route.resumed).toEqual([run.executionId]);
		expect((route.requests[1].body as IDataObject).ballots).toEqual([asBallot(route.requests[0].body)]);
		expect(texts(byBob.replies)).toEqual(['Approved by bob']);
	});

	it("the trigger renamed between the votes (and n8n restarted): its votes stay with it, and bob's tap decides", async () => {
		const { run } = await ask(twoOfThree());
		route = await startWaitingRoute([run]);
		const before = trigger(route);
		await tap(before, 'Approve', 'alice');
		expect(Object.keys(before.questionsStored('votes'))).toHaveLength(1);
		forgetProcessMemoryForTests();
		const renamed = trigger(route, {}, before, 'Release approvals');
		const byBob = await tap(renamed, 'Approve', 'bob');
		expect(route.resumed).toEqual([run.executionId]);
		expect((route.requests[1].body as IDataObject).ballots).toEqual([asBallot(route.requests[0].body)]);
		expect(texts(byBob.replies)).toEqual(['Approved by bob']);
		expect(decided(renamed)).toEqual([{ at: expect.any(Number), ballots: [], done: expect.any(Number) }]);
	});

	// Interleaved processes, restarts and older copies: test/approvals/approvals-model.test.ts.
	it("a recount bringing a tap another process counted: the two taps together resume once", async () => {
		const { run } = await ask(twoOfThree());
		route = await startWaitingRoute([run]);
		// Process A counts alice's tap; process B read the stored copy before A saved it.
		const processA = trigger(route);
		await tap(processA, 'Approve', 'alice');
		const aliceBallot = asBallot(route.requests[0].body);
		forgetProcessMemoryForTests();
		const processB = trigger(route);
		const byBob = await tap(processB, 'Approve', 'bob');
		expect(route.requests[1].body).not.toHaveProperty('ballots');
		expect(texts(byBob.replies)).toEqual(['bob approved: 1 of 2 approvals so far']);
		expect(route.resumed).toEqual([]);

		// A's recount, as A posts it to the trigger's URL; B's stored copy lacks alice's tap. Each
		// process holds a tap the other lacks: the one whose own tap has the lower ID hands both on
		// (their recounts may cross, and n8n 1 would resume twice); the other posts a recount of
		// both marked as not handed on, which any process hands on.
		const request = Object.keys(processB.questionsStored('votes'))[0];
		const bobBallot = asBallot(route.requests[1].body);
		const signed = (recount: IDataObject) => {
			const raw = ownMessageBody({ kind: 'recount', recount: recount as unknown as Recount });
			return { rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, raw) } };
		};
		const raw = ownMessageBody({ kind: 'recount', recount: { request, ballots: [aliceBallot as Ballot], round: 0 } });
		sim.log.clear();
		let outcome = await processB.deliver(signed({ request, ballots: [aliceBallot], round: 0 }));
		expect([outcome.status, outcome.runStarted]).toEqual([200, false]);
		if (ballotId(bobBallot as Ballot) > ballotId(aliceBallot as Ballot)) {
			expect(outcome.body).toEqual({ received: 0, message: 'Recount of in-chat votes: left to the other process' });
			expect(route.requests).toHaveLength(2);
			outcome = await processB.deliver(signed({ request, ballots: [bobBallot, aliceBallot], round: 1, handed: false }));
		}
		expect(outcome.body).toEqual({ received: 0, message: 'Recount of in-chat votes: resumed' });
		expect(route.requests[2].query.via).toBe('chat');
		expect((route.requests[2].body as IDataObject).ballots).toEqual([asBallot(route.requests[1].body), aliceBallot]);
		expect(route.resumed).toEqual([run.executionId]);
		expect(texts(sim.log.find({ method: 'POST', path: PUSH }))).toEqual(['Approved by bob']);
		expect(decided(processB)).toEqual([{ at: expect.any(Number), ballots: [], done: expect.any(Number) }]);

		// A's later recount reaches a process that no longer holds the question: the stored copy
		// says it is done, so nothing is handed on, written back or posted.
		forgetProcessMemoryForTests();
		sim.log.clear();
		const late = await processB.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, raw) } });
		expect(late.body).toEqual({ received: 0, message: 'Recount of in-chat votes: done' });
		expect(route.requests).toHaveLength(3);
		expect(route.resumed).toEqual([run.executionId]);
		expect(decided(processB)).toEqual([{ at: expect.any(Number), ballots: [], done: expect.any(Number) }]);
		expect(sim.log.find({ method: 'POST', path: PUSH })).toHaveLength(0);
	});

	it('a recount with a wrong signature is refused', async () => {
		const { run } = await ask(twoOfThree());
		route = await startWaitingRoute([run]);
		const bed = trigger(route);
		const raw = ownMessageBody({ kind: 'recount', recount: { request: 'x:y:z', ballots: [], round: 0 } });
		const outcome = await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody('wrong', raw) } });
		expect(outcome.status).toBe(401);
		expect(route.requests).toHaveLength(0);
	});
});
