/**
 * In-chat approvals against a model of n8n's way of saving state (n8n-model.ts): generated
 * schedules (schedules.ts) of two or three n8n processes, taps (also several in one delivery),
 * duplicate deliveries, slow deliveries holding old copies of the static data, restarts, Stop and
 * wait times running out, on n8n 1 and n8n 2 semantics. Each schedule is reproduced by its seed:
 * APPROVALS_MODEL_SEED=<seed> runs that one alone, APPROVALS_MODEL_SCHEDULES=<n> runs more.
 *
 * Invariants, per question:
 * - resumed at most once (n8n 1: apart from deciding hand-offs n8n itself took at the same moment,
 *   counted and printed: a node cannot see another process's resume there);
 * - a resume is decided by the counted answers it lists: allowed people, each once, enough of them;
 * - liveness: when the accepted taps decide and nothing ended the wait, it resumes: no vote is lost;
 * - nothing of an ended question stays in the trigger's static data after the first delivery that
 *   follows the end by more than the stated bound.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { CHECK_IDLE_QUESTION_AFTER_MS, RECHECK_DELAYS_MS } from '../../nodes/shared/approvals/timing';
import { forgetProcessMemoryForTests } from '../../nodes/shared/processMemory';
import { sendAndWaitWebhook } from '../../nodes/WorkplaceBot/actions/message/sendAndWait/resumeWebhook';
import { startClock } from '../../nodes/WorkplaceTrigger/approvals/reminderClock';
import { receiveDelivery } from '../../nodes/WorkplaceTrigger/receiveDelivery';
import type { Delivery, Execution } from './n8n-model';
import { N8nModel } from './n8n-model';
import type { Plan, QuestionPlan } from './schedules';
import { GROUP, PEOPLE, TOPIC, deliveryOf, parametersOf, pictureEvent, planOf, tapEvent } from './schedules';
import { Rng } from './virtual-world';

let mockModel: N8nModel | undefined;

// The platform's side of the bot calls: posts are stored, pictures come after their planned time.
jest.mock('../../nodes/shared/transport/botApi', () => {
	const actual = jest.requireActual<IDataObject>('../../nodes/shared/transport/botApi');
	return {
		...actual,
		botRequest: async (_ctx: unknown, request: { path: string; body?: IDataObject }) => {
			await new Promise((resolve) => setTimeout(resolve, 30));
			if (request.path === '/bot/v2/message/push') mockModel?.botPost(request.body ?? {});
			return { body: [{ id: 'sent' }] };
		},
		downloadPicture: async (_ctx: unknown, pictureId: string, _size: string, _names: unknown, _item: number, policy?: { timeoutSeconds?: number }) => {
			const wantMs = mockModel?.pictureLatency.get(pictureId) ?? 50;
			const limitMs = (policy?.timeoutSeconds ?? 60) * 1000;
			await new Promise((resolve) => setTimeout(resolve, Math.min(wantMs, limitMs)));
			if (wantMs > limitMs) throw Object.assign(new Error('timeout'), { httpCode: 'ETIMEDOUT' });
			return { data: '', mimeType: 'image/png', fileName: `${pictureId}.png`, fileExtension: 'png' };
		},
	};
});

const code = {
	receiveDelivery: receiveDelivery as (this: IWebhookFunctions) => ReturnType<typeof receiveDelivery>,
	sendAndWaitWebhook,
	startClock,
};

/**
 * How long after its end an ended question may leave its votes behind: the clock asks a question
 * whose votes changed nothing for 10 minutes whether it still waits (CHECK_IDLE_QUESTION_AFTER_MS),
 * at its next tick.
 */
const CLEANUP_BOUND_MS = CHECK_IDLE_QUESTION_AFTER_MS + 60_000;

/** The trigger's clock ticks this long after the schedule starts: past the last tap, the last stale save and the cleanup bound. */
const CLOCK_RUNS_MS = 40 * 60_000;

/** The longest a schedule may run in virtual time before it is taken for one that never settles. */
const RUN_LIMIT_MS = 3 * 3600_000;

interface Vote {
	who: string;
	approve: boolean;
	at: number;
}

