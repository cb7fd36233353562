/**
 * Send and Wait for Response answered in the chat: the postback buttons and their answer tokens,
 * the Workplace Trigger handing a tap to the waiting execution through n8n's waiting-webhook route
 * (test/helpers/waiting-route.ts), the waiting node's checks (n8n's URL signature, the platform's
 * signature, the token, who tapped), the output and what the bot posts in the chat.
 */
import { createHmac } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { SEED, postbackEvent, prepareTap, signBody } from '../../simulator';
import { ALREADY_ANSWERED_REPLY, decodeAnswerToken, encodeAnswerToken } from '../../nodes/shared/approvals/tapProtocol';
import { sendAndWaitFields } from '../../nodes/WorkplaceBot/actions/message/sendAndWait/description';
import { NOT_RECORDED_REPLY, NOT_WAITING_REPLY } from '../../nodes/WorkplaceTrigger/approvals/handOn';
import { ENGINE_INSTANCE_BASE_URL } from '../helpers/engine-additional-data';
import { useSimulator } from '../helpers/simulator';
import { callWaitingWebhook, storedExecution } from '../helpers/waiting';
import type { WaitingRoute } from '../helpers/waiting-route';
import { startWaitingRoute } from '../helpers/waiting-route';
import { TriggerBed } from '../trigger/trigger-bed';
import { runBot } from './bot.fixtures';
import { SECRET, chatHelpers, delivery, forwarded, inChat, replyOf, toAlice, toReleaseTopic, urlOf } from './sendAndWait.chat.fixtures';
import { PUSH, alice, aliceChat, project, sentMessage } from './sendAndWait.fixtures';

const sim = useSimulator();
const bob = SEED.users.bob;
const carol = SEED.users.carol;
const release = project.topics.release;

const { ask, trigger, tap } = chatHelpers(sim);

/** Posts a signed delivery to the trigger, as the platform sends it (again). */
function deliverAgain(bed: TriggerBed, raw: string, signature: string) {
	return bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signature } });
}

describe('sending', () => {
	it('the buttons are postbacks whose data are answer tokens: this execution, node and wait, signed by n8n', async () => {
		const { run, body, actions } = await ask(inChat(toAlice));
		expect(body.gid).toBe(aliceChat.gid);
		expect(actions.map((a) => [a.type, a.label])).toEqual([
			['postback', 'Approve'],
			['postback', 'Decline'],
		]);
		const nodeId = run.workflow.getNode(run.nodeName)!.id;
		const [approve, decline] = actions.map((a) => decodeAnswerToken(a.data)!);
		expect(approve).toEqual({ executionId: run.executionId, nodeId, nonce: expect.stringMatching(/^[A-Za-z0-9_-]{8}$/), answer: 'a', signature: expect.stringMatching(/^[0-9a-f]{64}$/) });
		expect(decline).toEqual({ ...approve, answer: 'd', signature: expect.stringMatching(/^[0-9a-f]{64}$/) });
		expect(decline.signature).not.toBe(approve.signature);
		// Compact: about 90 characters, no link in the message.
		expect(actions[0].data.length).toBeLessThanOrEqual(100);
		expect(JSON.stringify(body)).not.toContain('linkUri');
		expect(run.run!.data.waitTill).toBeInstanceOf(Date);
	});

	it('without a Workplace Webhook API credential nothing is sent', async () => {
		const run = await runBot(sim, inChat(toAlice));
		expect(run.error?.message).toMatch(/^Answer In is "Chat" but no Workplace Webhook API credential is selected/);
		expect(run.requests).toHaveLength(0);
	});

	it('a token cannot be forged: any change of execution, node, nonce or answer breaks it', () => {
		const token = { executionId: '12', nodeId: 'b7d4c0e2-4a6f-4f3b-9d1e-0c2a3b4c5d6e', nonce: 'AbCdEf12', answer: 'a' as const, signature: 'ab'.repeat(32) };
		const data = encodeAnswerToken(token);
		expect(data).toMatch(/^wpa1\.12\.[A-Za-z0-9_-]{22}\.AbCdEf12\.a\.[A-Za-z0-9_-]{43}$/);
		expect(decodeAnswerToken(data)).toEqual(token);
		expect(decodeAnswerToken(encodeAnswerToken({ ...token, nodeId: 'Ask node' }))).toEqual({ ...token, nodeId: 'Ask node' });
		expect(decodeAnswerToken(`${data}x`)).toBeUndefined();
		expect(decodeAnswerToken(data.replace('.a.', '.x.'))).toBeUndefined();
	});
});

