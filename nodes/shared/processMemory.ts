/**
 * What the package keeps in an n8n process beyond one node run, each a map made here: the bot
 * tokens (transport/token.ts), the Workplace Trigger's received events and direct chats
 * (WorkplaceTrigger/dedupe.ts) and its signing secrets (WorkplaceTrigger/secret.ts), and the
 * answered Send and Wait messages (WorkplaceBot/actions/message/sendAndWait/resumeWebhook.ts), the
 * fallbacks already reported (reliance.ts) and the waiting routes that answered the trigger's
 * check (WorkplaceTrigger/resumeRoute.ts), and the conversations whose run holds their turn
 * (WorkplaceTrigger/conversationTurns.ts). Each module bounds its map. (The trigger's pacing.ts
 * also learns once per process where runs start.)
 */
import { randomBytes } from 'crypto';

const maps: Array<Map<unknown, unknown>> = [];

/** A map that lives as long as the n8n process. */
export function processMap<K, V>(): Map<K, V> {
	const map = new Map<K, V>();
	maps.push(map as Map<unknown, unknown>);
	return map;
}

const self = processMap<'id', string>();

/** A random ID of this n8n process, for telling whether a request was answered by another one. */
export function processId(): string {
	let id = self.get('id');
	if (id === undefined) {
		id = randomBytes(6).toString('hex');
		self.set('id', id);
	}
	return id;
}

/** Tests only: the memory of the simulated n8n processes not running now (runAsProcessForTests). */
const parked = new Map<string, Array<Map<unknown, unknown>>>();
let running = '';

/**
 * A test entry, never called by the nodes: forgets everything held in the maps above, as a
 * restart of n8n would (test/helpers/jest-setup.ts calls it before each test), and every parked
 * simulated process.
 */
export function forgetProcessMemoryForTests(): void {
	for (const map of maps) map.clear();
	parked.clear();
	running = '';
}

/**
 * A test entry, never called by the nodes: makes the maps hold the memory of the simulated n8n
 * process `name` and parks the one that ran, so that one test process models several n8n
 * processes (test/approvals/n8n-model.ts); `restarted` gives the process an empty memory.
 */
export function runAsProcessForTests(name: string, restarted = false): void {
	if (name !== running) {
		parked.set(running, maps.map((map) => new Map(map)));
		const next = parked.get(name) ?? [];
		parked.delete(name);
		maps.forEach((map, i) => {
			map.clear();
			for (const [key, value] of next[i] ?? []) map.set(key, value);
		});
		running = name;
	}
	if (restarted) for (const map of maps) map.clear();
}