/** The rule the node applies, written again from the docs: the first vote per allowed person in time order. */
function decide(q: QuestionPlan, votes: Vote[]): { approved: boolean; by: string } | undefined {
	const seen = new Set<string>();
	let approvals = 0;
	let declines = 0;
	for (const vote of [...votes].sort((a, b) => a.at - b.at)) {
		if (seen.has(vote.who) || !q.approvers.includes(vote.who)) continue;
		seen.add(vote.who);
		if (vote.approve) approvals++;
		else declines++;
		if (vote.approve && approvals >= q.required) return { approved: true, by: vote.who };
		if (!vote.approve && declines >= (q.declineRule === 'oneDeclines' ? 1 : q.required)) return { approved: false, by: vote.who };
	}
	return undefined;
}

function votesIn(deliveries: Delivery[], q: QuestionPlan, accepted: boolean): Vote[] {
	const votes: Vote[] = [];
	for (const delivery of deliveries) {
		if (accepted && delivery.acceptedAt === undefined) continue;
		for (const event of delivery.events) {
			const data = (event.postback as IDataObject | undefined)?.data;
			if (data !== q.tokens.a && data !== q.tokens.d) continue;
			const source = event.source as IDataObject;
			const who = Object.keys(PEOPLE).find((name) => PEOPLE[name].userId === source.userId)!;
			votes.push({ who, approve: data === q.tokens.a, at: Date.parse(String(event.timestamp)) });
		}
	}
	return votes;
}

function overlapping(execution: Execution): boolean {
	const [a, b] = execution.resumes;
	return a.loadedAt <= b.at && b.loadedAt <= a.at;
}

/** What went wrong in a schedule, and what the model saw (n8n 1's simultaneous resumes). */
interface Verdict {
	violations: string[];
	simultaneous: number;
}

function checkResumes(plan: Plan, model: N8nModel, q: QuestionPlan, verdict: Verdict): void {
	const execution = model.executions.get(q.executionId)!;
	const tapped = votesIn(model.deliveries, q, false);
	if (execution.resumes.length > 1) {
		if (plan.major === 1 && execution.resumes.length === 2 && overlapping(execution)) verdict.simultaneous++;
		else verdict.violations.push(`execution ${q.executionId} resumed ${execution.resumes.length} times`);
	}
	for (const { data } of execution.resumes) {
		const responders = (data.responders as IDataObject[] | undefined) ?? [];
		const names = responders.map((r) => String(r.username));
		if (new Set(names).size !== names.length) verdict.violations.push(`execution ${q.executionId}: a person counted twice (${names.join(', ')})`);
		for (const r of responders) {
			if (!q.approvers.includes(String(r.username))) verdict.violations.push(`execution ${q.executionId}: ${String(r.username)} counted, not an allowed approver`);
			if (!tapped.some((v) => v.who === r.username && v.approve === r.approved)) verdict.violations.push(`execution ${q.executionId}: ${String(r.username)}'s vote (${String(r.approved)}) was never tapped`);
		}
		const approvals = responders.filter((r) => r.approved === true).length;
		const declines = responders.length - approvals;
		const enough = data.approved === true ? approvals >= q.required : declines >= (q.declineRule === 'oneDeclines' ? 1 : q.required);
		if (!enough) verdict.violations.push(`execution ${q.executionId} resumed ${data.approved === true ? 'approved' : 'declined'} with ${approvals} approvals and ${declines} declines of ${q.required} required`);
	}
	const expected = decide(q, votesIn(model.deliveries, q, true));
	if (!q.endsAt && expected && execution.resumes.length === 0) {
		const votes = votesIn(model.deliveries, q, true).map((v) => `${v.who}:${v.approve ? 'a' : 'd'}`);
		verdict.violations.push(`execution ${q.executionId} never resumed although the accepted taps decide (${votes.join(' ')}; ${q.required} required, ${q.declineRule})`);
	}
}

function checkCleanup(model: N8nModel, plan: Plan, verdict: Verdict): void {
	const ballots = model.storedVotes();
	for (const q of plan.questions) {
		const execution = model.executions.get(q.executionId)!;
		if (execution.status === 'waiting') continue;
		// A done entry (no votes) may stay until the next request after DONE_KEPT_MS.
		const entry = ballots[`${q.executionId}:${q.nodeId}:${q.nonce}`] as IDataObject | undefined;
		if (entry && entry.done === undefined) verdict.violations.push(`execution ${q.executionId} ended (${execution.status}) but its votes are still stored`);
	}
}