describe('the waiting node receives a forwarded tap', () => {
	it('the recipient taps Approve: resumes with who answered, when, and the question\'s message, and asks the bot to confirm', async () => {
		const { run, actions } = await ask(inChat(toAlice));
		const event = postbackEvent({ data: actions[0].data, userId: alice._id, username: alice.username, timestamp: '2026-11-26T10:00:00.000Z' });
		const { raw, signature } = delivery(event);
		const outcome = await callWaitingWebhook(run, { method: 'POST', url: urlOf(actions[0].data), body: forwarded(raw, signature) });
		expect(outcome.resumed).toBe(true);
		const message = sentMessage(run);
		expect(message).toEqual({ messageId: expect.any(String), groupId: aliceChat.gid, threadId: aliceChat.tid });
		expect(outcome.items).toEqual([
			{
				json: {
					data: {
						approved: true,
						responder: { id: alice._id, username: 'alice', source: 'chat' },
						respondedAt: '2026-11-26T10:00:00.000Z',
						...message,
					},
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(Object.keys(outcome.items[0].json.data as IDataObject)).toEqual(['approved', 'responder', 'respondedAt', 'messageId', 'groupId', 'threadId']);
		expect(outcome.result.webhookResponse).toEqual({ outcome: 'resumed', message: 'Approved', reply: 'Approved by alice' });
		expect(outcome.result.noWebhookResponse).toBeUndefined();
	});

	it('someone else in a direct chat: no resume, a reply naming them', async () => {
		const { run, actions } = await ask(inChat({ ...toAlice, options: { notAllowedReply: 'Sorry {user}, only alice decides.' } }));
		const { raw, signature } = delivery(postbackEvent({ data: actions[0].data, userId: bob._id, username: 'bob' }));
		const outcome = await callWaitingWebhook(run, { method: 'POST', url: urlOf(actions[0].data), body: forwarded(raw, signature) });
		expect([outcome.status, outcome.resumed]).toEqual([200, false]);
		expect(JSON.parse(outcome.body)).toEqual({ outcome: 'notAllowed', message: 'bob is not an allowed approver', reply: 'Sorry bob, only alice decides.' });
	});

	it.each([
		['a signature made with another secret', (raw: string) => signBody('another secret', raw)],
		['no signature', () => ''],
	])('%s: refused, nothing resumes', async (_, sign) => {
		const { run, actions } = await ask(inChat(toAlice));
		const raw = JSON.stringify({ events: [postbackEvent({ data: actions[0].data })] });
		const outcome = await callWaitingWebhook(run, { method: 'POST', url: urlOf(actions[0].data), body: forwarded(raw, sign(raw)) });
		expect([outcome.status, outcome.resumed]).toEqual([401, false]);
		expect(JSON.parse(outcome.body)).toEqual({ outcome: 'invalid', message: "The delivery's X-Service-Signature does not match the webhook secret of the Send and Wait node", reply: '' });
	});

	it("a signed tap on another message's button does not answer this one", async () => {
		const first = await ask(inChat(toAlice));
		const second = await ask(inChat(toAlice));
		// The delivery holds the second message's token, posted to the first's URL.
		const { raw, signature } = delivery(postbackEvent({ data: second.actions[0].data }));
		const outcome = await callWaitingWebhook(first.run, { method: 'POST', url: urlOf(first.actions[0].data), body: forwarded(raw, signature) });
		expect([outcome.status, outcome.resumed]).toEqual([401, false]);
		expect(JSON.parse(outcome.body).message).toBe("The delivery's event named by the trigger is no tap on this message's buttons by a named user");
	});

	it('a person opening an in-chat resume URL gets the invalid-link page', async () => {
		const { run, actions } = await ask(inChat(toAlice));
		const outcome = await callWaitingWebhook(run, { method: 'GET', url: urlOf(actions[0].data) });
		expect([outcome.status, outcome.resumed]).toEqual([401, false]);
		expect(outcome.body).toContain('Link not valid');
	});

	it('Allowed Approvers from an expression on the input item: resolved as sent', async () => {
		const { run, actions } = await ask(inChat({ ...toReleaseTopic, allowedApprovers: '={{ $json.approvers }}' }), [
			{ json: { approvers: `bob, ${carol._id}` } },
		]);
		const stored = storedExecution(run);
		const by = async (user: { _id: string; username: string }) => {
			const { raw, signature } = delivery(postbackEvent({ data: actions[1].data, userId: user._id, username: user.username, groupId: project._id, topicId: release._id }));
			return await callWaitingWebhook(run, { method: 'POST', url: urlOf(actions[1].data), body: forwarded(raw, signature), stored });
		};
		const byAlice = await by(alice);
		expect([byAlice.resumed, JSON.parse(byAlice.body).outcome]).toEqual([false, 'notAllowed']);
		const byCarol = await by(carol);
		expect(byCarol.resumed).toBe(true);
		const message = sentMessage(run);
		expect(message).toEqual({ messageId: expect.any(String), groupId: project._id, threadId: release._id });
		expect(byCarol.items[0].json.data).toEqual({
			approved: false,
			responder: { id: carol._id, username: 'carol', source: 'chat' },
			respondedAt: expect.any(String),
			...message,
		});
		expect(byCarol.result.webhookResponse).toEqual({ outcome: 'resumed', message: 'Declined', reply: 'Declined by carol' });
	});
});

describe('the options of in-chat answers', () => {
	async function approveAsAlice(options: IDataObject, answer: 0 | 1 = 0) {
		const { run, actions } = await ask(inChat({ ...toAlice, options }));
		const { raw, signature } = delivery(postbackEvent({ data: actions[answer].data, userId: alice._id, username: alice.username }));
		return await callWaitingWebhook(run, { method: 'POST', url: urlOf(actions[answer].data), body: forwarded(raw, signature) });
	}

	it('a custom Approved or Declined Confirmation is posted without Post Confirmation added to Options (it is on by default)', async () => {
		const approved = await approveAsAlice({ approvedConfirmation: 'Ship it, {user} said yes' });
		expect(approved.resumed).toBe(true);
		expect(approved.result.webhookResponse).toEqual({ outcome: 'resumed', message: 'Approved', reply: 'Ship it, alice said yes' });
		const declined = await approveAsAlice({ declinedConfirmation: '{user} said no' }, 1);
		expect(declined.result.webhookResponse).toEqual({ outcome: 'resumed', message: 'Declined', reply: 'alice said no' });
	});

	it('Post Confirmation on with a custom text: the text; off: nothing is posted, whatever the texts say', async () => {
		const on = await approveAsAlice({ postConfirmation: true, approvedConfirmation: 'OK by {user}' });
		expect(on.result.webhookResponse).toEqual({ outcome: 'resumed', message: 'Approved', reply: 'OK by alice' });
		const off = await approveAsAlice({ postConfirmation: false, approvedConfirmation: 'OK by {user}' });
		expect(off.resumed).toBe(true);
		expect(off.result.webhookResponse).toEqual({ outcome: 'resumed', message: 'Approved', reply: '' });
	});

	it('the confirmation texts are shown unless Post Confirmation is switched off; there is no Reply to Later Answers (a later tap gets a fixed text)', () => {
		const options = sendAndWaitFields.find((field) => field.name === 'options')!.options as Array<{ name: string; displayOptions?: IDataObject }>;
		const byName = new Map(options.map((option) => [option.name, option]));
		for (const name of ['approvedConfirmation', 'declinedConfirmation']) {
			expect(byName.get(name)!.displayOptions).toEqual({ show: { '/responseType': ['approval'], '/answerIn': ['chat'] }, hide: { postConfirmation: [false] } });
		}
		expect(byName.has('alreadyAnsweredReply')).toBe(false);
	});

	it('a second answer reaching the node (the first was recorded in this process): the fixed "already answered" reply, no resume', async () => {
		const { run, actions } = await ask(inChat(toAlice));
		const stored = storedExecution(run);
		const tapBy = async (index: 0 | 1) => {
			const { raw, signature } = delivery(postbackEvent({ data: actions[index].data, userId: alice._id, username: alice.username }));
			return await callWaitingWebhook(run, { method: 'POST', url: urlOf(actions[index].data), body: forwarded(raw, signature), stored });
		};
		expect((await tapBy(0)).resumed).toBe(true);
		const second = await tapBy(1);
		expect([second.status, second.resumed]).toEqual([200, false]);
		expect(JSON.parse(second.body)).toEqual({ outcome: 'alreadyAnswered', message: 'An answer was already recorded', reply: ALREADY_ANSWERED_REPLY });
	});
});

describe('the Workplace Trigger hands taps to the waiting execution', () => {
	let route: WaitingRoute | undefined;
	afterEach(async () => {
		await route?.close();
		route = undefined;
	});

	it('direct chat: alice taps Approve -> one forward with the delivery as signed, no run, one resume, the confirmation in her chat', async () => {
		const { run } = await ask(inChat(toAlice));
		route = await startWaitingRoute([run]);
		const bed = trigger(route);
		const { event, raw, signature, outcome, replies } = await tap(bed, 'Approve', 'alice');

		expect(outcome.status).toBe(200);
		expect(outcome.runStarted).toBe(false);
		expect(outcome.body).toEqual({ received: 0, message: 'In-chat answers handed to their waiting executions (resumed); no run started' });
		expect(route.requests).toHaveLength(1);
		const [forward] = route.requests;
		const token = decodeAnswerToken(event.postback.data)!;
		expect(forward.method).toBe('POST');
		expect(forward.path).toBe(`/webhook-waiting/${run.executionId}/${token.nodeId}`);
		expect(forward.query).toEqual({ nonce: token.nonce, answer: 'a', via: 'chat', signature: token.signature });
		expect(forward.headers['content-type']).toMatch(/^application\/json/);
		// Posted to the Resume Base URL with the host n8n's own URLs carry (n8n 1.x checks it).
		expect(forward.headers.host).toBe(new URL(ENGINE_INSTANCE_BASE_URL).host);
		expect(forward.body).toEqual({ delivery: Buffer.from(raw).toString('base64'), signature, event: 0 });
		expect(route.resumed).toEqual([run.executionId]);
		expect(route.outcomes[0].items[0].json.data).toEqual({
			approved: true,
			responder: { id: alice._id, username: 'alice', source: 'chat' },
			respondedAt: event.timestamp,
			...sentMessage(run),
		});
		expect(replies.map(replyOf)).toEqual([{ gid: aliceChat.gid, tid: aliceChat.tid, messages: [{ type: 'text', text: 'Approved by alice' }] }]);
	});

	it('group topic with two allowed approvers: a third member gets the reply and it still waits; then an approver resumes it once; a later tap gets "no longer waiting"', async () => {
		const { run } = await ask(inChat({ ...toReleaseTopic, allowedApprovers: 'alice, bob' }));
		route = await startWaitingRoute([run]);
		const bed = trigger(route);

		const byCarol = await tap(bed, 'Approve', 'carol');
		expect(byCarol.outcome.runStarted).toBe(false);
		expect(route.resumed).toEqual([]);
		expect(byCarol.replies.map(replyOf)).toEqual([{ gid: project._id, tid: release._id, messages: [{ type: 'text', text: 'carol may not answer this request.' }] }]);

		const byBob = await tap(bed, 'Decline', 'bob');
		expect(route.resumed).toEqual([run.executionId]);
		expect(route.outcomes[1].items[0].json.data).toEqual({
			approved: false,
			responder: { id: bob._id, username: 'bob', source: 'chat' },
			respondedAt: byBob.event.timestamp,
			messageId: sentMessage(run).messageId,
			groupId: project._id,
			threadId: release._id,
		});
		expect(byBob.replies.map((r) => (replyOf(r).messages as IDataObject[])[0].text)).toEqual(['Declined by bob']);

		const byAlice = await tap(bed, 'Approve', 'alice');
		expect(route.resumed).toEqual([run.executionId]);
		expect(byAlice.outcome.body).toEqual({ received: 0, message: 'In-chat answers handed to their waiting executions (notWaiting); no run started' });
		expect(byAlice.replies.map((r) => (replyOf(r).messages as IDataObject[])[0].text)).toEqual([NOT_WAITING_REPLY]);
		expect(route.requests).toHaveLength(3);
	});

	it('a double tap at the same moment resumes once; the second is told the request no longer waits', async () => {
		const { run } = await ask(inChat(toAlice));
		route = await startWaitingRoute([run]);
		const bed = trigger(route);
		const first = prepareTap(sim.state, { label: 'Approve', user: 'alice' }).event;
		const second = prepareTap(sim.state, { label: 'Approve', user: 'alice' }).event;
		sim.log.clear();
		const outcomes = await Promise.all(
			[first, second].map((event) => {
				const { raw, signature } = delivery(event);
				return bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signature } });
			}),
		);
		expect(outcomes.map((o) => [o.status, o.runStarted])).toEqual([
			[200, false],
			[200, false],
		]);
		expect(route.resumed).toEqual([run.executionId]);
		const texts = sim.log.find({ method: 'POST', path: PUSH }).map((r) => (replyOf(r).messages as IDataObject[])[0].text);
		expect(texts.sort()).toEqual(['Approved by alice', NOT_WAITING_REPLY].sort());
	});

	it('the platform delivering the same tap again: handed on once', async () => {
		const { run } = await ask(inChat(toAlice));
		route = await startWaitingRoute([run]);
		const bed = trigger(route);
		const { raw, signature } = await tap(bed, 'Approve', 'alice');
		const again = await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signature } });
		expect([again.status, again.runStarted]).toEqual([200, false]);
		expect(route.requests).toHaveLength(1);
	});

	it('a bad platform signature: 401 from the trigger, nothing handed on, no run', async () => {
		const { run } = await ask(inChat(toAlice));
		route = await startWaitingRoute([run]);
		const bed = trigger(route);
		const { event } = prepareTap(sim.state, { label: 'Approve', user: 'alice' });
		const raw = JSON.stringify({ events: [event] });
		const outcome = await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody('wrong', raw) } });
		expect([outcome.status, outcome.runStarted]).toEqual([401, false]);
		expect(route.requests).toHaveLength(0);
	});

	it("a token whose signature was made for another execution: n8n's route refuses it, nothing resumes, nobody is answered", async () => {
		const first = await ask(inChat(toAlice));
		const second = await ask(inChat(toAlice));
		route = await startWaitingRoute([first.run, second.run]);
		const bed = trigger(route);
		// The second message's token, moved to the first execution.
		const moved = { ...decodeAnswerToken(second.actions[0].data)!, executionId: first.run.executionId };
		const event = postbackEvent({ data: encodeAnswerToken(moved) });
		const { raw, signature } = delivery(event);
		sim.log.clear();
		const outcome = await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signature } });
		expect([outcome.status, outcome.runStarted]).toEqual([200, false]);
		expect(route.resumed).toEqual([]);
		expect(route.outcomes.map((o) => o.status)).toEqual([401]);
		expect(sim.log.find({ method: 'POST', path: PUSH })).toHaveLength(0);
		expect(bed.logs.map((l) => l.level)).toEqual(['warn']);
	});

	it('an ordinary postback in the same trigger still starts its run; a malformed token starts none', async () => {
		const { run } = await ask(inChat(toAlice));
		route = await startWaitingRoute([run]);
		const bed = trigger(route);
		const ordinary = postbackEvent({ data: 'action=lunch&id=7' });
		const { raw, signature } = delivery(ordinary);
		const started = await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signature } });
		expect(started.runStarted).toBe(true);
		expect(started.items.map((i) => i.json)).toEqual([{ ...ordinary, conversationKey: ordinary.sessionId }]);

		const broken = delivery(postbackEvent({ data: 'wpa1.not-a-token' }));
		const none = await bed.deliver({ rawBody: broken.raw, headers: { 'content-type': 'application/json', 'x-service-signature': broken.signature } });
		expect([none.status, none.runStarted]).toEqual([200, false]);
		expect(route.requests).toHaveLength(0);
	});

	it('the resume base URL is derived from the trigger URL when not set', async () => {
		const { run } = await ask(inChat(toAlice));
		const bed = new TriggerBed({
			parameters: { verification: 'secret', events: ['postback'] },
			credentials: { workplaceWebhookApi: { secret: SECRET } },
		});
		const { event } = prepareTap(sim.state, { label: 'Approve', user: 'alice' });
		const { raw, signature } = delivery(event);
		await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signature } });
		// Nothing listens at the engine bed's instance URL: the forward fails, and the log names the execution.
		expect(bed.logs.map((l) => l.message)).toEqual([
			expect.stringContaining(`a tap on an in-chat answer button could not be handed to execution ${run.executionId}`),
		]);
	});
});

