import { SEED } from '../../simulator/seed';
import { CredentialStore, testCredential } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { botCredentials, runBot } from './bot.fixtures';

const sim = useSimulator({ latencyMs: 0 });

/** N users, so N different conversations. */
function users(count: number): string[] {
	return Array.from({ length: count }, (_, n) => sim.state.addUser({ username: `user${n}` })._id);
}

const sendText = { resource: 'directMessage', operation: 'sendText', userId: '={{ $json.uid }}', text: '={{ $json.text }}' };

describe('Workplace Bot: token reuse', () => {
	it('500 items to 500 users: one token request, 500 sends, each message delivered once', async () => {
		const uids = users(500);
		const { items, error, requests, tokenRequests } = await runBot(sim, sendText, {
			inputItems: uids.map((uid, n) => ({ json: { uid, text: `hello ${n}` } })),
		});
		expect(error).toBeUndefined();
		expect(tokenRequests).toHaveLength(1);
		expect(requests).toHaveLength(500);
		expect(requests.every((r) => r.status === 201)).toBe(true);
		expect(items).toHaveLength(500);
		expect(items.map((i) => (i.pairedItem as { item: number }).item)).toEqual(uids.map((_, n) => n));
		for (const [n, uid] of uids.entries()) {
			expect(sim.state.sentMessages({ uid }).map((m) => m.content)).toEqual([{ text: `hello ${n}` }]);
		}
	});

	it('reuses the saved token in the next execution, and renews it once after it expired', async () => {
		const store = new CredentialStore();
		const [uid] = users(1);
		const first = await runBot(sim, sendText, { credentialStore: store, inputItems: [{ json: { uid, text: 'one' } }] });
		expect(first.tokenRequests).toHaveLength(1);

		const second = await runBot(sim, sendText, { credentialStore: store, inputItems: [{ json: { uid, text: 'two' } }] });
		expect(second.tokenRequests).toHaveLength(0);
		expect(second.requests.map((r) => r.status)).toEqual([201]);

		sim.expireTokens();
		const third = await runBot(sim, sendText, {
			credentialStore: store,
			inputItems: [{ json: { uid, text: 'three' } }, { json: { uid, text: 'four' } }],
		});
		expect(third.error).toBeUndefined();
		expect(third.tokenRequests).toHaveLength(1);
		expect(sim.state.sentMessages({ uid }).map((m) => m.content)).toEqual([
			{ text: 'one' },
			{ text: 'two' },
			{ text: 'three' },
			{ text: 'four' },
		]);
		expect(store.get('workplaceBotOAuth2Api')?.accessToken).toBe(sim.state.tokens()[1].token);
	});

	it('a token that expires mid-run at concurrency 5 is renewed once; nothing lost, nothing sent twice', async () => {
		const uids = users(200);
		sim.setLatency(5);
		let expired = false;
		const watcher = setInterval(() => {
			if (!expired && sim.state.sentMessages().length >= 60) {
				expired = true;
				sim.expireTokens();
			}
		}, 2);
		try {
			// Max Concurrency 5, as a workflow saved when it was the fixed "Concurrency" has it.
			const { items, error, requests, tokenRequests } = await runBot(sim, { ...sendText, requestOptions: { concurrency: 5 } }, {
				inputItems: uids.map((uid, n) => ({ json: { uid, text: `m${n}` } })),
			});
			expect(error).toBeUndefined();
			expect(expired).toBe(true);
			expect(tokenRequests).toHaveLength(2);
			expect(items).toHaveLength(200);
			const delivered = sim.state.sentMessages();
			expect(delivered).toHaveLength(200);
			expect(new Set(delivered.map((m) => JSON.stringify(m.content))).size).toBe(200);
			// Only the calls in flight at expiry (at most the maximum, 5) were answered 401, each sent again once.
			const rejected = requests.filter((r) => r.status === 401);
			expect(rejected.length).toBeGreaterThan(0);
			expect(rejected.length).toBeLessThanOrEqual(5 + 1);
		} finally {
			clearInterval(watcher);
		}
	});
});

