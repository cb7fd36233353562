/**
 * (a, e) Bot send text as users configure it, in one running `n8n start`: Workplace Bot (Group
 * Message > Send Text, Group ID, Topic ID and Text each an expression on the input item) vs n8n's
 * HTTP Request node (v4.2) posting the same body from one JSON-body expression with n8n's generic
 * OAuth2 credential (client credentials grant). 500 items over 20 conversations: a group's main
 * chat, a direct chat's group and 18 topics of the group. Webhook (answers when the run ends) →
 * Code (500 items) → the sending node; both workflows active in the same n8n process, one warm-up
 * run each, then the rounds, the sides taking turns. Also under the platform limit of (e).
 *
 * BENCH_CPU_PROF=<dir>: n8n runs with `--cpu-prof` into that directory (one profile per process,
 * written when the bench stops n8n), for finding where a node's time goes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { fetchWebhook, importCredentials, importWorkflows, startN8nServer, type N8nInstall, type N8nServer } from '../scripts/lib/n8n';
import type { Simulator } from '../simulator';
import { chain, credentialId, node, stableId, workflowId } from '../test/e2e/workflow';
import { log, nodeRun, stat } from './lib';
import { RATE_LIMIT, type SendRound } from './sends';

const ITEMS = 500;
const PACKAGE = 'n8n-nodes-workplace';
const SEND_PATH = '/bot/v1/group/message';

type Side = 'workplaceBot' | 'httpRequestOAuth2';
type Scenario = 'as users configure it' | 'as users configure it, rate limit';

const SIDE_NAMES: Record<Side, string> = {
	workplaceBot: 'Workplace Bot (defaults, expressions)',
	httpRequestOAuth2: 'HTTP Request (OAuth2 credential, JSON-body expression)',
};

/** A round's figures, as (a)'s `n8n execute` rounds count them (no token or series columns here). */
export type UserSendRound = Omit<SendRound, 'side' | 'scenario' | 'tokenRequests' | 'series'> & { side: Side; scenario: Scenario };

const botCred = { id: credentialId('bench/a-users/workplaceBotOAuth2Api'), name: 'Workplace Bot (bench a-users)', type: 'workplaceBotOAuth2Api' };
const oauthCred = { id: credentialId('bench/a-users/oAuth2Api'), name: 'OAuth2 client credentials (bench a-users)', type: 'oAuth2Api' };
const noData = () => ({});

interface Conversation {
	gid: string;
	tid: string;
}

function itemsCode(conversations: Conversation[]): string {
	return `const conversations = ${JSON.stringify(conversations)};\nreturn Array.from({ length: ${ITEMS} }, (_, i) => ({ json: { ...conversations[i % conversations.length], text: 'bench ' + i } }));`;
}

function sendNode(side: Side, simUrl: string) {
	if (side === 'workplaceBot') {
		return node('Send', `${PACKAGE}.workplaceBot`, 1, {
			resource: 'groupMessage',
			operation: 'sendText',
			groupId: '={{ $json.gid }}',
			topicId: '={{ $json.tid }}',
			text: '={{ $json.text }}',
		}, { credentials: { ...botCred, data: noData } });
	}
	return node('Send', 'n8n-nodes-base.httpRequest', 4.2, {
		method: 'POST',
		url: `${simUrl}${SEND_PATH}`,
		authentication: 'genericCredentialType',
		genericAuthType: 'oAuth2Api',
		sendBody: true,
		specifyBody: 'json',
		jsonBody: '={{ JSON.stringify({ gid: $json.gid, tid: $json.tid, message: { type: "text", data: $json.text } }) }}',
		options: {},
	}, { credentials: { ...oauthCred, data: noData } });
}

function workflow(side: Side, conversations: Conversation[], simUrl: string) {
	const name = `bench a-users: ${side}`;
	const hookPath = `bench-a-users-${side}`;
	const webhook = node('Webhook', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: hookPath, responseMode: 'lastNode', responseData: 'firstEntryJson', options: {} }, {
		settings: { webhookId: stableId('hook', hookPath) },
	});
	const items = node('Items', 'n8n-nodes-base.code', 2, { jsCode: itemsCode(conversations) });
	return { side, hookPath, workflow: { ...chain([webhook, items, sendNode(side, simUrl)]), id: workflowId(name), name, active: false, settings: { executionOrder: 'v1' } } };
}

