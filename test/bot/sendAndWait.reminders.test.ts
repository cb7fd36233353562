/**
 * Reminders and escalation of in-chat approvals (Options > Remind Approvers, Options > Escalate):
 * Send and Wait registers its question with the Workplace Trigger's clock before it sends it; the
 * trigger's ticks hand due questions to the waiting node, which posts the reminder or escalation
 * and answers its progress; the trigger keeps it in its static data (a restart keeps it) and
 * forgets the question once decided. n8n here is the waiting route (test/helpers/waiting-route.ts)
 * serving both the trigger's production URL and the waiting executions; time is Date.now's.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { decodeAnswerToken } from '../../nodes/shared/approvals/tapProtocol';

import { SEED, postbackEvent, signBody } from '../../simulator';
import { forgetProcessMemoryForTests } from '../../nodes/shared/processMemory';
import { CLOCKS_FIELD } from '../../nodes/shared/approvals/clockProtocol';
import { ownMessageBody } from '../../nodes/shared/approvals/ownMessages';
import { useSimulator } from '../helpers/simulator';
import type { WaitingRoute } from '../helpers/waiting-route';
import { startWaitingRoute } from '../helpers/waiting-route';
import { TriggerBed } from '../trigger/trigger-bed';
import { botCredentials, runBot } from './bot.fixtures';
import type { PostbackAction } from './sendAndWait.chat.fixtures';
import { SECRET, chatHelpers, delivery, inChat, toReleaseTopic } from './sendAndWait.chat.fixtures';
import { PUSH, project, pushBody, sentMessage } from './sendAndWait.fixtures';

const sim = useSimulator();
const { trigger } = chatHelpers(sim);
const release = project.topics.release;
const users = SEED.users;
const QUESTION = 'Approve 120 EUR for the team lunch?';
const MINUTE = 60_000;

beforeAll(async () => {
	await TriggerBed.init();
});

let route: WaitingRoute | undefined;
let now = Date.now();
beforeEach(() => {
	now = Date.now();
	jest.spyOn(Date, 'now').mockImplementation(() => now);
});
afterEach(async () => {
	jest.restoreAllMocks();
	await route?.close();
	route = undefined;
});

const reminders = (values: IDataObject = {}) => ({ reminders: { values: { remindAfterAmount: 1, remindAfterUnit: 'minutes', maxReminders: 2, ...values } } });
const escalation = (values: IDataObject = {}) => ({ escalation: { values: { escalateAfterAmount: 1, escalateAfterUnit: 'hours', backupApprovers: 'carol', postIn: 'sameChat', ...values } } });

/** n8n with an active Workplace Trigger: the route serves its URL and its waiting executions; its registration wrote where it listens. */
async function activeTrigger(extra: IDataObject = {}, restartOf?: TriggerBed): Promise<TriggerBed> {
	route ??= await startWaitingRoute([]);
	const bed = trigger(route, extra, restartOf);
	expect(await bed.registerWebhook('activate')).toBeUndefined();
	route.serveTrigger(bed);
	return bed;
}

/** Asks in the release topic (alice and bob allowed) with these options; the run, the question's push and its buttons. */
async function ask(bed: TriggerBed, options: IDataObject, extra: IDataObject = {}, webhookSecret = SECRET, mode: 'webhook' | 'manual' = 'webhook') {
	const parameters = inChat({ ...toReleaseTopic, allowedApprovers: 'alice, bob', options, ...extra }) as INodeParameters;
	// A production execution (the trigger started it), which loads the workflow's static data.
	const run = await runBot(sim, parameters, {
		credentials: { ...botCredentials(sim), workplaceWebhookApi: { secret: webhookSecret } },
		staticData: bed.storedStaticData,
		mode,
	});
	const pushes = run.requests.filter((r) => r.path === PUSH);
	if (!run.error) route!.addRun(run);
	const actions = pushes.length ? (((pushBody(sim, pushes[0]).messages as IDataObject[])[0].template as IDataObject).actions as PostbackAction[]) : [];
	return { run, pushes, actions };
}

/** What the bot posted since the log was cleared: pushes the platform took (a push refused 401 is sent again with a new token). */
const posted = () => sim.log.find({ method: 'POST', path: PUSH }).filter((r) => r.status === 200).map((r) => r.body);