/**
 * An idle trigger on one n8n process posts nothing to itself: once every question ended (or was
 * left waiting without votes to count) and the cleanup bound passed, no tick is posted.
 */
function checkIdleClock(model: N8nModel, plan: Plan, start: number, verdict: Verdict): void {
	if (plan.processes !== 1) return;
	const counting = plan.questions.some((q) => model.executions.get(q.executionId)!.status === 'waiting' && votesIn(model.deliveries, q, true).some((v) => q.approvers.includes(v.who)));
	if (counting) return;
	const quietFrom = start + Math.max(0, ...plan.deliveries.map((d) => d.ms + (d.duplicateAfterMs ?? 0)), ...plan.restarts.map((r) => r.ms)) + RECHECK_DELAYS_MS[RECHECK_DELAYS_MS.length - 1] + CLEANUP_BOUND_MS;
	const late = model.ownPosts.filter((post) => post.at > quietFrom && post.body.includes('"tick"'));
	if (late.length) verdict.violations.push(`the idle trigger posted ${late.length} ticks to itself after ${new Date(quietFrom).toISOString()}`);
}

/** Plays one schedule in the model and checks the invariants. */
async function play(seed: number, shape = { restarts: true, ends: true }): Promise<Verdict & { plan: Plan }> {
	const rng = new Rng(seed);
	const plan = planOf(seed, rng, shape);
	forgetProcessMemoryForTests();
	const model = new N8nModel({ major: plan.major, processes: plan.processes, rng, code });
	mockModel = model;
	const start = Date.now();
	try {
		for (const q of plan.questions) {
			model.executions.set(q.executionId, {
				id: q.executionId,
				nodeId: q.nodeId,
				status: 'waiting',
				parameters: parametersOf(q),
				message: { messageId: `m-${q.executionId}`, groupId: GROUP, threadId: TOPIC },
				resumes: [],
			});
			if (q.endsAt) {
				const execution = model.executions.get(q.executionId)!;
				model.world.at(undefined, q.endsAt.ms, () => {
					if (execution.status !== 'waiting') return;
					execution.status = q.endsAt!.how === 'stop' ? 'canceled' : 'success';
					execution.endedAt = Date.now();
				});
			}
		}
		plan.pictureMs.forEach((ms, i) => model.pictureLatency.set(`p${i}`, ms));
		let picture = 0;
		for (const planned of plan.deliveries) {
			const events = planned.taps.map((i) => tapEvent(rng, plan.questions[plan.taps[i].question], plan.taps[i], start + plan.taps[i].ms));
			for (let n = 0; n < planned.pictures; n++) events.push(pictureEvent(rng, `p${picture++}`, start + planned.ms));
			const delivery = deliveryOf(events);
			model.deliveries.push(delivery);
			model.deliver(delivery, planned.ms);
			if (planned.duplicateAfterMs !== undefined) {
				const copy = { ...delivery, attempts: 0, answers: [] };
				model.deliveries.push(copy);
				model.deliver(copy, planned.ms + planned.duplicateAfterMs);
			}
		}
		for (const restart of plan.restarts) model.world.at(undefined, restart.ms, () => model.restart(model.world.processes[restart.process]));
		model.activate(CLOCK_RUNS_MS);
		if ((await model.world.run(start + RUN_LIMIT_MS)) === 'timeUp') return { plan, violations: ['the schedule did not settle within 3 hours of virtual time'], simultaneous: 0 };
		const verdict: Verdict = { violations: [], simultaneous: 0 };
		for (const q of plan.questions) checkResumes(plan, model, q, verdict);
		checkCleanup(model, plan, verdict);
		checkIdleClock(model, plan, start, verdict);
		return { plan, ...verdict };
	} finally {
		mockModel = undefined;
		model.close();
	}
}

const ONE_SEED = process.env.APPROVALS_MODEL_SEED;
const SCHEDULES = Number(process.env.APPROVALS_MODEL_SCHEDULES ?? 1000);
const FIRST_SEED = Number(process.env.APPROVALS_MODEL_FIRST_SEED ?? 1);

