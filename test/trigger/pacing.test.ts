/**
 * Workplace Trigger in a process where runs do not start (n8n's queue mode: webhook processes
 * hand runs to workers). Its own file: where runs start is learned once per process.
 */
import { messageEvent, signBody } from '../../simulator';
import { TriggerBed } from './trigger-bed';

const SECRET = 'pacing-test-secret';

function delivery(text: string) {
	const raw = JSON.stringify({ events: [messageEvent({ text })] });
	return { rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, raw, 'hex') } };
}

beforeAll(async () => {
	await TriggerBed.init();
});

test('queue mode: answers wait for a run only until the first wait runs out with no run seen here, then go at once', async () => {
	const bed = new TriggerBed({
		parameters: { verification: 'secret', events: ['message'] },
		credentials: { workplaceWebhookApi: { secret: SECRET } },
		runs: false,
	});
	const first = await bed.deliver(delivery('first'));
	expect([first.status, first.body, first.runStarted, first.answeredAtReturn]).toEqual([200, { received: 1 }, true, false]);

	const later = await Promise.all(['second', 'third'].map(async (text) => await bed.deliver(delivery(text))));
	expect(later.map((o) => [o.status, o.body, o.runStarted, o.answeredAtReturn])).toEqual([
		[200, { received: 1 }, true, true],
		[200, { received: 1 }, true, true],
	]);
});

test('a run that starts in this process switches it back to waiting for runs', async () => {
	const here = new TriggerBed({
		parameters: { verification: 'secret', events: ['message'] },
		credentials: { workplaceWebhookApi: { secret: SECRET } },
	});
	// Answered at once (no run was seen here so far), then its run starts here.
	const outcome = await here.deliver(delivery('a run starts here'));
	expect([outcome.status, outcome.body, outcome.answeredAtReturn]).toEqual([200, { received: 1 }, true]);
	expect(outcome.run?.data.resultData.runData['Workplace Trigger']).toHaveLength(1);
	const next = await here.deliver(delivery('and the next one waits for its run too'));
	expect([next.status, next.answeredAtReturn]).toEqual([200, false]);
});
