/**
 * (a) Bot send text vs n8n's HTTP Request node, and (e) the same under a platform rate limit.
 *
 * Manual Trigger → Code (500 items) → the sending node, run by `n8n execute`; both sides post the
 * same JSON to POST /bot/v1/direct/message. HTTP Request (v4.2) carries a Header Auth credential
 * with a token the bench fetched first; ours fetches and saves its token itself.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { executeWorkflow, importCredentials, importWorkflows, repoRoot, type N8nInstall } from '../scripts/lib/n8n';
import type { Simulator } from '../simulator';
import type { LoggedRequest } from '../simulator/types';
import { byId, chain, credentialId, manualTrigger, node, workflowId } from '../test/e2e/workflow';
import { lineChart } from './chart';
import { log, stat } from './lib';

const ITEMS = 500;
const PACKAGE = 'n8n-nodes-workplace';
const SEND_PATH = '/bot/v1/direct/message';
/** (e): the platform's limit, requests per second and burst. */
export const RATE_LIMIT = { rate: 50, burst: 10 };
/** Width of a bucket of the items/s series (ms). */
const BUCKET_MS = 250;

type Side = 'workplaceBot' | 'httpRequest' | 'httpRequestRetry';
type Scenario = '20 conversations' | '500 users' | 'one chat' | 'rate limit';

const SIDE_NAMES: Record<Side, string> = {
	workplaceBot: 'Workplace Bot (defaults)',
	httpRequest: 'HTTP Request (defaults)',
	httpRequestRetry: 'HTTP Request, Retry On Fail (3 tries, 1 s)',
};

export interface SendRound {
	side: Side;
	scenario: Scenario;
	/** The sending node's own time as n8n records it. */
	nodeMs: number;
	itemsPerSecond: number;
	/** Requests to the send endpoint, and how many the platform refused (429). */
	sends: number;
	refused: number;
	tokenRequests: number;
	/** Distinct items in the chats, and items there more than once. */
	delivered: number;
	duplicated: number;
	/** Items that never reached a chat. */
	missing: number;
	/** Adjacent arrivals out of item order, summed over the conversations. */
	inversions: number;
	/** Whether the execution ended with an error. */
	failed: boolean;
	/** Delivered per second in BUCKET_MS buckets from the first request. */
	series: number[];
}

const botCred = { id: credentialId('bench/workplaceBotOAuth2Api'), name: 'Workplace Bot (bench)', type: 'workplaceBotOAuth2Api' };
const headerCred = { id: credentialId('bench/httpHeaderAuth'), name: 'Bearer token (bench)', type: 'httpHeaderAuth' };

function itemsCode(uids: string[]): string {
	return `const uids = ${JSON.stringify(uids)};\nreturn Array.from({ length: ${ITEMS} }, (_, i) => ({ json: { uid: uids[i % uids.length], text: 'bench ' + i } }));`;
}

function sendWorkflow(name: string, side: Side, uids: string[], simUrl: string) {
	const items = node('Items', 'n8n-nodes-base.code', 2, { jsCode: itemsCode(uids) });
	const send =
		side === 'workplaceBot'
			? node('Send', `${PACKAGE}.workplaceBot`, 1, {
					resource: 'directMessage',
					operation: 'sendText',
					userId: byId('={{ $json.uid }}'),
					text: '={{ $json.text }}',
				}, { credentials: { ...botCred, data: () => ({}) } })
			: node('Send', 'n8n-nodes-base.httpRequest', 4.2, {
					method: 'POST',
					url: `${simUrl}${SEND_PATH}`,
					authentication: 'genericCredentialType',
					genericAuthType: 'httpHeaderAuth',
					sendBody: true,
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify({ uid: $json.uid, message: { type: "text", data: $json.text } }) }}',
					options: {},
				}, {
					credentials: { ...headerCred, data: () => ({}) },
					...(side === 'httpRequestRetry' ? { settings: { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 } } : {}),
				});
	return { ...chain([manualTrigger(), items, send]), id: workflowId(name), name, active: false, settings: { executionOrder: 'v1' } };
}

