/**
 * Workplace Bot when n8n no longer writes the token it fetched (the credential's preAuthentication)
 * into the credential data the call was given (nodes/shared/transport/tokenCall.ts): the call was
 * sent and answered, so its answer is kept; the token is taken another way and the admin told once.
 * Modelled in the bed's credentials helper (`CredentialStore.tokenWrittenBack = false`).
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';

import { CredentialStore } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { runBot } from './bot.fixtures';

const sim = useSimulator({ latencyMs: 0 });

const MARK = '(a fallback of n8n-nodes-workplace, logged once per n8n process)';
const sendText = { resource: 'directMessage', operation: 'sendText', userId: '={{ $json.uid }}', text: '={{ $json.text }}' };
const sends = () => sim.log.all().filter((r) => r.method === 'POST' && r.path === '/bot/v1/direct/message');

/** The warnings the nodes write through n8n's logger during `work`. */
async function warnings<T>(work: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
	const spy = jest.spyOn(Container.get(Logger), 'warn');
	try {
		const result = await work();
		return { result, lines: spy.mock.calls.map((call) => String(call[0])) };
	} finally {
		spy.mockRestore();
	}
}

describe('Workplace Bot: n8n does not write the fetched token back', () => {
	it('a send answered 201 succeeds, sent once; the next items use the token the token request reported; one warning', async () => {
		const store = new CredentialStore();
		store.tokenWrittenBack = false;
		const uid = sim.state.addUser({ username: 'fallback-user' })._id;
		const { result, lines } = await warnings(
			async () =>
				await runBot(sim, sendText, {
					credentialStore: store,
					inputItems: ['one', 'two', 'three'].map((text) => ({ json: { uid, text } })),
				}),
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json.error)).toEqual([undefined, undefined, undefined]);
		expect(result.tokenRequests).toHaveLength(1);
		expect(sends().map((r) => r.status)).toEqual([201, 201, 201]);
		expect(sim.state.sentMessages({ uid }).map((m) => m.content)).toEqual([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
		const token = sim.state.tokens()[0].token;
		expect(new Set(sends().map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${token}`]));
		const fallbacks = lines.filter((line) => line.endsWith(MARK));
		expect(fallbacks).toHaveLength(1);
		expect(fallbacks[0]).toMatch(/n8n did not write the access token it fetched.*took the token its token request reported.*sent once/);
		expect(fallbacks[0]).not.toContain(token);
	});

	it('a later execution in the same process: no second warning', async () => {
		const store = new CredentialStore();
		store.tokenWrittenBack = false;
		const uid = sim.state.addUser({ username: 'fallback-again' })._id;
		const { lines } = await warnings(async () => {
			await runBot(sim, sendText, { credentialStore: store, inputItems: [{ json: { uid, text: 'first' } }] });
			sim.expireTokens();
			return await runBot(sim, sendText, { credentialStore: store, inputItems: [{ json: { uid, text: 'after renewal' } }] });
		});
		expect(sim.state.sentMessages({ uid }).map((m) => m.content)).toEqual([{ text: 'first' }, { text: 'after renewal' }]);
		expect(lines.filter((line) => line.endsWith(MARK))).toHaveLength(1);
	});
});
