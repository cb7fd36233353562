/**
 * Time limits in real n8n (Request Options > Timeout, nodes/shared/transport/timeLimit.ts), with
 * the node versions a user gets from the panel (each node's defaultVersion) and Timeout 1 s:
 * - a send the platform processes but never answers, with Continue On Fail: an error item naming
 *   method, path and limit, and exactly one request at the simulator (never sent again);
 * - reads held once (Workplace Knowledge, then Workplace Bot): each succeeds on its second try.
 */
import * as assert from 'node:assert/strict';

import type { INodeTypeDescription } from 'n8n-workflow';

import { WorkplaceBot } from '../../../nodes/WorkplaceBot/WorkplaceBot.node';
import { WorkplaceKnowledge } from '../../../nodes/WorkplaceKnowledge/WorkplaceKnowledge.node';
import type { SimulatorState } from '../../../simulator';
import { SEED } from '../../../simulator/seed';
import type { LoggedRequest, Scenario } from '../types';
import { byId, chain, manualTrigger, node, PACKAGE } from '../workflow';
import { botCredential, knowledgeCredential } from '../workplace';

/** The version n8n's panel adds: the node's defaultVersion, else its latest. */
function panelVersion(description: INodeTypeDescription): number {
	const { version, defaultVersion } = description;
	return defaultVersion ?? (Array.isArray(version) ? Math.max(...version) : version);
}

const BOT_VERSION = panelVersion(new WorkplaceBot().description);
const KNOWLEDGE_VERSION = panelVersion(new WorkplaceKnowledge().description);
const ONE_SECOND = { timeoutSeconds: 1 };

const DIRECT = '/bot/v1/direct/message';
const { alice } = SEED.users;
const handbook = SEED.knowledge.handbook;
const HANDBOOK = `/api/v1/knowledge/${handbook.id}`;
const LOOKUP = '/bot/v1/users';
const TEXT = 'E2E: held by the platform';

/**
 * A bot call before the held one: the credential may hold a token an earlier scenario left, which
 * the platform no longer knows (a 401 renews it); the held call then goes out with a valid token,
 * so what the platform logs for it is the time limit alone.
 */
const freshToken = () =>
	node(
		'Fresh token',
		`${PACKAGE}.workplaceBot`,
		BOT_VERSION,
		{ resource: 'user', operation: 'getDirectChat', userId: byId(alice._id) },
		{ credentials: botCredential },
	);

const lines = (log: LoggedRequest[], path: string) => log.filter((r) => r.path === path).map((r) => `${r.method} ${r.path} ${r.status}`);

const stalledSend: Scenario = {
	name: 'timeouts: a send held by the platform, Continue On Fail (Bot, Timeout 1 s)',
	compat: true,
	credentials: [botCredential],
	before({ sim }) {
		// The platform delivers the message, then never answers.
		sim.faults?.add({ method: 'POST', path: DIRECT, stall: true, afterHandler: true });
	},
	workflow: () =>
		chain([
			manualTrigger(),
			freshToken(),
			node(
				'Send (held)',
				`${PACKAGE}.workplaceBot`,
				BOT_VERSION,
				{ resource: 'directMessage', operation: 'sendText', userId: byId(alice._id), text: TEXT, requestOptions: ONE_SECOND },
				{ credentials: botCredential, settings: { onError: 'continueRegularOutput' } },
			),
		]),
	assert(result, { sim }) {
		assert.equal(result.status, 'success');
		const items = result.items('Send (held)');
		assert.equal(items.length, 1);
		assert.deepEqual(items[0].pairedItem, { item: 0 });
		assert.equal(
			items[0].json.error,
			`POST ${DIRECT} timed out after 1 s without an answer; it may have reached the platform, so it was not sent again`,
		);
		assert.equal(items[0].json.httpCode, 'ETIMEDOUT');
		assert.match(String(items[0].json.description), /never sent a second time/);
		// Exactly one request: never sent again. The platform has the message once.
		assert.deepEqual(lines(sim.log.all(), DIRECT), [`POST ${DIRECT} 0`]);
		const delivered = (sim.state as SimulatorState).sentMessages({ uid: alice._id }).filter((m) => (m.content as { text?: string }).text === TEXT);
		assert.equal(delivered.length, 1);
	},
};

const stalledReads: Scenario = {
	name: 'timeouts: reads held once succeed on their second try (Knowledge, Bot; Timeout 1 s)',
	credentials: [knowledgeCredential, botCredential],
	before({ sim }) {
		sim.faults?.add({ method: 'GET', path: HANDBOOK, stall: true });
		sim.faults?.add({ method: 'GET', path: LOOKUP, stall: true });
	},
	workflow: () =>
		chain([
			manualTrigger(),
			freshToken(),
			node(
				'Get Base (held once)',
				`${PACKAGE}.workplaceKnowledge`,
				KNOWLEDGE_VERSION,
				{ resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: byId(handbook.id), requestOptions: ONE_SECOND },
				{ credentials: knowledgeCredential },
			),
			node(
				'Find User (held once)',
				`${PACKAGE}.workplaceBot`,
				BOT_VERSION,
				{ resource: 'user', operation: 'getByUsername', username: 'alice', requestOptions: ONE_SECOND },
				{ credentials: botCredential },
			),
		]),
	assert(result, { sim }) {
		assert.equal(result.status, 'success', String(result.error?.message));
		const [base] = result.json('Get Base (held once)');
		assert.equal(base.id, handbook.id);
		assert.equal(base.name, handbook.name);
		assert.match(JSON.stringify(result.json('Find User (held once)')), new RegExp(alice._id));
		const log = sim.log.all();
		assert.deepEqual(lines(log, HANDBOOK), [`GET ${HANDBOOK} 0`, `GET ${HANDBOOK} 200`]);
		assert.deepEqual(lines(log, LOOKUP), [`GET ${LOOKUP} 0`, `GET ${LOOKUP} 200`]);
	},
};

export const scenarios: Scenario[] = [stalledSend, stalledReads];