interface RunData {
	data?: { resultData?: { runData?: Record<string, Array<{ executionTime?: number }>>; error?: unknown } };
}

/** Adjacent arrivals out of item order within each conversation. */
function inversions(sends: LoggedRequest[]): number {
	const byConversation = new Map<string, number[]>();
	for (const r of sends) {
		const body = r.body as { uid?: string; message?: { data?: string } } | undefined;
		const n = Number(String(body?.message?.data ?? '').replace('bench ', ''));
		const list = byConversation.get(String(body?.uid)) ?? [];
		list.push(n);
		byConversation.set(String(body?.uid), list);
	}
	let count = 0;
	for (const list of byConversation.values()) count += list.filter((v, i) => i > 0 && v < list[i - 1]).length;
	return count;
}

function seriesOf(sends: LoggedRequest[]): number[] {
	if (!sends.length) return [];
	const start = Math.min(...sends.map((r) => r.time));
	const buckets: number[] = [];
	for (const r of sends.filter((s) => s.status >= 200 && s.status < 300)) {
		const b = Math.floor((r.time - start) / BUCKET_MS);
		for (let i = buckets.length; i <= b; i++) buckets.push(0);
		buckets[b]++;
	}
	return buckets.map((n) => (n * 1000) / BUCKET_MS);
}