/** A tap on a button, at a time, as the platform signs it; delivered to the trigger. */
async function tap(bed: TriggerBed, data: string, who: 'alice' | 'bob' | 'carol', at: number) {
	const person = users[who];
	const event = postbackEvent({ data, userId: person._id, username: person.username, groupId: project._id, topicId: release._id, timestamp: new Date(at).toISOString() });
	const { raw, signature } = delivery(event);
	sim.log.clear();
	const outcome = await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signature } });
	return { event, outcome, pushes: posted() };
}

/** One tick of the trigger's clock at `at`, signed as the clock signs it; what the bot pushed meanwhile. */
async function tick(bed: TriggerBed, at: number, secret = SECRET) {
	now = at;
	const raw = ownMessageBody({ kind: 'tick', at: new Date(at).toISOString() });
	sim.log.clear();
	const before = route!.requests.length;
	const outcome = await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody(secret, raw) } });
	return { outcome, pushes: posted(), forwarded: route!.requests.slice(before).filter((r) => r.path.startsWith('/webhook-waiting/')) };
}

const kept = (bed: TriggerBed) => bed.questionsStored('reminders');
const text = (gid: string, tid: string, t: string) => ({ gid, tid, messages: [{ type: 'text', text: t }] });

describe('Remind Approvers', () => {
	it('registers the question with the trigger before sending; a tick after the delay posts one reminder naming who has not answered; the last one ends the clock', async () => {
		const bed = await activeTrigger();
		const clock = (bed.storedStaticData?.global as IDataObject)[CLOCKS_FIELD] as IDataObject;
		const address = Object.values(clock)[0] as { url: string };
		expect(address.url).toBe(`${new URL(route!.url).origin}/webhook/${Object.keys(clock)[0]}/webhook`);

		// The nonce keeps the question's time to the second.
		const askedAt = Math.floor(now / 1000) * 1000;
		const { run, pushes, actions } = await ask(bed, reminders(), { approvalsRequired: 2 });
		expect(run.error).toBeUndefined();
		expect(pushes).toHaveLength(1);
		// The registration: signed with the webhook secret, posted to the trigger's URL.
		const registration = route!.requests.find((r) => r.path.startsWith('/webhook/'))!;
		const body = registration.body as { workplaceApprovals: { kind: string; entry: { url: string; step: number; nextAt: string } } };
		const registered = body.workplaceApprovals.entry;
		expect(body.workplaceApprovals.kind).toBe('register');
		expect(registration.method).toBe('POST');
		expect(registration.headers['x-service-signature']).toBe(signBody(SECRET, JSON.stringify(body)));
		expect(registered).toEqual({ url: expect.stringMatching(/\/webhook-waiting\/\d+\/[^?]+\?nonce=[A-Za-z0-9_-]+&via=clock&signature=[0-9a-f]{64}$/), step: 0, nextAt: new Date(askedAt + MINUTE).toISOString() });
		const [request] = Object.keys(kept(bed));
		expect(kept(bed)[request]).toEqual({ url: registered.url, step: 0, nextAt: new Date(askedAt + MINUTE).toISOString() });

		const byAlice = await tap(bed, actions[0].data, 'alice', askedAt + 5_000);
		expect(byAlice.pushes).toEqual([text(project._id, release._id, 'alice approved: 1 of 2 approvals so far')]);

		const early = await tick(bed, askedAt + 30_000);
		expect([early.outcome.status, early.outcome.body, early.pushes, early.forwarded]).toEqual([
			200,
			{ received: 0, message: 'Clock of reminders: 0 of 0 due handed on, 0 idle asked', waiting: 1, nextDueAt: askedAt + MINUTE, answeredBy: expect.stringMatching(/^[0-9a-f]{12}$/) },
			[],
			[],
		]);

		const first = await tick(bed, askedAt + MINUTE + 1_000);
		expect(first.pushes).toEqual([text(project._id, release._id, `Reminder: "${QUESTION}" is still waiting for bob.`)]);
		expect(first.forwarded).toHaveLength(1);
		const forwarded = first.forwarded[0];
		expect(`${forwarded.path}?${new URLSearchParams(forwarded.query).toString()}`).toBe(registered.url.replace(/^https?:\/\/[^/]+/, ''));
		const payload = (forwarded.body as { payload: string; signature: string }).payload;
		expect((forwarded.body as IDataObject).signature).toBe(signBody(SECRET, payload));
		expect(JSON.parse(payload)).toEqual({ step: 0, ballots: [{ delivery: Buffer.from(delivery(byAlice.event).raw).toString('base64'), signature: delivery(byAlice.event).signature }] });
		expect(kept(bed)[request]).toEqual({ url: registered.url, step: 1, nextAt: new Date(askedAt + 2 * MINUTE).toISOString() });

		const again = await tick(bed, askedAt + MINUTE + 2_000);
		expect([again.pushes, again.forwarded]).toEqual([[], []]);

		const second = await tick(bed, askedAt + 2 * MINUTE + 1_000);
		expect(second.pushes).toEqual([text(project._id, release._id, `Reminder: "${QUESTION}" is still waiting for bob.`)]);
		// Nothing left to do: kept a while as done, so that a late copy of an earlier step cannot bring it back.
		expect(kept(bed)[request]).toEqual({ url: registered.url, step: 2, nextAt: null, doneAt: askedAt + 2 * MINUTE + 1_000 });
		const stale = ownMessageBody({ kind: 'keep', request, entry: { url: registered.url, step: 1, nextAt: new Date(askedAt + 2 * MINUTE).toISOString() } });
		await bed.deliver({ rawBody: stale, headers: { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, stale) } });
		expect(kept(bed)[request]).toEqual(expect.objectContaining({ step: 2, nextAt: null }));
		const after = await tick(bed, askedAt + 3 * MINUTE);
		expect([after.pushes, after.forwarded]).toEqual([[], []]);
		expect(route!.resumed).toEqual([]);
	});

	it('a hand-over n8n did not take is tried again; one whose answer was lost is not posted again', async () => {
		const bed = await activeTrigger();
		// The nonce keeps the question's time to the second.
		const askedAt = Math.floor(now / 1000) * 1000;
		await ask(bed, reminders({ maxReminders: 3 }), { approvalsRequired: 1 });
		const reminder = text(project._id, release._id, `Reminder: "${QUESTION}" is still waiting for alice, bob.`);
		// n8n answers 503 before any node runs (starting up): nothing was posted, the next tick tries again.
		route!.unavailableNext();
		const refused = await tick(bed, askedAt + MINUTE + 1_000);
		expect([refused.pushes, Object.values(kept(bed))]).toEqual([[], [expect.objectContaining({ step: 0, nextAt: new Date(askedAt + MINUTE).toISOString() })]]);
		expect(bed.logs.map((l) => l.message)).toContainEqual(expect.stringMatching(/could not be handed to it \(n8n answered 503\); the next ticks try again, for an hour at most\.$/));
		// The node posts, but its answer is lost on the way back (a proxy's 504).
		route!.loseNextAnswer();
		const lost = await tick(bed, askedAt + MINUTE + 2_000);
		expect(lost.pushes).toEqual([reminder]);
		expect(Object.values(kept(bed))).toEqual([expect.objectContaining({ step: 0, uncertain: true })]);
		expect(bed.logs.map((l) => l.message)).toContainEqual(expect.stringMatching(/may have been posted, its answer was lost \(n8n answered 504\); what was due is skipped/));
		const skipped = await tick(bed, askedAt + MINUTE + 31_000);
		expect(skipped.pushes).toEqual([]);
		expect(JSON.parse((skipped.forwarded[0].body as { payload: string }).payload)).toEqual({ step: 0, ballots: [], skipDue: true });
		expect(Object.values(kept(bed))).toEqual([expect.objectContaining({ step: 1, nextAt: new Date(askedAt + 2 * MINUTE).toISOString() })]);
		const next = await tick(bed, askedAt + 2 * MINUTE + 1_000);
		expect(next.pushes).toEqual([reminder]);
	});

	it('after n8n was down past several reminders, one tick posts one reminder; a restart keeps the question', async () => {
		const before = await activeTrigger();
		// The nonce keeps the question's time to the second.
		const askedAt = Math.floor(now / 1000) * 1000;
		const { run } = await ask(before, reminders({ maxReminders: 3, reminderText: '{question}: still waiting for {pending}' }));
		expect(run.error).toBeUndefined();
		// A restart: nothing in memory, the stored static data remains.
		forgetProcessMemoryForTests();
		const after = await activeTrigger({}, before);
		const late = await tick(after, askedAt + 2 * MINUTE + 30_000);
		expect(late.pushes).toEqual([text(project._id, release._id, `${QUESTION}: still waiting for alice, bob`)]);
		expect(Object.values(kept(after))).toEqual([expect.objectContaining({ step: 2, nextAt: new Date(askedAt + 3 * MINUTE).toISOString() })]);
	});

	it('is refused before anything is sent: no active trigger, a bad amount, a trigger that refuses the question', async () => {
		route = await startWaitingRoute([]);
		const inactive = trigger(route);
		const noClock = await ask(inactive, reminders());
		expect(noClock.run.error?.message).toMatch(/^Remind Approvers and Escalate need an active Workplace Trigger in this workflow/);
		expect([noClock.pushes, route.requests.filter((r) => r.method !== 'OPTIONS')]).toEqual([[], []]);
		// A manual run from the editor of n8n 1.x has no static data: the question goes out, with a warning.
		const manual = await ask(inactive, reminders(), {}, SECRET, 'manual');
		expect(manual.run.error).toBeUndefined();
		expect(manual.pushes).toHaveLength(1);
		expect(manual.run.runData['Workplace Bot'][0].hints).toEqual([expect.objectContaining({ type: 'warning', message: expect.stringMatching(/^Reminders and escalation are not sent in this manual run/) })]);
		expect(route.requests.filter((r) => r.method !== 'OPTIONS')).toEqual([]);

		const bed = await activeTrigger();
		const zero = await ask(bed, reminders({ remindAfterAmount: 0 }));
		expect(zero.run.error?.message).toContain('Options > Remind Approvers > Amount');
		expect(zero.run.error?.message).toContain('must be a number above 0');
		const tooMany = await ask(bed, reminders({ maxReminders: 11 }));
		expect(tooMany.run.error?.message).toContain('Options > Remind Approvers > Reminders at Most');
		const noBackups = await ask(bed, escalation({ backupApprovers: '' }));
		expect(noBackups.run.error?.message).toContain('Options > Escalate > Backup Approvers');
		// Only the trigger's check of the waiting route at activation (OPTIONS) reached n8n.
		const notProbes = () => route!.requests.filter((r) => r.method !== 'OPTIONS');
		expect(notProbes()).toEqual([]);

		const wrongSecret = await ask(bed, reminders(), {}, 'another secret');
		expect(wrongSecret.run.error?.message).toMatch(/^The Workplace Trigger's clock refused the reminders \(HTTP 401\)\. Nothing was sent\./);
		expect(wrongSecret.pushes).toEqual([]);
		expect(notProbes().map((r) => [r.method, r.path.replace(/[^/]+\/webhook$/, '…/webhook')])).toEqual([['POST', '/webhook/…/webhook']]);
	});

	it('a reminder long overdue (no tick came) is logged once as a fallback: n8n does not run the clock', async () => {
		const bed = await activeTrigger();
		// The nonce keeps the question's time to the second.
		const askedAt = Math.floor(now / 1000) * 1000;
		await ask(bed, reminders());
		now = askedAt + 25 * MINUTE;
		const { raw, signature } = delivery(postbackEvent({ data: 'not an answer', userId: users.bob._id, username: 'bob' }));
		for (let i = 0; i < 2; i++) await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signature } });
		const warnings = bed.logs.filter((line) => line.message.includes('overdue'));
		expect(warnings).toEqual([
			expect.objectContaining({
				level: 'warn',
				message: expect.stringMatching(/^Workplace Trigger "Workplace Trigger" of workflow .*: a reminder of an in-chat approval is 24 minutes overdue: n8n does not run this trigger's clock \(trigger\(\)\), or its ticks do not reach the waiting executions .* \(a fallback of n8n-nodes-workplace, logged once per n8n process\)$/),
			}),
		]);
	});

	it('a decided question is done: no reminder after the answer', async () => {
		const bed = await activeTrigger();
		// The nonce keeps the question's time to the second.
		const askedAt = Math.floor(now / 1000) * 1000;
		const { actions } = await ask(bed, reminders(), { approvalsRequired: 1 });
		const byBob = await tap(bed, actions[0].data, 'bob', askedAt + 5_000);
		expect(byBob.outcome.body).toEqual({ received: 0, message: 'In-chat answers handed to their waiting executions (resumed); no run started' });
		expect(Object.values(kept(bed))).toEqual([{ url: expect.any(String), step: 0, nextAt: null, doneAt: expect.any(Number) }]);
		const later = await tick(bed, askedAt + MINUTE + 1_000);
		expect([later.pushes, later.forwarded]).toEqual([[], []]);
	});

	it('a forged tick reaches nothing: the trigger refuses a wrong signature, the waiting node a payload not signed with the secret', async () => {
		const bed = await activeTrigger();
		// The nonce keeps the question's time to the second.
		const askedAt = Math.floor(now / 1000) * 1000;
		await ask(bed, reminders());
		const forged = await tick(bed, askedAt + MINUTE + 1_000, 'not the secret');
		expect([forged.outcome.status, forged.pushes, forged.forwarded]).toEqual([401, [], []]);
		const [entry] = Object.values(kept(bed)) as Array<{ url: string }>;
		const url = new URL(entry.url);
		const direct = await fetch(`${new URL(route!.url).origin}${url.pathname}${url.search}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ payload: JSON.stringify({ step: 0, ballots: [] }), signature: signBody('not the secret', 'x') }),
		});
		expect(direct.status).toBe(401);
		expect(await direct.json()).toEqual({ outcome: 'invalid', message: 'Expected {payload, signature} signed with the webhook secret', reply: '' });
		expect(sim.log.find({ method: 'POST', path: PUSH })).toEqual([]);
	});
});

describe('Escalate', () => {
	it('posts the question again in another group with buttons of its own; a backup approver counts on those only', async () => {
		const bed = await activeTrigger();
		// The nonce keeps the question's time to the second.
		const askedAt = Math.floor(now / 1000) * 1000;
		const { run, pushes, actions } = await ask(bed, escalation({ postIn: 'group', groupId: project._id, topicId: '' }), { approvalsRequired: 1 });
		const question = (pushBody(sim, pushes[0]).messages as IDataObject[])[0];

		const early = await tap(bed, actions[0].data, 'carol', askedAt + 10 * MINUTE);
		expect(early.outcome.body).toEqual({ received: 0, message: 'In-chat answers handed to their waiting executions (notAllowed); no run started' });
		expect(early.pushes).toEqual([text(project._id, release._id, 'carol may not answer this request.')]);

		const escalated = await tick(bed, askedAt + 60 * MINUTE + 1_000);
		const [again] = (((escalated.pushes[0] as IDataObject | undefined)?.messages ?? []) as IDataObject[]).slice(1);
		const againActions = ((again?.template as IDataObject | undefined)?.actions ?? []) as Array<{ data: string; label: string }>;
		// The same question with the escalation's answer codes (A, D): same execution, node and nonce.
		const escalationToken = (data: string) => ({ ...decodeAnswerToken(data)!, signature: '' });
		expect(againActions.map((action) => [action.label, escalationToken(action.data)])).toEqual(
			actions.map((action, i) => [action.label, { ...escalationToken(action.data), answer: i === 0 ? 'A' : 'D' }]),
		);
		const escalatedQuestion = { ...question, template: { ...(question.template as IDataObject), actions: againActions } };
		expect(escalated.pushes).toEqual([
			{
				gid: project._id,
				tid: '',
				messages: [{ type: 'text', text: `Escalated: "${QUESTION}" still needs an answer. carol, your answer counts from now on.` }, escalatedQuestion],
			},
		]);
		expect(Object.values(kept(bed))).toEqual([expect.objectContaining({ step: 1, nextAt: null })]);

		// The question's first message still does not take carol's answer (she was already told why).
		const onFirst = await tap(bed, actions[0].data, 'carol', askedAt + 61 * MINUTE);
		expect([onFirst.outcome.body, onFirst.pushes]).toEqual([{ received: 0, message: 'In-chat answers handed to their waiting executions (notAllowed); no run started' }, []]);
		const byCarol = await tap(bed, againActions[0].data, 'carol', askedAt + 62 * MINUTE);
		expect(byCarol.outcome.body).toEqual({ received: 0, message: 'In-chat answers handed to their waiting executions (resumed); no run started' });
		const data = route!.outcomes.at(-1)!.items[0].json.data as IDataObject;
		expect(data).toEqual({ approved: true, responder: { id: users.carol._id, username: 'carol', source: 'chat' }, respondedAt: byCarol.event.timestamp, ...sentMessage(run) });
		expect(Object.values(kept(bed))).toEqual([expect.objectContaining({ step: 1, nextAt: null })]);
	});
});