describe('a tap that could not be handed on is not lost', () => {
	let route: WaitingRoute | undefined;
	afterEach(async () => {
		await route?.close();
		route = undefined;
	});

	it("n8n answers the hand-off 503: the platform is asked to send it again (503, Retry-After), alice is told once, the redelivery resumes once", async () => {
		const { run } = await ask(inChat(toAlice));
		route = await startWaitingRoute([run], { unavailableFirst: 1 });
		const bed = trigger(route);
		const { raw, signature, outcome, replies } = await tap(bed, 'Approve', 'alice');

		expect([outcome.status, outcome.runStarted]).toEqual([503, false]);
		expect(outcome.headers?.['Retry-After'] ?? outcome.headers?.['retry-after']).toBe('10');
		expect(outcome.body).toEqual({ message: 'An in-chat answer could not be handed to its waiting execution; send the delivery again' });
		expect(route.requests).toHaveLength(1);
		expect(route.resumed).toEqual([]);
		expect(replies.map(replyOf)).toEqual([
			{ gid: aliceChat.gid, tid: aliceChat.tid, messages: [{ type: 'text', text: NOT_RECORDED_REPLY.replace('{user}', 'alice') }] },
		]);
		expect(bed.logs.map((l) => [l.level, l.message])).toEqual([
			['warn', expect.stringContaining(`could not be handed to execution ${run.executionId}: n8n answered 503. The delivery was answered 503 so that the platform sends it again.`)],
		]);

		// The platform sends the same delivery again: handed on, resumed once, confirmed.
		sim.log.clear();
		const again = await deliverAgain(bed, raw, signature);
		expect([again.status, again.runStarted]).toEqual([200, false]);
		expect(again.body).toEqual({ received: 0, message: 'In-chat answers handed to their waiting executions (resumed); no run started' });
		expect(route.requests).toHaveLength(2);
		expect(route.requests[1].body).toEqual(route.requests[0].body);
		expect(route.resumed).toEqual([run.executionId]);
		expect(sim.log.find({ method: 'POST', path: PUSH }).map((r) => (replyOf(r).messages as IDataObject[])[0].text)).toEqual(['Approved by alice']);

		// A third copy is a duplicate: nothing handed on.
		const third = await deliverAgain(bed, raw, signature);
		expect([third.status, third.body]).toEqual([200, { received: 0, message: 'No selected event in this delivery; no run started' }]);
		expect(route.requests).toHaveLength(2);
	});

	it('n8n unreachable twice for the same tap: two 503s, one "not recorded" reply; then the hand-off succeeds once', async () => {
		const { run } = await ask(inChat(toAlice));
		route = await startWaitingRoute([run], { unavailableFirst: 2 });
		const bed = trigger(route);
		const first = await tap(bed, 'Approve', 'alice');
		const second = await deliverAgain(bed, first.raw, first.signature);
		expect([first.outcome.status, second.status]).toEqual([503, 503]);
		expect(sim.log.find({ method: 'POST', path: PUSH })).toHaveLength(1);
		expect(bed.logs.filter((l) => l.level === 'info').map((l) => l.message)).toEqual([
			expect.stringContaining('a repeated tap on an in-chat answer button (failed'),
		]);
		const third = await deliverAgain(bed, first.raw, first.signature);
		expect(third.status).toBe(200);
		expect(route.requests).toHaveLength(3);
		expect(route.resumed).toEqual([run.executionId]);
	});

	it('nothing listens at the resume URL (connection refused): 503 and the tap is released', async () => {
		const { run } = await ask(inChat(toAlice));
		const closed = await startWaitingRoute([run]);
		await closed.close();
		const bed = trigger(closed);
		const { raw, signature, outcome, replies } = await tap(bed, 'Approve', 'alice');
		expect([outcome.status, outcome.runStarted]).toEqual([503, false]);
		expect(replies).toHaveLength(1);
		// n8n is back: the redelivery reaches it.
		route = await startWaitingRoute([run]);
		const back = trigger(route);
		const again = await deliverAgain(back, raw, signature);
		expect(again.status).toBe(200);
		expect(route.resumed).toEqual([run.executionId]);
	});

	it('a delivery with a tap that failed and an ordinary event: 503, no run; its redelivery starts the run and resumes the wait', async () => {
		const { run } = await ask(inChat(toAlice));
		route = await startWaitingRoute([run], { unavailableFirst: 1 });
		const bed = trigger(route);
		const { event } = prepareTap(sim.state, { label: 'Approve', user: 'alice' });
		const ordinary = postbackEvent({ data: 'action=lunch&id=7' });
		const { raw, signature } = delivery(event, ordinary);
		const first = await deliverAgain(bed, raw, signature);
		expect([first.status, first.runStarted]).toEqual([503, false]);
		const again = await deliverAgain(bed, raw, signature);
		expect([again.status, again.runStarted]).toEqual([200, true]);
		expect(again.items.map((i) => i.json)).toEqual([{ ...ordinary, conversationKey: ordinary.sessionId }]);
		expect(route.resumed).toEqual([run.executionId]);
	});
});

