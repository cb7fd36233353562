/**
 * Workplace Bot: one access token per n8n process and bot account, shared by every execution
 * (nodes/shared/transport/token.ts). Executions run at the same time through n8n-core's engine in this
 * process, on one saved credential (a shared CredentialStore plays n8n's database).
 */
import type { FaultRule, LoggedRequest } from '../../simulator';
import { CredentialStore, runNode } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { botCredentials } from './bot.fixtures';

const sim = useSimulator({ latencyMs: 2, clearLog: true });

const sendText = { resource: 'directMessage', operation: 'sendText', userId: '={{ $json.uid }}', text: '={{ $json.text }}' };

function users(count: number, prefix: string): string[] {
	return Array.from({ length: count }, (_, n) => sim.state.addUser({ username: `${prefix}${n}` })._id);
}

/** `executions` executions of `perExecution` sends each, all started at once on one credential. */
async function concurrentExecutions(store: CredentialStore, executions: number, perExecution: number, tag: string) {
	const uids = users(perExecution, `${tag}-user`);
	return await Promise.all(
		Array.from({ length: executions }, async (_, e) =>
			await runNode({
				nodeType: 'workplaceBot',
				parameters: sendText,
				credentials: botCredentials(sim),
				credentialStore: store,
				inputItems: uids.map((uid, n) => ({ json: { uid, text: `${tag} ${e}/${n}` } })),
			}),
		),
	);
}

const tokenRequests = (log: LoggedRequest[]) => log.filter((r) => r.interface === 'oauth');
const sends = (log: LoggedRequest[]) => log.filter((r) => r.method === 'POST' && r.path === '/bot/v1/direct/message');

describe('Workplace Bot: one token per process, shared by executions', () => {
	it('10 executions x 20 sends starting with no stored token: 1 token request, 200 sends, none twice', async () => {
		const store = new CredentialStore();
		const runs = await concurrentExecutions(store, 10, 20, 'cold');
		expect(runs.map((r) => r.error)).toEqual(Array(10).fill(undefined));
		const log = sim.log.all();
		expect(tokenRequests(log)).toHaveLength(1);
		expect(sends(log).map((r) => r.status)).toEqual(Array(200).fill(201));
		const texts = sim.state.sentMessages().map((m) => (m.content as { text: string }).text);
		expect(new Set(texts).size).toBe(200);
		// Every call carried the one token, which n8n saved with the credential.
		const token = sim.state.tokens()[0].token;
		expect(new Set(sends(log).map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${token}`]));
		expect(store.get('workplaceBotOAuth2Api')?.accessToken).toBe(token);
	});

	it('after the platform expired every token: 1 token request for 10 executions, no other extra call', async () => {
		const store = new CredentialStore();
		await concurrentExecutions(store, 1, 1, 'warm');
		sim.expireTokens();
		sim.log.clear();
		const runs = await concurrentExecutions(store, 10, 20, 'expired');
		expect(runs.map((r) => r.error)).toEqual(Array(10).fill(undefined));
		const log = sim.log.all();
		expect(tokenRequests(log)).toHaveLength(1);
		// Only the sends: the renewal costs the token request alone (no look-up sent to make n8n renew).
		expect(log.filter((r) => r.interface === 'bot').every((r) => r.path === '/bot/v1/direct/message')).toBe(true);
		expect(sends(log).filter((r) => r.status === 201)).toHaveLength(200);
		// The calls in flight when the token was found expired were answered 401 before the platform did anything.
		expect(sends(log).filter((r) => r.status !== 201).every((r) => r.status === 401)).toBe(true);
		expect(sim.state.sentMessages()).toHaveLength(201);
	});

	it('a token renewed by another process (saved with the credential) is taken after a 401, without a token request', async () => {
		const store = new CredentialStore();
		await concurrentExecutions(store, 1, 1, 'first');
		const heldToken = store.get('workplaceBotOAuth2Api')?.accessToken;
		// Another n8n process (a queue-mode worker) found the token expired and saved a new one.
		sim.expireTokens();
		const other = await fetch(`${sim.url}/oauth/token`, {
			method: 'POST',
			headers: {
				authorization: `Basic ${Buffer.from(`${sim.credentials.botClientId}:${sim.credentials.botClientSecret}`).toString('base64')}`,
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: 'grant_type=client_credentials&scope=bot%20profile',
		});
		const renewed = ((await other.json()) as { access_token: string }).access_token;
		store.merge('workplaceBotOAuth2Api', { accessToken: renewed });
		sim.log.clear();

		const runs = await concurrentExecutions(store, 3, 5, 'adopt');
		expect(runs.map((r) => r.error)).toEqual(Array(3).fill(undefined));
		const log = sim.log.all();
		expect(tokenRequests(log)).toHaveLength(0);
		const statuses = sends(log).map((r) => r.status);
		expect(statuses.filter((s) => s === 201)).toHaveLength(15);
		expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
		expect(new Set(sends(log).filter((r) => r.status === 401).map((r) => r.headers.authorization))).toEqual(
			new Set([`Bearer ${heldToken}`]),
		);
		expect(new Set(sends(log).filter((r) => r.status === 201).map((r) => r.headers.authorization))).toEqual(
			new Set([`Bearer ${renewed}`]),
		);
	});

	it('a refused client secret: one token request for all items, each item fails with the reason, nothing sent', async () => {
		const store = new CredentialStore({ workplaceBotOAuth2Api: botCredentials(sim, 'wrong-secret').workplaceBotOAuth2Api });
		const uids = users(5, 'refused');
		const run = await runNode({
			nodeType: 'workplaceBot',
			parameters: sendText,
			credentialStore: store,
			continueOnFail: true,
			inputItems: uids.map((uid, n) => ({ json: { uid, text: `no ${n}` } })),
		});
		expect(run.error).toBeUndefined();
		const log = sim.log.all();
		expect(tokenRequests(log).map((r) => r.status)).toEqual([401]);
		expect(sends(log)).toHaveLength(0);
		expect(run.items.map((i) => i.pairedItem)).toEqual(uids.map((_, item) => ({ item })));
		for (const item of run.items) {
			expect(String(item.json.error)).toContain("The platform refused the bot's client ID or secret (HTTP 401");
			expect(JSON.stringify(item.json)).not.toContain('wrong-secret');
		}
	});

	it('a throttled token endpoint (429, Retry-After) is waited out; every message once', async () => {
		sim.faults.add({ method: 'POST', path: '/oauth/token', status: 429, retryAfter: 1, times: 1 } as FaultRule);
		const store = new CredentialStore();
		const started = Date.now();
		const runs = await concurrentExecutions(store, 3, 4, 'throttled');
		expect(runs.map((r) => r.error)).toEqual(Array(3).fill(undefined));
		expect(Date.now() - started).toBeGreaterThanOrEqual(900);
		const log = sim.log.all();
		expect(tokenRequests(log).map((r) => r.status)).toEqual([429, 200]);
		expect(sends(log).map((r) => r.status)).toEqual(Array(12).fill(201));
		expect(new Set(sim.state.sentMessages().map((m) => JSON.stringify(m.content))).size).toBe(12);
	});
});