/** Adjacent arrivals out of item order within each conversation (gid:tid). */
function inversions(bodies: Array<{ gid?: string; tid?: string; message?: { data?: string } }>): number {
	const byConversation = new Map<string, number[]>();
	for (const body of bodies) {
		const key = `${body.gid}:${body.tid ?? ''}`;
		const list = byConversation.get(key) ?? [];
		list.push(Number(String(body.message?.data ?? '').replace('bench ', '')));
		byConversation.set(key, list);
	}
	let count = 0;
	for (const list of byConversation.values()) count += list.filter((v, i) => i > 0 && v < list[i - 1]).length;
	return count;
}

/** The 20 conversations: the group's main chat, a direct chat's group and 18 topics. */
function conversationsOf(sim: Simulator): Conversation[] {
	const user = sim.state.addUser({ username: 'bench-a-users-direct' });
	const group = sim.state.addGroup({ name: 'bench a-users', memberIds: [user._id] });
	const direct = sim.state.ensureDirectChat(user._id);
	const topics = Array.from({ length: 18 }, (_, n) => sim.state.addTopic(group._id, `bench a-users topic ${n}`));
	return [{ gid: group._id, tid: '' }, { gid: direct.gid, tid: '' }, ...topics.map((t) => ({ gid: group._id, tid: t._id }))];
}

export async function benchUserSends(inst: N8nInstall, userFolder: string, env: NodeJS.ProcessEnv, sim: Simulator, rounds: number): Promise<UserSendRound[]> {
	const conversations = conversationsOf(sim);
	const workDir = path.join(userFolder, 'bench-input-a-users');
	fs.mkdirSync(workDir, { recursive: true });
	await importCredentials(inst, env, [
		{ ...botCred, data: { baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret: sim.credentials.botClientSecret } },
		{
			...oauthCred,
			data: {
				grantType: 'clientCredentials',
				accessTokenUrl: `${sim.url}/oauth/token`,
				clientId: sim.credentials.botClientId,
				clientSecret: sim.credentials.botClientSecret,
				scope: 'bot profile',
				authQueryParameters: '',
				authentication: 'header',
			},
		},
	], workDir);
	const plans = (['workplaceBot', 'httpRequestOAuth2'] as const).map((side) => workflow(side, conversations, sim.url));
	await importWorkflows(inst, env, plans.map((p) => p.workflow), workDir);

	const profileDir = process.env.BENCH_CPU_PROF;
	const server = await startN8nServer(inst, {
		userFolder,
		logLevel: 'warn',
		env: { EXECUTIONS_DATA_PRUNE: 'false', ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}) },
		startTimeoutMs: 180_000,
	});
	const results: UserSendRound[] = [];
	try {
		await server.setupOwner();
		for (const p of plans) {
			const wf = await server.rest<{ versionId?: string }>('GET', `/workflows/${p.workflow.id}`);
			await server.rest('POST', `/workflows/${p.workflow.id}/activate`, { versionId: wf.versionId });
		}
		const scenarios: Scenario[] = (process.env.BENCH_SEND_SCENARIOS ?? '').includes('rate limit')
			? ['as users configure it, rate limit']
			: ['as users configure it', 'as users configure it, rate limit'];
		for (const p of plans) await runOnce(server, inst, sim, p, 'as users configure it'); // warm-up, not counted
		for (const scenario of scenarios) {
			for (let round = 1; round <= rounds; round++) {
				for (const p of plans) {
					const r = await runOnce(server, inst, sim, p, scenario);
					results.push(r);
					log(`  round ${round} ${r.side} ${scenario}: ${r.nodeMs} ms, ${r.itemsPerSecond.toFixed(0)} items/s, ${r.sends} sends (${r.refused} refused), ${r.delivered} delivered, ${r.duplicated} duplicated, ${r.inversions} inversions${r.failed ? ', execution failed' : ''}`);
				}
			}
		}
	} finally {
		await server.stop();
	}
	return results;
}

