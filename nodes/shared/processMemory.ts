/**
 * What the package keeps in an n8n process beyond one node run, each a map made here: the bot
 * tokens (transport/token.ts), the Workplace Trigger's received events and direct chats
 * (WorkplaceTrigger/dedupe.ts) and its signing secrets (WorkplaceTrigger/secret.ts), and the
 * answered Send and Wait messages (WorkplaceBot/actions/message/sendAndWait/webhook.ts), the
 * fallbacks already reported (reliance.ts) and the waiting routes that answered the trigger's
 * check (WorkplaceTrigger/resumeRoute.ts). Each module bounds its map. (The trigger's pacing.ts
 * also learns once per process where runs start.)
 */
const maps: Array<Map<unknown, unknown>> = [];

/** A map that lives as long as the n8n process. */
export function processMap<K, V>(): Map<K, V> {
	const map = new Map<K, V>();
	maps.push(map as Map<unknown, unknown>);
	return map;
}

/**
 * The package's one test entry, never called by the nodes: forgets everything held in the maps
 * above, as a restart of n8n would (test/helpers/jest-setup.ts calls it before each test).
 */
export function forgetProcessMemoryForTests(): void {
	for (const map of maps) map.clear();
}
