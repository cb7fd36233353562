/**
 * The moves of a question (nodes/WorkplaceTrigger/approvals/questionLife.ts) on the trigger's two
 * records of it, in a static data object as n8n hands it to a request. The interleavings of
 * requests and processes: approvals-model.test.ts.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { Ballot } from '../../nodes/shared/approvals/tapProtocol';
import { forgetProcessMemoryForTests } from '../../nodes/shared/processMemory';
import { eventOf, learned, stateOf } from '../../nodes/WorkplaceTrigger/approvals/questionLife';
import { REMINDERS_FIELD } from '../../nodes/WorkplaceTrigger/approvals/remindersStore';
import { BALLOTS_FIELD } from '../../nodes/WorkplaceTrigger/approvals/votesStore';

const REQUEST = '7:3c1f7d52-9a4e-4b8e-9d0a-5b7e2f1c0a11:abcdef';
const ballot = (who: string): Ballot => ({ delivery: Buffer.from(JSON.stringify({ events: [{ who }] })).toString('base64'), signature: 'aa' });
const logs: string[] = [];
const ctx = {
	getWorkflow: () => ({ id: 'wf', name: 'Approvals' }),
	getNode: () => ({ name: 'Trigger' }),
	logger: { warn: (m: string) => logs.push(m), info: () => {}, error: () => {} },
} as unknown as IWebhookFunctions;

function question(reminder = true) {
	const staticData: IDataObject = reminder ? { [REMINDERS_FIELD]: { [REQUEST]: { url: 'https://n8n/webhook-waiting/7/x?nonce=abcdef&via=clock&signature=s', step: 0, nextAt: '2026-11-28T10:00:00.000Z' } } } : {};
	return { store: { scope: 'wf:trigger', staticData }, staticData };
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
		expect((staticData[BALLOTS_FIELD] as IDataObject)[REQUEST]).toEqual({ at: expect.any(Number), ballots: [], done: expect.any(Number) });
		expect((staticData[REMINDERS_FIELD] as IDataObject)[REQUEST]).toEqual(expect.objectContaining({ nextAt: null, doneAt: expect.any(Number) }));
		expect(stateOf(store, REQUEST)).toBe('ended');
		expect(learned(ctx, store, REQUEST, 'voteCounted', [ballot('carol')])).toBeUndefined();
		expect((staticData[BALLOTS_FIELD] as IDataObject)[REQUEST]).toEqual(expect.objectContaining({ ballots: [] }));
	});

	it('an outcome that tells nothing of the question changes nothing', () => {
		const { store, staticData } = question(false);
		expect(learned(ctx, store, REQUEST, eventOf('failed'))).toBeUndefined();
		expect(staticData).toEqual({});
	});
});