export async function benchSends(inst: N8nInstall, userFolder: string, env: NodeJS.ProcessEnv, sim: Simulator, rounds: number): Promise<SendRound[]> {
	const users = (count: number, prefix: string) => Array.from({ length: count }, (_, n) => sim.state.addUser({ username: `${prefix}${n}` })._id);
	const uidsOf: Record<Scenario, string[]> = {
		'20 conversations': users(20, 'bench-conv'),
		'500 users': users(ITEMS, 'bench-user'),
		'one chat': users(1, 'bench-one'),
		'rate limit': users(20, 'bench-limited'),
	};

	// The HTTP Request side gets a token fetched by hand, as a user would do it.
	const tokenResponse = await fetch(`${sim.url}/oauth/token`, {
		method: 'POST',
		headers: {
			authorization: `Basic ${Buffer.from(`${sim.credentials.botClientId}:${sim.credentials.botClientSecret}`).toString('base64')}`,
			'content-type': 'application/x-www-form-urlencoded',
		},
		body: 'grant_type=client_credentials',
	});
	const token = ((await tokenResponse.json()) as { access_token: string }).access_token;

	const workDir = path.join(userFolder, 'bench-input');
	fs.mkdirSync(workDir, { recursive: true });
	await importCredentials(inst, env, [
		{ ...botCred, data: { baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret: sim.credentials.botClientSecret } },
		{ ...headerCred, data: { name: 'Authorization', value: `Bearer ${token}` } },
	], workDir);
	const plans: Array<{ side: Side; scenario: Scenario }> = [
		{ side: 'workplaceBot', scenario: '20 conversations' },
		{ side: 'httpRequest', scenario: '20 conversations' },
		{ side: 'workplaceBot', scenario: '500 users' },
		{ side: 'httpRequest', scenario: '500 users' },
		{ side: 'workplaceBot', scenario: 'one chat' },
		{ side: 'httpRequest', scenario: 'one chat' },
		{ side: 'workplaceBot', scenario: 'rate limit' },
		{ side: 'httpRequest', scenario: 'rate limit' },
		{ side: 'httpRequestRetry', scenario: 'rate limit' },
	];
	const only = (process.env.BENCH_SEND_SCENARIOS ?? '').split(',').filter(Boolean);
	const chosen = only.length ? plans.filter((p) => only.some((o) => p.scenario.includes(o))) : plans;
	const workflows = chosen.map((p) => sendWorkflow(`bench: ${p.side} ${p.scenario}`, p.side, uidsOf[p.scenario], sim.url));
	await importWorkflows(inst, env, workflows, workDir);

	const results: SendRound[] = [];
	for (let round = 1; round <= rounds; round++) {
		for (const [i, plan] of chosen.entries()) {
			sim.log.clear();
			sim.state.clearMessages();
			sim.rateLimits.clear();
			// a full bucket at the start, as after a quiet spell
			if (plan.scenario === 'rate limit') sim.rateLimits.set(RATE_LIMIT);
			const exec = await executeWorkflow(inst, env, workflows[i].id, 600_000);
			sim.rateLimits.clear();
			const resultData = (exec.data as RunData | undefined)?.data?.resultData;
			const runData = resultData?.runData?.Send?.[0];
			if (!runData) throw new Error(`${workflows[i].name}: no run data (exit ${exec.run.code})\n${exec.run.stdout.slice(-2000)}\n${exec.run.stderr.slice(-2000)}`);
			const nodeMs = runData.executionTime ?? NaN;
			const requests = sim.log.all();
			const sends = requests.filter((r) => r.path === SEND_PATH);
			const texts = sim.state.sentMessages().map((m) => String((m.content as { text?: unknown }).text));
			const distinct = new Set(texts).size;
			const result: SendRound = {
				...plan,
				nodeMs,
				itemsPerSecond: distinct / (nodeMs / 1000),
				sends: sends.length,
				refused: sends.filter((r) => r.status === 429).length,
				tokenRequests: requests.filter((r) => r.interface === 'oauth').length,
				delivered: distinct,
				duplicated: texts.length - distinct,
				missing: ITEMS - distinct,
				inversions: inversions(sends.filter((r) => r.status >= 200 && r.status < 300)),
				failed: resultData?.error !== undefined,
				series: seriesOf(sends),
			};
			results.push(result);
			log(`  round ${round} ${plan.side} ${plan.scenario}: ${nodeMs} ms, ${result.itemsPerSecond.toFixed(0)} items/s, ${result.sends} sends (${result.refused} refused) + ${result.tokenRequests} token, ${distinct} delivered, ${result.duplicated} duplicated, ${result.inversions} inversions${result.failed ? ', execution failed' : ''}`);
			if (process.env.BENCH_SERIES === '1') log(`    delivered/s per ${BUCKET_MS} ms: ${result.series.join(' ')}; 429 at ms: ${sends.filter((r) => r.status === 429).map((r) => r.time - sends[0].time).join(' ')}`);
		}
	}
	return results;
}

const uniq = (values: Array<number | string | boolean>) => [...new Set(values.map(String))].join(' / ');

function row(rs: SendRound[]): string {
	const pct = rs.map((r) => (r.sends ? (100 * r.refused) / r.sends : 0));
	return `| ${rs[0].scenario} | ${SIDE_NAMES[rs[0].side]} | ${stat(rs.map((r) => r.nodeMs), 0)} | ${stat(rs.map((r) => r.itemsPerSecond), 0)} | ${uniq(rs.map((r) => r.sends))} | ${uniq(rs.map((r) => r.refused))} (${stat(pct, 1, ' %')}) | ${uniq(rs.map((r) => r.tokenRequests))} | ${uniq(rs.map((r) => r.delivered))} | ${uniq(rs.map((r) => r.duplicated))} | ${uniq(rs.map((r) => r.missing))} | ${uniq(rs.map((r) => r.inversions))} | ${uniq(rs.map((r) => (r.failed ? 'failed' : 'success')))} |`;
}

const HEADER = [
	'| scenario | node | node time (ms) | items/s (delivered) | sends | refused (429) | token requests | delivered | duplicated | missing | order inversions | execution |',
	'|---|---|---|---|---|---|---|---|---|---|---|---|',
];

