/**
 * Engine-level measurement for the Workplace Bot node: 500 direct text messages to 500 users
 * against the simulator with 20 ms added latency, at concurrency 1 and 5. Prints token requests,
 * sends and wall time. A measurement, not a test: it asserts nothing about speed.
 *
 *   npm run build && npm run build:tools && node build/scripts/measure-bot-concurrency.js
 */
import { startSimulator } from '../simulator';
import { CredentialStore, runNode } from '../test/helpers/engine';

const ITEMS = 500;
const LATENCY_MS = 20;

async function main(): Promise<void> {
	const sim = await startSimulator({ port: 0, latencyMs: LATENCY_MS });
	try {
		const uids = Array.from({ length: ITEMS }, (_, n) => sim.state.addUser({ username: `bench${n}` })._id);
		for (const concurrency of [1, 5]) {
			sim.state.clearMessages();
			sim.log.clear();
			const started = process.hrtime.bigint();
			const result = await runNode({
				nodeType: 'workplaceBot',
				parameters: {
					resource: 'directMessage',
					operation: 'sendText',
					userId: { __rl: true, mode: 'id', value: '={{ $json.uid }}' },
					text: '={{ $json.text }}',
					requestOptions: { concurrency },
				},
				credentials: {
					workplaceBotOAuth2Api: { baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret: sim.credentials.botClientSecret },
				},
				credentialStore: new CredentialStore(),
				inputItems: uids.map((uid, n) => ({ json: { uid, text: `bench ${n}` } })),
			});
			const seconds = Number(process.hrtime.bigint() - started) / 1e9;
			const log = sim.log.all();
			const tokenRequests = log.filter((r) => r.interface === 'oauth').length;
			const sends = log.filter((r) => r.path === '/bot/v1/direct/message').length;
			console.log(
				`concurrency ${concurrency}: ${result.items.length} items, ${sends} sends, ${tokenRequests} token request(s), ` +
					`${sim.state.sentMessages().length} delivered, ${seconds.toFixed(2)} s (${(ITEMS / seconds).toFixed(0)} items/s)` +
					(result.error ? `, error: ${result.error.message}` : ''),
			);
		}
	} finally {
		await sim.close();
	}
}

void main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