describe('replies to taps are bounded', () => {
	let route: WaitingRoute | undefined;
	afterEach(async () => {
		await route?.close();
		route = undefined;
	});

	it('a member who may not answer taps three times: one reply; each later tap logged, not posted', async () => {
		const { run } = await ask(inChat({ ...toReleaseTopic, allowedApprovers: 'alice' }));
		route = await startWaitingRoute([run]);
		const bed = trigger(route);
		const taps = [await tap(bed, 'Approve', 'carol'), await tap(bed, 'Decline', 'carol'), await tap(bed, 'Approve', 'carol')];
		expect(taps.map((t) => [t.outcome.status, t.replies.length])).toEqual([
			[200, 1],
			[200, 0],
			[200, 0],
		]);
		expect(replyOf(taps[0].replies[0])).toEqual({ gid: project._id, tid: release._id, messages: [{ type: 'text', text: 'carol may not answer this request.' }] });
		expect(route.requests).toHaveLength(3);
		expect(route.resumed).toEqual([]);
		expect(bed.logs.map((l) => [l.level, l.message])).toEqual([
			['info', expect.stringContaining('a repeated tap on an in-chat answer button (notAllowed')],
			['info', expect.stringContaining('a repeated tap on an in-chat answer button (notAllowed')],
		]);
		// Another member who may not answer gets their own reply.
		const byBob = await tap(bed, 'Approve', 'bob');
		expect(byBob.replies.map((r) => (replyOf(r).messages as IDataObject[])[0].text)).toEqual(['bob may not answer this request.']);
	});

	it('late taps after the answer: one "no longer waiting" per person', async () => {
		const { run } = await ask(inChat({ ...toReleaseTopic, allowedApprovers: 'alice, bob' }));
		route = await startWaitingRoute([run]);
		const bed = trigger(route);
		await tap(bed, 'Approve', 'alice');
		const late = [await tap(bed, 'Decline', 'bob'), await tap(bed, 'Decline', 'bob'), await tap(bed, 'Approve', 'alice'), await tap(bed, 'Approve', 'alice')];
		expect(late.map((t) => t.replies.map((r) => (replyOf(r).messages as IDataObject[])[0].text))).toEqual([[NOT_WAITING_REPLY], [], [NOT_WAITING_REPLY], []]);
		expect(route.resumed).toEqual([run.executionId]);
	});

	it("simultaneous taps while the platform is slow to post: the winner's confirmation is posted before the reply to the later tap", async () => {
		const { run } = await ask(inChat({ ...toReleaseTopic, allowedApprovers: 'alice, bob' }));
		route = await startWaitingRoute([run]);
		const bed = trigger(route);
		// carol's tap gets a reply: the trigger holds a bot token from here on, so replies leave at once.
		expect((await tap(bed, 'Approve', 'carol')).replies).toHaveLength(1);
		const byAlice = prepareTap(sim.state, { label: 'Approve', user: 'alice' }).event;
		const byBob = prepareTap(sim.state, { label: 'Decline', user: 'bob' }).event;
		// The next push (the winner's confirmation) is 400 ms slow to reach the platform.
		sim.faults.add({ method: 'POST', path: PUSH, latencyMs: 400, times: 1 });
		const before = sim.state.sentMessages().length;
		await Promise.all([byAlice, byBob].map((event) => delivery(event)).map(({ raw, signature }) => deliverAgain(bed, raw, signature)));
		const posted = sim.state.sentMessages().slice(before).map((m) => (m.content as IDataObject).text);
		expect(posted).toEqual([expect.stringMatching(/^(Approved by alice|Declined by bob)$/), NOT_WAITING_REPLY]);
		expect(route.resumed).toEqual([run.executionId]);
	});
});

// Keeps the HMAC import honest: the simulator signs deliveries exactly as the platform does.
test('signBody is HMAC-SHA256 hex of the raw body', () => {
	expect(signBody(SECRET, 'x')).toBe(createHmac('sha256', SECRET).update('x').digest('hex'));
});