function rowsFor(rounds: SendRound[], scenarios: Scenario[]): string[] {
	const lines: string[] = [];
	for (const scenario of scenarios) {
		for (const side of ['workplaceBot', 'httpRequest', 'httpRequestRetry'] as const) {
			const rs = rounds.filter((r) => r.scenario === scenario && r.side === side);
			if (rs.length) lines.push(row(rs));
		}
	}
	return lines;
}

/** Writes the (e) chart of the median Workplace Bot round and the HTTP Request rounds; returns its file name. */
function writeChart(rounds: SendRound[], label: string): string | undefined {
	const limited = rounds.filter((r) => r.scenario === 'rate limit');
	if (!limited.length) return undefined;
	const pick = (side: Side) => {
		const rs = limited.filter((r) => r.side === side).sort((a, b) => a.nodeMs - b.nodeMs);
		return rs[Math.floor(rs.length / 2)];
	};
	const colors: Record<Side, string> = { workplaceBot: '#1f77b4', httpRequest: '#d62728', httpRequestRetry: '#ff7f0e' };
	const series = (['workplaceBot', 'httpRequest', 'httpRequestRetry'] as const)
		.map((side) => pick(side))
		.filter((r): r is SendRound => r !== undefined)
		.map((r) => ({
			name: SIDE_NAMES[r.side].replace(', Retry On Fail (3 tries, 1 s)', ', retry'),
			color: colors[r.side],
			points: r.series.map((y, i) => [((i + 0.5) * BUCKET_MS) / 1000, y] as [number, number]),
		}));
	const file = `rate-limit-${label.replace(/[^\w.-]+/g, '-')}.svg`;
	fs.writeFileSync(
		path.join(repoRoot(), 'bench', file),
		lineChart({
			title: `500 sends over 20 conversations, platform limit ${RATE_LIMIT.rate}/s (burst ${RATE_LIMIT.burst}), ${label}`,
			xLabel: 'seconds from the first request',
			yLabel: `delivered per second (${BUCKET_MS} ms buckets)`,
			series,
			lines: [{ y: RATE_LIMIT.rate, label: `platform limit ${RATE_LIMIT.rate}/s`, color: '#2ca02c' }],
		}),
	);
	return file;
}

export function sendSections(rounds: SendRound[], label: string): string[] {
	const lines: string[] = [`## (a) Bot send text: Workplace Bot vs HTTP Request (${label})`, ''];
	lines.push(
		"Manual Trigger → Code (500 items) → the sending node, run by `n8n execute`. Time is the sending node's own execution time as n8n records it (`executionTime`), so n8n's start-up is not counted; items/s counts distinct items delivered. HTTP Request (v4.2, no batching) posts the same JSON to the same endpoint with a Header Auth credential holding a bearer token the bench fetched first; ours fetches its token itself (token requests column). 20 conversations: items go to 20 users in turn (item n to user n mod 20). Order inversions: adjacent arrivals at the platform out of item order, summed over the conversations.",
		'',
		...HEADER,
		...rowsFor(rounds, ['20 conversations', '500 users', 'one chat']),
		'',
	);
	const limited = rounds.filter((r) => r.scenario === 'rate limit');
	if (limited.length) {
		const chart = writeChart(rounds, label);
		lines.push(
			`## (e) Under a platform rate limit (${label})`,
			'',
			`The simulator limits the bot API to ${RATE_LIMIT.rate} requests per second with bursts of ${RATE_LIMIT.burst} (a token bucket, full at the start); beyond it 429 with Retry-After (whole seconds, so 1). The same 500 items over 20 conversations, each side at its defaults; HTTP Request once more with the node setting Retry On Fail (3 tries, 1 s between), which runs the whole node again.`,
			'',
			...HEADER,
			...rowsFor(rounds, ['rate limit']),
			'',
		);
		if (chart) lines.push(`![Delivered per second under the limit](${chart})`, '');
	}
	return lines;
}