function describePlan(plan: Plan): string {
	const taps = plan.deliveries.map((d) => `[${d.taps.map((i) => `${plan.taps[i].who}${plan.taps[i].approve ? '+' : '-'}q${plan.taps[i].question}`).join(' ')}${d.pictures ? ' picture' : ''}]@${Math.round(d.ms / 1000)}s${d.duplicateAfterMs !== undefined ? '×2' : ''}`);
	return `seed ${plan.seed}: n8n ${plan.major}, ${plan.processes} process(es), ${plan.questions.map((q) => `q: ${q.required} of ${q.approvers.length} ${q.declineRule}${q.endsAt ? ` ${q.endsAt.how}@${Math.round(q.endsAt.ms / 1000)}s` : ''}`).join('; ')}; deliveries ${taps.join(' ')}${plan.restarts.map((r) => `; restart n8n-${r.process + 1}@${Math.round(r.ms / 1000)}s`).join('')}`;
}

describe('in-chat approvals in a model of n8n (generated schedules)', () => {
	it(`keeps every invariant over ${ONE_SEED ? `seed ${ONE_SEED}` : `${SCHEDULES} schedules from seed ${FIRST_SEED}`}`, async () => {
		const seeds = ONE_SEED ? [Number(ONE_SEED)] : Array.from({ length: SCHEDULES }, (_, i) => FIRST_SEED + i);
		const failures: string[] = [];
		const kinds = new Map<string, number[]>();
		let simultaneous = 0;
		for (const seed of seeds) {
			const verdict = await play(seed);
			simultaneous += verdict.simultaneous;
			if (verdict.violations.length) failures.push(`${describePlan(verdict.plan)}\n    ${verdict.violations.join('\n    ')}`);
			for (const kind of new Set(verdict.violations.map((v) => v.replace(/\(.*\)/g, '(…)').replace(/\d+/g, 'N')))) kinds.set(kind, [...(kinds.get(kind) ?? []), seed]);
		}
		const summary = [...kinds].map(([kind, failed]) => `\n  ${failed.length} × ${kind} (seeds ${failed.slice(0, 5).join(', ')}…)`).join('');
		console.log(`approvals model: ${seeds.length} schedules from seed ${seeds[0]}, ${failures.length} failing, ${simultaneous} simultaneous resumes taken by n8n 1${summary}`);
		expect(failures.slice(0, 10)).toEqual([]);
	});
});

describe('the clock of an idle trigger (no question waiting)', () => {
	/** Ticks the trigger posted to itself in the third hour after activation, with `processes` n8n processes. */
	async function ticksInThirdHour(processes: number, seed: number): Promise<{ firstHour: number; thirdHour: number }> {
		forgetProcessMemoryForTests();
		const model = new N8nModel({ major: 2, processes, rng: new Rng(seed), code });
		try {
			const start = Date.now();
			model.activate(3 * 3600_000);
			await model.world.run(start + 4 * 3600_000);
			const ticks = model.ownPosts.filter((post) => post.body.includes('"tick"'));
			return {
				firstHour: ticks.filter((post) => post.at < start + 3600_000).length,
				thirdHour: ticks.filter((post) => post.at >= start + 2 * 3600_000).length,
			};
		} finally {
			model.close();
		}
	}

	it('posts nothing on one n8n process after its first ten ticks', async () => {
		expect(await ticksInThirdHour(1, 7)).toEqual({ firstHour: 10, thirdHour: 0 });
	});

	it('whose URL cannot be reached tries every 30 s for an hour, then every 10 minutes, saying so twice', async () => {
		forgetProcessMemoryForTests();
		const model = new N8nModel({ major: 2, processes: 1, rng: new Rng(7), code });
		try {
			const start = Date.now();
			model.triggerDown = true;
			model.activate(3 * 3600_000);
			await model.world.run(start + 4 * 3600_000);
			const ticks = model.ownPosts.filter((post) => post.body.includes('"tick"'));
			const inHour = (hour: number) => ticks.filter((post) => post.at >= start + hour * 3600_000 && post.at < start + (hour + 1) * 3600_000).length;
			expect([inHour(0), inHour(2)]).toEqual([119, 6]);
			expect(model.log.filter((line) => /tick.* (did not reach|have not reached)/.test(line.message)).length).toBe(2);
		} finally {
			model.close();
		}
	});

	it('asks once a minute when other processes answer its ticks (queue mode: 60 an hour)', async () => {
		const { thirdHour } = await ticksInThirdHour(3, 7);
		expect(thirdHour).toBe(60);
	});
});