async function runOnce(server: N8nServer, inst: N8nInstall, sim: Simulator, plan: ReturnType<typeof workflow>, scenario: Scenario): Promise<UserSendRound> {
	sim.log.clear();
	sim.state.clearMessages();
	sim.rateLimits.clear();
	if (scenario.endsWith('rate limit')) sim.rateLimits.set(RATE_LIMIT);
	try {
		await fetchWebhook(`${server.url}/webhook/${plan.hookPath}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
	} finally {
		sim.rateLimits.clear();
	}
	const id = (await server.executions({ workflowId: plan.workflow.id }, 1)).results[0]?.id;
	if (!id) throw new Error(`no execution of ${plan.workflow.name}`);
	const exec = await server.rest<{ data?: unknown; status?: string }>('GET', `/executions/${id}`);
	const nodeMs = nodeRun(inst, exec, 'Send')?.executionTime ?? NaN;
	const sends = sim.log.all().filter((r) => r.path === SEND_PATH);
	const accepted = sends.filter((r) => r.status >= 200 && r.status < 300);
	const texts = sim.state.sentMessages().map((m) => String((m.content as { text?: unknown }).text));
	const distinct = new Set(texts).size;
	return {
		side: plan.side,
		scenario,
		nodeMs,
		itemsPerSecond: distinct / (nodeMs / 1000),
		sends: sends.length,
		refused: sends.filter((r) => r.status === 429).length,
		delivered: distinct,
		duplicated: texts.length - distinct,
		missing: ITEMS - distinct,
		inversions: inversions(accepted.map((r) => r.body as never)),
		failed: exec.status !== undefined && exec.status !== 'success',
	};
}

const uniq = (values: Array<number | string>) => [...new Set(values.map(String))].join(' / ');

export function userSendSection(rounds: UserSendRound[], label: string): string[] {
	const lines = [
		`## (a) Bot send text as users configure it: Workplace Bot vs HTTP Request (${label})`,
		'',
		'One running `n8n start` (SQLite, defaults), both workflows active: Webhook → Code (500 items) → the sending node. Workplace Bot: Group Message > Send Text with Group ID, Topic ID and Text each an expression on the item. HTTP Request (v4.2): the same body from one JSON-body expression, n8n\'s generic OAuth2 credential (client credentials). 20 conversations: a group\'s main chat, a direct chat\'s group and 18 topics (item n to conversation n mod 20). One warm-up run per side, then the rounds with the sides taking turns. Time is the sending node\'s `executionTime`. Rate limit: the platform limit of (e), 50 requests/s, bursts of 10.',
		'',
		'| scenario | node | node time (ms) | items/s (delivered) | % of the limit | sends | refused (429) | delivered | duplicated | missing | order inversions | execution |',
		'|---|---|---|---|---|---|---|---|---|---|---|---|',
	];
	for (const scenario of ['as users configure it', 'as users configure it, rate limit'] as const) {
		for (const side of ['workplaceBot', 'httpRequestOAuth2'] as const) {
			const rs = rounds.filter((r) => r.scenario === scenario && r.side === side);
			if (!rs.length) continue;
			const limited = scenario.endsWith('rate limit');
			const pct = rs.map((r) => (r.sends ? (100 * r.refused) / r.sends : 0));
			lines.push(
				`| ${scenario} | ${SIDE_NAMES[side]} | ${stat(rs.map((r) => r.nodeMs), 0)} | ${stat(rs.map((r) => r.itemsPerSecond), 1)} | ${limited ? stat(rs.map((r) => (100 * r.itemsPerSecond) / RATE_LIMIT.rate), 1, ' %') : ''} | ${uniq(rs.map((r) => r.sends))} | ${uniq(rs.map((r) => r.refused))} (${stat(pct, 1, ' %')}) | ${uniq(rs.map((r) => r.delivered))} | ${uniq(rs.map((r) => r.duplicated))} | ${uniq(rs.map((r) => r.missing))} | ${uniq(rs.map((r) => r.inversions))} | ${uniq(rs.map((r) => (r.failed ? 'failed' : 'success')))} |`,
			);
		}
	}
	lines.push('');
	return lines;
}