describe('Workplace Bot: order and concurrency', () => {
	it('keeps item order within each conversation while different conversations interleave', async () => {
		const uids = users(4);
		sim.setLatency(3);
		const inputItems = Array.from({ length: 40 }, (_, n) => ({ json: { uid: uids[n % 4], text: `#${n}` } }));
		const { items, error } = await runBot(sim, sendText, { inputItems });
		expect(error).toBeUndefined();
		for (const [u, uid] of uids.entries()) {
			const expected = inputItems.filter((i) => i.json.uid === uid).map((i) => ({ text: i.json.text }));
			expect(sim.state.sentMessages({ uid }).map((m) => m.content)).toEqual(expected);
			expect(expected).toHaveLength(10 + (u < 0 ? 1 : 0));
		}
		// Output keeps input order whatever order the calls finished in.
		expect(items.map((i) => (i.pairedItem as { item: number }).item)).toEqual(inputItems.map((_, n) => n));
		// Conversations really overlapped: arrivals are not grouped by user.
		const arrivals = sim.state.sentMessages().map((m) => m.directUserId);
		expect(arrivals.slice(0, 4).sort()).toEqual([...uids].sort());
	});

	it('messages to one group thread leave in item order even at concurrency 5', async () => {
		const project = SEED.groups.project;
		const inputItems = Array.from({ length: 25 }, (_, n) => ({ json: { text: `step ${n}` } }));
		sim.setLatency(2);
		const { error } = await runBot(
			sim,
			{ resource: 'groupMessage', operation: 'sendText', groupId: project._id, topicId: project.topics.release._id, text: '={{ $json.text }}' },
			{ inputItems },
		);
		expect(error).toBeUndefined();
		expect(sim.state.sentMessages({ gid: project._id, tid: project.topics.release._id }).map((m) => m.content)).toEqual(
			inputItems.map((i) => ({ text: i.json.text })),
		);
	});

	it('a 429 with Retry-After pauses and retries; every message is delivered exactly once', async () => {
		const uids = users(10);
		sim.faults.add({ method: 'POST', path: '/bot/v1/direct/message', status: 429, retryAfter: 1, times: 3 });
		const { error, requests } = await runBot(sim, sendText, {
			inputItems: uids.map((uid, n) => ({ json: { uid, text: `r${n}` } })),
		});
		expect(error).toBeUndefined();
		expect(requests.filter((r) => r.status === 429)).toHaveLength(3);
		expect(requests.filter((r) => r.status === 201)).toHaveLength(10);
		expect(sim.state.sentMessages()).toHaveLength(10);
	});

	it('a 503 on a send is not retried (the message may have been delivered)', async () => {
		const [uid] = users(1);
		sim.faults.add({ method: 'POST', path: '/bot/v1/direct/message', status: 503, times: 1 });
		const { error, requests } = await runBot(sim, sendText, { inputItems: [{ json: { uid, text: 'once' } }] });
		expect(requests.map((r) => r.status)).toEqual([503]);
		expect((error as { httpCode?: string }).httpCode).toBe('503');
	});

	it('with Continue On Fail, a failing item becomes an error item and the rest are sent', async () => {
		const uids = users(3);
		const { items, error } = await runBot(sim, sendText, {
			continueOnFail: true,
			inputItems: [
				{ json: { uid: uids[0], text: 'a' } },
				{ json: { uid: 'unknown-user', text: 'b' } },
				{ json: { uid: uids[1], text: '' } },
				{ json: { uid: uids[2], text: 'd' } },
			],
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(items[1].json).toMatchObject({ httpCode: '404' });
		expect(items[2].json.error).toBe('Item 2: "Text" must not be empty, got an empty string');
		expect(sim.state.sentMessages()).toHaveLength(2);
	});
});

describe('Workplace Bot: credential test', () => {
	it('passes with the right secret and fails clearly with a wrong one, without showing it', async () => {
		const ok = await testCredential('workplaceBotOAuth2Api', botCredentials(sim).workplaceBotOAuth2Api);
		expect(ok).toEqual({ status: 'OK', message: expect.any(String) });

		const wrongSecret = 'definitely-not-the-secret';
		const bad = await testCredential('workplaceBotOAuth2Api', botCredentials(sim, wrongSecret).workplaceBotOAuth2Api);
		expect(bad.status).toBe('Error');
		expect(bad.message).toBe(
			`The platform refused the bot's client ID or secret (HTTP 401 from POST ${sim.url}/oauth/token): check the "Client ID" and "Client Secret" fields. Platform message: "Client authentication failed: unknown client or wrong secret".`,
		);
		expect(bad.message).not.toContain(wrongSecret);
	});
});
