/**
 * The moves of a question (nodes/WorkplaceTrigger/approvals/questionLife.ts) on the trigger's two
 * records of it, in a static data object as n8n hands it to a request. The interleavings of
 * requests and processes: approvals-model.test.ts.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { Ballot } from '../../nodes/shared/approvals/tapProtocol';
import { forgetProcessMemoryForTests } from '../../nodes/shared/processMemory';
import { eventOf, learned, stateOf } from '../../nodes/WorkplaceTrigger/approvals/questionLife';
import { MAX_CLOCKS, MAX_TRIGGERS_HELD, clockDueAt, clockMayBeForgotten, remindersFieldOf, setClockDue, votesFieldOf } from '../../nodes/WorkplaceTrigger/approvals/questionStore';

const REQUEST = '7:3c1f7d52-9a4e-4b8e-9d0a-5b7e2f1c0a11:abcdef';
const ballot = (who: string): Ballot => ({ delivery: Buffer.from(JSON.stringify({ events: [{ who }] })).toString('base64'), signature: 'aa' });
const logs: string[] = [];
const ctx = {
	getWorkflow: () => ({ id: 'wf', name: 'Approvals' }),
	getNode: () => ({ name: 'Trigger' }),
	logger: { warn: (m: string) => logs.push(m), info: () => {}, error: () => {} },
} as unknown as IWebhookFunctions;

const BALLOTS_FIELD = votesFieldOf('hook-1');
const REMINDERS_FIELD = remindersFieldOf('hook-1');

function question(reminder = true) {
	const staticData: IDataObject = reminder ? { [REMINDERS_FIELD]: { [REQUEST]: { url: 'https://n8n/webhook-waiting/7/x?nonce=abcdef&via=clock&signature=s', step: 0, nextAt: '2026-11-28T10:00:00.000Z' } } } : {};
	return { store: { scope: 'wf:trigger', staticData, key: 'hook-1' }, staticData };
}

beforeEach(() => {
	forgetProcessMemoryForTests();
	logs.length = 0;
});

describe('the life of an in-chat question', () => {
	it.each([
		['counted', 'voteCounted'],
		['resumed', 'decided'],
		['alreadyAnswered', 'decided'],
		['notWaiting', 'ended'],
		['alreadyVoted', undefined],
		['notAllowed', undefined],
		['failed', undefined],
		['refused', undefined],
	])('the outcome %s is the event %s', (outcome, event) => {
		expect(eventOf(outcome)).toBe(event);
	});

	it('asked -> counting keeps the votes; a second vote keeps both', () => {
		const { store, staticData } = question();
		expect(stateOf(store, REQUEST)).toBe('asked');
		expect(learned(ctx, store, REQUEST, 'voteCounted', [ballot('alice')])).toBe('counting');
		expect(learned(ctx, store, REQUEST, 'voteCounted', [ballot('alice'), ballot('bob')])).toBe('counting');
		expect(stateOf(store, REQUEST)).toBe('counting');
		expect((staticData[BALLOTS_FIELD] as IDataObject)[REQUEST]).toEqual({ at: expect.any(Number), ballots: [ballot('alice'), ballot('bob')] });
	});

	it.each([['decided'], ['ended'], ['givenUp']] as const)('counting -> %s: the votes and the clock entry are done, and nothing moves it again', (event) => {
		const { store, staticData } = question();
		learned(ctx, store, REQUEST, 'voteCounted', [ballot('alice')]);
		expect(learned(ctx, store, REQUEST, event)).toBe(event === 'decided' ? 'decided' : 'ended');
		const ended = event === 'decided' ? {} : { ended: true };
		expect((staticData[BALLOTS_FIELD] as IDataObject)[REQUEST]).toEqual({ at: expect.any(Number), ballots: [], done: expect.any(Number), ...ended });
		expect((staticData[REMINDERS_FIELD] as IDataObject)[REQUEST]).toEqual(expect.objectContaining({ nextAt: null, doneAt: expect.any(Number) }));
		expect(stateOf(store, REQUEST)).toBe(event === 'decided' ? 'decided' : 'ended');
		expect(learned(ctx, store, REQUEST, 'voteCounted', [ballot('carol')])).toBeUndefined();
		expect((staticData[BALLOTS_FIELD] as IDataObject)[REQUEST]).toEqual(expect.objectContaining({ ballots: [] }));
	});

	it('an outcome that tells nothing of the question changes nothing', () => {
		const { store, staticData } = question(false);
		expect(learned(ctx, store, REQUEST, eventOf('failed'))).toBeUndefined();
		expect(staticData).toEqual({});
	});

	it('more triggers counting votes in one process than it holds: said once, the oldest rests on its stored copy', () => {
		for (let i = 0; i <= MAX_TRIGGERS_HELD + 1; i++) learned(ctx, { scope: `wf:t${i}`, staticData: {}, key: `hook-${i}` }, REQUEST, 'voteCounted', [ballot('alice')]);
		expect(logs.filter((line) => line.includes(`counted votes of more than ${MAX_TRIGGERS_HELD} triggers`))).toHaveLength(1);
	});
});

describe("the clock's next tick per trigger, in one process", () => {
	it('beyond MAX_CLOCKS triggers the oldest is forgotten, said once; its clock then asks every minute', () => {
		for (let i = 0; i <= MAX_CLOCKS + 1; i++) setClockDue(ctx, `wf:c${i}`, 1_000 + i);
		expect(logs.filter((line) => line.includes(`clocks of more than ${MAX_CLOCKS} triggers`))).toHaveLength(1);
		expect(clockDueAt('wf:c0')).toBeUndefined();
		expect(clockMayBeForgotten('wf:c0')).toBe(true);
		expect(clockMayBeForgotten(`wf:c${MAX_CLOCKS + 1}`)).toBe(false);
	});

	it('a trigger with nothing due is not taken for forgotten while the bound was never reached', () => {
		setClockDue(ctx, 'wf:idle', undefined);
		expect(clockMayBeForgotten('wf:idle')).toBe(false);
	});
});
