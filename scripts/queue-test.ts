/**
 * `npm run test:queue`: this package in n8n's queue mode, on n8n 1.x and 2.x (QUEUE_TARGETS=1,2).
 *
 * Starts on loopback, for each major: PostgreSQL, Redis, an n8n main process, 2 workers at
 * concurrency 5, 2 webhook processes and nginx in front of them (scripts/lib/queue-cluster.ts;
 * the servers are installed from Debian packages when missing), plus the platform simulator.
 * Everything is stopped by PID at the end, also on failure.
 *
 * Phases:
 * 0. The package (before the phases, always): on n8n 2 every process installed it through
 *    N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV / N8N_COMMUNITY_PACKAGES (name, version, checksum) from
 *    its own local registry (main from the variables, workers and webhook processes from the
 *    record the main process wrote, N8N_REINSTALL_MISSING_PACKAGES): each registry served the
 *    tarball, each user folder holds the version, each log says it installed, main lists it.
 *    On n8n 1.x (no such variables) one install is copied into every user folder.
 * 1. Bot token: 10 webhook-started executions x 100 sends at the same moment, starting with no
 *    stored token: 1,000 messages delivered, none twice, at most one token request per worker.
 *    Then every token expires (the platform answers 401) and the same again.
 * 2. Binary data in `database` mode: a file posted to a webhook process, uploaded to the
 *    knowledge base and downloaded again on a worker: the same sha256 at the platform, in n8n's
 *    binary_data table and through the main process's REST API.
 * 3. Workplace Trigger through nginx (one webhook process per trigger URL): the e2e "trigger
 *    memory" phases (Direct Chats Only, redeliveries, simultaneous pairs, a restart of both
 *    webhook processes); then redeliveries straight to each webhook process (0 runs), and what
 *    happens to simultaneous pairs that bypass the routing (measured, the limit docs/queue-mode.md states).
 * 4. Send and wait: Webhook -> Workplace Bot Send and Wait (approval) -> next node. The Approve
 *    link the platform got, opened through nginx (which sends every /webhook-waiting/ URL of one
 *    execution to the same webhook process): answered once, the next node gets
 *    {data: {approved: true, responder: {source: 'link'}, respondedAt, messageId, groupId, threadId}}, a second click and Decline resume nothing; the main process (no
 *    production webhooks) does not serve the link. Double clicks, the Approve link of a fresh
 *    waiting execution sent twice at the same moment: through nginx one resume each; straight to
 *    both webhook processes (measured, not a promise) the resumes are counted and printed.
 * 5. Send and wait answered in the chat: Workplace Trigger (through nginx) -> Send and Wait (Answer
 *    In: Chat). alice's tap reaches the trigger on a webhook process, which posts it to the resume
 *    URL through nginx (the option Resume Base URL, with the public host n8n signs): one resume on
 *    a worker, the next node gets who answered, the confirmation is posted once; a second tap
 *    resumes nothing and is told the request no longer waits. Times from tap to finished are printed.
 *    Double taps straight to both webhook processes (bypassing the trigger's routing): one resume
 *    each, since both triggers post to the resume URL through nginx.
 * 6. Votes of two approvers in the chat (Approvals Required 2, release topic): alice's and bob's
 *    Approve taps at the same moment, straight to webhook process 1 and 2: each process sees only
 *    its own vote; the trigger's recounts, posted through nginx to its own URL, bring them together.
 *    One resume within 60 s with both in `responders`, one "Approved by" confirmation, a "1 of 2"
 *    reply to each counted tap and nothing else posted, no run started; watched past the last recheck.
 *    The resume time and the recounts and hand-offs nginx passed are printed. Then deciding taps
 *    (carol allowed too): alice's vote counted through nginx, then bob's and carol's Approve at the
 *    same moment straight to webhook process 1 and 2, each deciding with alice's stored vote: one
 *    resume (2 worker jobs, Send and Wait and the next node run once), approved by the tap handed on
 *    first, one confirmation, the other tap told it came too late; watched past alice's last recheck.
 * 7. Reminders and escalation of an in-chat approval (release topic, alice and bob allowed; Remind
 *    Approvers after 1 minute, at most 2; Escalate after 2 minutes in the same chat, carol as
 *    backup). The clock is the Workplace Trigger's trigger() on the main process (the leader); its
 *    ticks go through nginx to the trigger's own URL, whose process posts due questions to the
 *    waiting node. Once the question is in the trigger's static data both webhook processes
 *    restart. The first reminder 60 to 100 s after the question, the escalation (its text and the
 *    question's buttons again, one push) and the second reminder 120 to 160 s after it, each once;
 *    carol's tap then resumes once, the next node says approved by carol; watched 35 s more:
 *    nothing else posted, no run started, the trigger's inChatReminders empty. Exact push bodies;
 *    the seconds, the clock's posts nginx passed and the trigger's log lines are printed.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';

import { nodeRun, parseExecutionData } from '../bench/lib';
import { messageEvent, prepareTap, sendWebhook, startSimulator, type Simulator, type WebhookResult } from '../simulator';
import { SEED } from '../simulator/seed';
import {
	checkMemoryReport,
	describeMemoryReport,
	pool,
	runPhases,
	storedKeyCount,
	triggerWorkflow,
	type TriggerHost,
} from '../test/e2e/scenarios/trigger-memory';
import { pseudoRandomBytes, sha256 } from '../test/e2e/workplace';
import { askWorkflow, BROWSER, executionIdOf, pushedTemplate } from '../test/e2e/scenarios/send-and-wait';
import type { PushedMessage } from '../test/e2e/scenarios/send-and-wait-chat';
import { approvalsWorkflow, asEscalated, escalationMessageOf } from '../test/e2e/scenarios/send-and-wait-chat';
import { decodeAnswerToken } from '../nodes/shared/approvals/tapProtocol';
import { askedAtOf } from '../nodes/shared/approvals/clockProtocol';
import { RECHECK_DELAYS_MS } from '../nodes/shared/approvals/timing';
import { createActiveWorkflowIn, createCredentialIn, questionsStored, storedStaticDataOf, waitForTriggerWebhook } from '../test/e2e/trigger-server';
import { byId, chain, node, PACKAGE } from '../test/e2e/workflow';
import {
	ensureN8n,
	fetchWebhook,
	findInstalled,
	packPackage,
	parseTargetIds,
	settledExecutionCount,
	TARGETS,
	type N8nInstall,
	type TargetId,
} from './lib/n8n';
import { formatDuration, sleep } from './lib/proc';
import {
	clusterOutputTails,
	clusterProcesses,
	executionsPerWorker,
	startQueueCluster,
	workerLogMarks,
	QUEUE_DATABASE,
	type QueueCluster,
} from './lib/queue-cluster';

const log = (m: string) => process.stdout.write(`${m}\n`);
const verbose = process.env.QUEUE_VERBOSE === '1';

const EXECUTIONS = 10;
const SENDS_PER_EXECUTION = 100;
const FILE_BYTES = 3 * 1024 * 1024;
/** Fresh waiting executions whose Approve link goes to both webhook processes at once. */
const DOUBLE_CLICKS = 5;

interface TargetReport {
	target: TargetId;
	ok: boolean;
	lines: string[];
	durationMs: number;
	error?: string;
}

function webhookNode(hookPath: string, responseMode: 'onReceived' | 'lastNode') {
	return node('Webhook', 'n8n-nodes-base.webhook', 2, {
		httpMethod: 'POST',
		path: hookPath,
		responseMode,
		...(responseMode === 'lastNode' ? { responseData: 'firstEntryJson' } : {}),
		options: {},
	}, { after: [], settings: { webhookId: hookPath } });
}

/** A credential created through the main process's REST API, for node specs. */
async function restCredential(cluster: QueueCluster, name: string, type: string, data: Record<string, unknown>) {
	return { id: await createCredentialIn(cluster.main, name, type, data), name, type, data: () => data };
}

// ---------------------------------------------------------------------------------------------
// 0. n8n 2: the package installed by environment (N8N_COMMUNITY_PACKAGES) in every process

async function packageByEnvCheck(cluster: QueueCluster, lines: string[]): Promise<void> {
	const env = cluster.packageByEnv;
	if (!env) {
		lines.push('package: one Community Nodes install copied into every user folder (n8n 1.x has no N8N_COMMUNITY_PACKAGES)');
		return;
	}
	const { name, version } = env;
	const servers = new Map(clusterProcesses(cluster).map((p) => [p.name, p.server]));
	const fetched: string[] = [];
	for (const { process: proc, userFolder, registry } of env.processes) {
		const server = servers.get(proc);
		assert.ok(server, `no process ${proc}`);
		const output = server.output();
		const tarballs = registry.requests.filter((r) => r.served === 'tarball' && r.status === 200).length;
		assert.ok(tarballs >= 1, `${proc}: its registry served no tarball: ${JSON.stringify(registry.requests)}`);
		const pj = JSON.parse(fs.readFileSync(path.join(userFolder, '.n8n', 'nodes', 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
		assert.equal(pj.version, version, `${proc}: installed version in its user folder`);
		assert.ok(output.includes(`Community package installed: ${name}`), `${proc}: n8n did not log "Community package installed: ${name}"`);
		assert.ok(!/Failed to (re)?install community package/.test(output), `${proc}: n8n logged a failed install`);
		if (proc === 'main') {
			assert.ok(output.includes(`Installed community package '${name}@${version}' from env`), 'main: no "Installed community package … from env" in its log');
		} else {
			assert.ok(output.includes('Attempting to reinstall missing packages'), `${proc}: did not install the package recorded by the main process`);
		}
		fetched.push(`${proc} ${tarballs}`);
	}
	const listed = await cluster.main.rest<Array<{ packageName: string; installedVersion: string }>>('GET', '/community-packages');
	assert.deepEqual(
		listed.map((p) => `${p.packageName}@${p.installedVersion}`),
		[`${name}@${version}`],
		'GET /rest/community-packages on the main process',
	);
	lines.push(
		`package by environment: N8N_COMMUNITY_PACKAGES=${env.value.replace(env.integrity, `${env.integrity.slice(0, 16)}…`)}; ${name}@${version} installed from the registry in every user folder, tarball downloads per process: ${fetched.join(', ')}`,
	);
}

// ---------------------------------------------------------------------------------------------
// 1. Bot: one token request per worker

async function botPhase(cluster: QueueCluster, sim: Simulator, lines: string[]): Promise<void> {
	const credentials = await restCredential(cluster, 'Workplace Bot (queue)', 'workplaceBotOAuth2Api', {
		baseUrl: sim.url,
		clientId: sim.credentials.botClientId,
		clientSecret: sim.credentials.botClientSecret,
	});
	const hook = randomUUID();
	const workflowId = await createActiveWorkflowIn(cluster.main, 'queue: bot sends', chain([
		webhookNode(hook, 'onReceived'),
		node('Messages', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'body.messages', options: {} }),
		node('Send', `${PACKAGE}.workplaceBot`, 1, {
			resource: 'directMessage',
			operation: 'sendText',
			userId: byId('={{ $json.uid }}'),
			text: '={{ $json.text }}',
		}, { credentials }),
	]));
	const url = cluster.webhookUrl(hook);
	const uids = [SEED.users.alice._id, SEED.users.bob._id, SEED.users.carol._id];
	let executions = 0;

	const round = async (name: string) => {
		sim.log.clear();
		sim.state.clearMessages();
		const since = workerLogMarks(cluster);
		const texts: string[] = [];
		const bodies = Array.from({ length: EXECUTIONS }, (_, run) => ({
			messages: Array.from({ length: SENDS_PER_EXECUTION }, (_, i) => {
				const text = `${name} run ${run} message ${i}`;
				texts.push(text);
				return { uid: uids[(run + i) % uids.length], text };
			}),
		}));
		const answers = await Promise.all(bodies.map((body) =>
			fetchWebhook(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
		));
		for (const a of answers) assert.equal(a.status, 200, `webhook answered ${a.status}: ${a.text}`);
		executions += EXECUTIONS;
		const count = await settledExecutionCount(cluster.main, workflowId, 2000);
		assert.equal(count, executions, `${name}: executions`);
		const failed = (await cluster.main.executions({ workflowId, status: ['error', 'crashed', 'canceled'] })).count;
		assert.equal(failed, 0, `${name}: failed executions`);
		const requests = sim.log.all();
		const tokenRequests = requests.filter((r) => r.interface === 'oauth').length;
		const sends = requests.filter((r) => r.path === '/bot/v1/direct/message');
		const accepted = sends.filter((r) => r.status >= 200 && r.status < 300).length;
		const refused = sends.filter((r) => r.status === 401).length;
		const delivered = sim.state.sentMessages().map((m) => String((m.content as { text?: unknown }).text));
		const perWorker = executionsPerWorker(cluster, since);
		lines.push(`bot, ${name}: ${EXECUTIONS} executions x ${SENDS_PER_EXECUTION} sends (per worker: ${perWorker.join(' + ')}): ` +
			`${delivered.length} delivered, ${new Set(delivered).size} distinct, ${accepted} sends accepted, ${refused} answered 401, ${tokenRequests} token requests`);
		assert.equal(delivered.length, EXECUTIONS * SENDS_PER_EXECUTION, `${name}: messages delivered`);
		assert.deepEqual([...new Set(delivered)].sort(), [...texts].sort(), `${name}: every message once`);
		assert.equal(accepted, EXECUTIONS * SENDS_PER_EXECUTION, `${name}: sends accepted`);
		assert.ok(tokenRequests >= 1 && tokenRequests <= cluster.workers.length, `${name}: ${tokenRequests} token requests (want 1..${cluster.workers.length})`);
	};

	await round('no stored token');
	sim.expireTokens();
	await round('every token expired');
}

// ---------------------------------------------------------------------------------------------
// 2. Binary data in database mode

async function binaryPhase(cluster: QueueCluster, inst: N8nInstall, sim: Simulator, lines: string[]): Promise<void> {
	const credentials = await restCredential(cluster, 'Workplace Knowledge (queue)', 'workplaceKnowledgeApi', {
		knowledgeUrl: sim.knowledgeUrl,
		apiKey: sim.credentials.knowledgeApiKey,
	});
	const hook = randomUUID();
	const base = { __rl: true, mode: 'id', value: SEED.knowledge.empty.id };
	const workflowId = await createActiveWorkflowIn(cluster.main, 'queue: knowledge file', chain([
		webhookNode(hook, 'lastNode'),
		node('Upload', `${PACKAGE}.workplaceKnowledge`, 1, {
			resource: 'file',
			operation: 'upload',
			knowledgeBaseId: base,
			binaryPropertyName: 'data',
			options: { fileName: 'queue-mode.pdf' },
		}, { credentials }),
		node('Download', `${PACKAGE}.workplaceKnowledge`, 1, {
			resource: 'file',
			operation: 'download',
			knowledgeBaseId: base,
			fileId: { __rl: true, mode: 'id', value: "={{ $('Upload').first().json.id }}" },
			binaryPropertyName: 'downloaded',
		}, { credentials }),
	]));
	const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), pseudoRandomBytes(FILE_BYTES - 9, 12)]);
	const want = sha256(bytes);
	sim.log.clear();
	const started = Date.now();
	// The Webhook node binary property is 'data' (its default); the body is a plain byte stream.
	const answer = await fetchWebhook(cluster.webhookUrl(hook), {
		method: 'POST',
		headers: { 'content-type': 'application/pdf' },
		body: new Uint8Array(bytes),
	});
	const tookMs = Date.now() - started;
	if (answer.status !== 200) {
		const [failed] = (await cluster.main.executions({ workflowId }, 1)).results;
		const data = failed ? parseExecutionData(inst, (await cluster.main.rest<{ data?: unknown }>('GET', `/executions/${failed.id}`)).data) : undefined;
		const error = (data as { resultData?: { error?: unknown; lastNodeExecuted?: string } } | undefined)?.resultData;
		assert.fail(`file webhook answered ${answer.status}: ${answer.text.slice(0, 300)}; ${error?.lastNodeExecuted}: ${JSON.stringify(error?.error).slice(0, 1500)}`);
	}

	const upload = sim.log.all().find((r) => r.method === 'POST' && /\/files$/.test(r.path));
	const atPlatform = (upload as { multipart?: { files: Array<{ sha256: string; size: number }> } } | undefined)?.multipart?.files[0];
	assert.ok(atPlatform, `the platform received no upload: ${JSON.stringify(sim.log.all().map((r) => `${r.method} ${r.path}`))}`);
	assert.equal(atPlatform.size, FILE_BYTES, 'bytes at the platform');
	assert.equal(atPlatform.sha256, want, 'sha256 at the platform');

	const [execution] = (await cluster.main.executions({ workflowId }, 1)).results;
	const full = await cluster.main.rest<{ data?: unknown }>('GET', `/executions/${execution.id}`);
	const ref = nodeRun(inst, full, 'Download')?.data?.main?.[0]?.[0]?.binary?.downloaded as { id?: string } | undefined;
	const binaryId = ref?.id ?? '';
	assert.ok(binaryId.startsWith('database:'), `the downloaded file is not kept in the database: ${JSON.stringify(ref)}`);
	const fileId = binaryId.slice('database:'.length);
	const stored = await cluster.postgres.query(QUEUE_DATABASE, `select encode(sha256(data), 'hex') || ' ' || octet_length(data) from binary_data where "fileId" = '${fileId.replace(/'/g, "''")}'`);
	assert.equal(stored, `${want} ${FILE_BYTES}`, "sha256 and size in n8n's binary_data table");
	const viaMain = await cluster.main.fetch(`/rest/binary-data?id=${encodeURIComponent(binaryId)}&action=download`);
	const mainBytes = Buffer.from(await viaMain.arrayBuffer());
	assert.equal(viaMain.status, 200, `GET /rest/binary-data answered ${viaMain.status}`);
	assert.equal(sha256(mainBytes), want, 'sha256 read back through the main process');
	const rows = await cluster.postgres.query(QUEUE_DATABASE, 'select count(*) from binary_data');
	lines.push(`binary (database mode): ${FILE_BYTES / 1024 / 1024} MiB posted to a webhook process, uploaded and downloaded on a worker in ${formatDuration(tookMs)}: ` +
		`sha256 equal at the platform, in binary_data (${rows} rows) and through the main process`);
}

// ---------------------------------------------------------------------------------------------
// 3. Trigger

async function triggerPhases(cluster: QueueCluster, sim: Simulator, lines: string[]): Promise<void> {
	const secret = sim.credentials.webhookSecret;
	const host: TriggerHost = {
		createCredential: (name, type, data) => createCredentialIn(cluster.main, name, type, data),
		createActiveWorkflow: (name, workflow) => createActiveWorkflowIn(cluster.main, name, workflow),
		webhookUrl: (webhookId, webhookPath) => cluster.webhookUrl(webhookId, webhookPath),
		waitForWebhook: waitForTriggerWebhook,
		executionCount: (workflowId, quietMs) => settledExecutionCount(cluster.main, workflowId, quietMs),
		storedStaticData: (workflowId) => storedStaticDataOf(cluster.main, workflowId),
		restart: () => cluster.restartWebhookProcesses(),
	};
	const report = await runPhases(host, secret, 'PostgreSQL, queue mode');
	lines.push(...describeMemoryReport(report).map((l) => `trigger: ${l}`));
	checkMemoryReport(report);

	// Redeliveries straight to each webhook process, and pairs that bypass nginx's routing.
	const secretId = await host.createCredential('Workplace webhook secret (queue)', 'workplaceWebhookApi', { secret });
	const hook = randomUUID();
	const workflowId = await host.createActiveWorkflow('queue: trigger routing', triggerWorkflow(hook, { events: ['message'] }, secretId));
	const viaNginx = host.webhookUrl(hook, 'webhook');
	await host.waitForWebhook(viaNginx);
	const direct = cluster.webhookProcesses.map((_, i) => cluster.directWebhookUrl(i, hook, 'webhook'));
	const send = async (url: string, event: object): Promise<WebhookResult> => {
		const result = await sendWebhook(url, { kind: 'bot', events: [event as never] }, { secret });
		assert.equal(result.status, 200, `delivery answered ${result.status}: ${result.body}`);
		return result;
	};
	let total = 0;
	const runsSince = async () => {
		const now = await host.executionCount(workflowId, 1000);
		const added = now - total;
		total = now;
		return added;
	};
	const events = Array.from({ length: 100 }, (_, i) => messageEvent({ messageId: `queue-routing-${i}` }));
	await pool(10, events.map((e) => () => send(viaNginx, e)));
	const first = await runsSince();
	// A platform redelivers seconds later, not in the same instant: wait until every key of the
	// first pass is in the database (a rare race showed one still unsaved right after the runs).
	for (let waited = 0; waited < 15_000; waited += 250) {
		if (storedKeyCount(await storedStaticDataOf(cluster.main, workflowId)) >= events.length) break;
		await sleep(250);
	}
	const again: number[] = [];
	for (const url of direct) {
		await pool(10, events.map((e) => () => send(url, e)));
		again.push(await runsSince());
	}
	const stored = storedKeyCount(await storedStaticDataOf(cluster.main, workflowId));
	lines.push(`trigger routing: 100 events through nginx +${first} runs; the same 100 straight to each webhook process +${again.join(', +')} runs; ${stored} keys stored`);
	assert.equal(first, 100, 'runs of 100 events through nginx');
	for (const [i, n] of again.entries()) assert.equal(n, 0, `redeliveries straight to webhook process ${i + 1}`);

	// Not routed: each event to both processes at the same moment (the limit docs/queue-mode.md states).
	const unrouted = Array.from({ length: 30 }, (_, i) => messageEvent({ messageId: `queue-unrouted-${i}` }));
	await pool(5, unrouted.map((e) => () => Promise.all(direct.map((url) => send(url, e)))));
	const unroutedRuns = await runsSince();
	const keysAfter = storedKeyCount(await storedStaticDataOf(cluster.main, workflowId));
	lines.push(`trigger without routing (measured, not a promise): 30 events each sent to both webhook processes at the same moment: +${unroutedRuns} runs; ${keysAfter} of 130 keys stored`);
	assert.ok(unroutedRuns >= 30 && unroutedRuns <= 60, `unrouted pairs gave ${unroutedRuns} runs`);
}

// ---------------------------------------------------------------------------------------------
// 4. Send and wait

interface Answer {
	status: number;
	text: string;
}

/**
 * A browser's GET of a resume URL sent to another address (nginx, one webhook process) with the
 * link's own Host header, as when the link's host name points at that address: n8n 1.x signs the
 * host with the path and query (2.x only the path and query). The processes' WEBHOOK_URL is
 * QUEUE_PUBLIC_URL.
 */
function openAt(link: string, origin: string): Promise<Answer> {
	const url = new URL(link);
	return new Promise((resolve, reject) => {
		const req = http.request(
			`${origin}${url.pathname}${url.search}`,
			{ headers: { host: url.host, 'user-agent': BROWSER, accept: 'text/html' }, agent: false, timeout: 30_000 },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
				res.on('error', reject);
			},
		);
		req.on('timeout', () => req.destroy(new Error(`GET ${origin}${url.pathname} timed out`)));
		req.on('error', reject);
		req.end();
	});
}

/** What a resume page says: the node's "Thank you" or "Already answered" page, or n8n's own answer. */
function pageKind(p: Answer): string {
	if (/was recorded/.test(p.text)) return `${p.status} recorded`;
	if (/already recorded/.test(p.text)) return `${p.status} already answered`;
	return `${p.status} ${p.text.replace(/\s+/g, ' ').slice(0, 80)}`;
}

/** The execution's status as the main process reports it. */
async function statusNow(cluster: QueueCluster, executionId: string): Promise<string> {
	return (await cluster.main.rest<{ status: string }>('GET', `/executions/${executionId}`)).status;
}

/** Polls the execution until it has one of the statuses (or 60 s); returns the last status. */
async function statusOf(cluster: QueueCluster, executionId: string, want: string[], pollMs = 200): Promise<string> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const status = await statusNow(cluster, executionId);
		if (want.includes(status) || Date.now() > deadline) return status;
		await sleep(pollMs);
	}
}

/** How many jobs the workers started for the execution (its first run, then one per resume). */
function jobsOf(cluster: QueueCluster, executionId: string): number {
	return cluster.workers.reduce((n, w) => n + (w.output().match(new RegExp(`Worker started execution ${executionId} \\(`, 'g'))?.length ?? 0), 0);
}

async function sendAndWaitPhase(cluster: QueueCluster, inst: N8nInstall, sim: Simulator, lines: string[]): Promise<void> {
	const credential = await restCredential(cluster, 'Workplace Bot (queue send and wait)', 'workplaceBotOAuth2Api', {
		baseUrl: sim.url,
		clientId: sim.credentials.botClientId,
		clientSecret: sim.credentials.botClientSecret,
	});
	const hook = randomUUID();
	const workflowId = await createActiveWorkflowIn(cluster.main, 'queue: send and wait', askWorkflow(hook, {
		message: '={{ $json.body.message }}',
		responseType: 'approval',
		approvalOptions: { values: { approvalType: 'double' } },
	}, credential));

	/** Starts an execution through nginx; returns its execution id and the Approve and Decline links. */
	const ask = async (message: string) => {
		const answer = await fetchWebhook(cluster.webhookUrl(hook), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ message }),
		});
		assert.equal(answer.status, 200, `webhook answered ${answer.status}: ${answer.text}`);
		const [approve, decline] = (await pushedTemplate(sim.log, message, 60_000)).actions;
		const executionId = executionIdOf(approve.linkUri);
		await statusOf(cluster, executionId, ['waiting']);
		return { executionId, approve: approve.linkUri, decline: decline.linkUri };
	};
	const afterItems = async (executionId: string) => {
		const full = await cluster.main.rest<{ data?: unknown }>('GET', `/executions/${executionId}`);
		return nodeRun(inst, full, 'After')?.data?.main?.[0]?.map((i) => i.json);
	};
	/** Waits until the workers' job count for the execution stayed the same for 3 s. */
	const settledJobs = async (executionId: string) => {
		let last = -1;
		let since = Date.now();
		for (;;) {
			const n = jobsOf(cluster, executionId);
			if (n !== last) {
				last = n;
				since = Date.now();
			} else if (Date.now() - since >= 3_000 && !['new', 'running'].includes(await statusNow(cluster, executionId))) {
				return n;
			}
			await sleep(250);
		}
	};

	// Through nginx: one click resumes, a second click and Decline do not.
	const first = await ask('Approve the queue-mode expense?');
	// The main process serves no production webhook here (N8N_DISABLE_PRODUCTION_MAIN_PROCESS): nor resume URLs.
	const atMain = await openAt(first.approve, cluster.main.url);
	const afterMain = await statusNow(cluster, first.executionId);
	lines.push(`send and wait: the Approve link opened at the main process: ${pageKind(atMain)} execution still ${afterMain}`);
	assert.equal(afterMain, 'waiting', 'the execution after the link was opened at the main process');
	const click = await openAt(first.approve, cluster.nginx.url);
	if (verbose) log(`    click through nginx: ${pageKind(click)}; ${first.approve}`);
	const status = await statusOf(cluster, first.executionId, ['success', 'error', 'crashed']);
	const after = await afterItems(first.executionId);
	const again = await openAt(first.approve, cluster.nginx.url);
	const decline = await openAt(first.decline, cluster.nginx.url);
	const jobs = await settledJobs(first.executionId);
	const afterAgain = await afterItems(first.executionId);
	const executions = await settledExecutionCount(cluster.main, workflowId, 1000);
	lines.push(`send and wait through nginx: click Approve ${pageKind(click)}, execution ${first.executionId} ${status}, next node got ${JSON.stringify(after)}; ` +
		`second click ${pageKind(again)}, Decline ${pageKind(decline)}; worker jobs for the execution ${jobs} (run + resume), executions ${executions}`);
	assert.equal(click.status, 200, 'the click through nginx');
	assert.match(click.text, /was recorded/, 'the click is answered with the "recorded" page');
	assert.equal(status, 'success', 'the execution after the click');
	assert.match(
		JSON.stringify(after),
		/^\[\{"data":\{"approved":true,"responder":\{"source":"link"\},"respondedAt":"\d{4}-\d\d-\d\dT[\d:.]+Z","messageId":"[^"]+","groupId":"[^"]+","threadId":"[^"]+"\}\}\]$/,
		'what the node after Send and Wait got',
	);
	assert.deepEqual(afterAgain, after, 'output unchanged after the second click and Decline');
	assert.equal(jobs, 2, 'worker jobs: the first run and one resume');
	assert.equal(executions, 1, 'executions of the workflow');

	// Double clicks: the same Approve link of a fresh waiting execution sent twice at the same moment.
	const doubleClicks = async (label: string, origins: [string, string]) => {
		const resumes: number[] = [];
		const answers: string[] = [];
		const outcomes: string[] = [];
		for (let i = 0; i < DOUBLE_CLICKS; i++) {
			const { executionId, approve } = await ask(`Double click ${i + 1} ${label}: approve?`);
			const pages = await Promise.all(origins.map((origin) => openAt(approve, origin)));
			const final = await statusOf(cluster, executionId, ['success', 'error', 'crashed']);
			resumes.push((await settledJobs(executionId)) - 1);
			answers.push(pages.map(pageKind).join(' + '));
			outcomes.push(`${final} ${JSON.stringify(await afterItems(executionId))}`);
		}
		const twice = resumes.filter((n) => n > 1).length;
		lines.push(`send and wait, ${DOUBLE_CLICKS} double clicks ${label}: resumes per execution ${resumes.join(', ')} (${twice} of ${DOUBLE_CLICKS} resumed twice); ` +
			`pages ${[...new Set(answers)].map((a) => `[${a}]`).join(' ')}; executions ended ${[...new Set(outcomes)].join(' / ')}`);
		return resumes;
	};
	const routed = await doubleClicks('through nginx', [cluster.nginx.url, cluster.nginx.url]);
	assert.deepEqual(routed, routed.map(() => 1), 'through nginx both clicks reach one webhook process: one resume each');
	// Not routed (measured, not a promise): straight to both webhook processes.
	const unrouted = await doubleClicks('straight to both webhook processes (measured, not a promise)', [
		cluster.webhookProcesses[0].url,
		cluster.webhookProcesses[1].url,
	]);
	assert.ok(unrouted.every((n) => n >= 1 && n <= 2), `resumes per unrouted double click: ${unrouted.join(', ')}`);
}

const IN_CHAT_TAPS = 5;
const IN_CHAT_DOUBLE_TAPS = 3;

type PushBody = { gid?: string; tid?: string; messages?: Array<{ type?: string; text?: string; template?: unknown }> };

/** The bodies of the bot's pushes the simulator received, in order. */
function pushBodies(sim: Simulator): PushBody[] {
	return sim.log.find({ method: 'POST', path: '/bot/v2/message/push' }).map((r) => r.body as PushBody);
}

/** The text pushes the bot posted in one chat or topic, in order. */
function textsIn(sim: Simulator, gid: string, tid?: string): Array<string | undefined> {
	return pushBodies(sim)
		.filter((b) => b.gid === gid && (tid === undefined || b.tid === tid) && b.messages?.[0]?.type === 'text')
		.map((b) => b.messages?.[0]?.text);
}

/**
 * The in-chat approvals workflow (test/e2e/scenarios/send-and-wait-chat.ts), active, its trigger
 * handing taps on to the resume URL through nginx; `ask` sends a question through the trigger and
 * returns the waiting execution and the message holding its buttons.
 */
async function inChatWorkflow(cluster: QueueCluster, sim: Simulator, name: string, release: Record<string, unknown> = {}) {
	const secret = sim.credentials.webhookSecret;
	const secretCred = { id: await createCredentialIn(cluster.main, `Workplace webhook secret (${name})`, 'workplaceWebhookApi', { secret }), name: `Workplace webhook secret (${name})` };
	const botCred = {
		id: await restCredential(cluster, `Workplace Bot (${name})`, 'workplaceBotOAuth2Api', {
			baseUrl: sim.url,
			clientId: sim.credentials.botClientId,
			clientSecret: sim.credentials.botClientSecret,
		}).then((c) => c.id),
		name: `Workplace Bot (${name})`,
	};
	const hook = randomUUID();
	// The public URL (WEBHOOK_URL) does not resolve here: taps go to nginx, with the public host.
	const workflow = approvalsWorkflow(hook, { secret: secretCred, bot: botCred }, { resumeBaseUrl: `${cluster.nginx.url}/webhook-waiting` }, release);
	const workflowId = await createActiveWorkflowIn(cluster.main, `queue: ${name}`, workflow);
	const url = cluster.webhookUrl(hook, 'webhook');
	await waitForTriggerWebhook(url);
	sim.configure({ botWebhookUrl: url, botWebhookSecret: secret });

	/** Asks through the trigger (alice's direct chat unless `where` names a group topic). */
	const ask = async (question: string, where: { groupId?: string; topicId?: string } = {}) => {
		const sent = await sendWebhook(url, { kind: 'bot', events: [messageEvent({ text: question, ...where })] }, { secret });
		assert.equal(sent.status, 200, `the question was answered ${sent.status} ${sent.body}`);
		const template = await pushedTemplate(sim.log, question, 60_000);
		const data = (template.actions[0] as unknown as { data: string }).data;
		const executionId = decodeAnswerToken(data)?.executionId ?? '';
		assert.equal(await statusOf(cluster, executionId, ['waiting'], 100), 'waiting', 'the execution waits for the answer');
		const sentMessage = sim.state.sentMessages().find((m) => JSON.stringify(m.content).includes(data));
		return { executionId, messageId: sentMessage?.id, sentMessage };
	};
	/** Every execution of the workflow, whatever its status. */
	const runs = async () =>
		(await cluster.main.executions({ workflowId, status: ['new', 'running', 'waiting', 'success', 'error', 'crashed', 'canceled'] }, 100)).results.length;
	return { secret, hook, url, workflowId, ask, runs };
}

async function inChatPhase(cluster: QueueCluster, inst: N8nInstall, sim: Simulator, lines: string[]): Promise<void> {
	const { hook, ask, runs: recorded } = await inChatWorkflow(cluster, sim, 'in-chat approvals');
	const aliceChat = SEED.directChats.alice;
	const replies = () => textsIn(sim, aliceChat.gid);

	const times: number[] = [];
	for (let i = 0; i < IN_CHAT_TAPS; i++) {
		const { executionId, messageId } = await ask(`direct Approve queue expense ${i + 1}?`);
		const repliesBefore = replies().length;
		const started = Date.now();
		const tap = await sim.tap({ messageId, label: 'Approve', user: 'alice' });
		const final = await statusOf(cluster, executionId, ['success', 'error', 'crashed'], 100);
		times.push(Date.now() - started);
		const full = await cluster.main.rest<{ data?: unknown }>('GET', `/executions/${executionId}`);
		const after = nodeRun(inst, full, 'After Alice')?.data?.main?.[0]?.map((item) => item.json);
		const again = await sim.tap({ messageId, label: 'Decline', user: 'alice' });
		await sleep(2_000);
		const jobs = jobsOf(cluster, executionId);
		const posted = replies().slice(repliesBefore);
		if (i === 0 || verbose) {
			lines.push(`send and wait in chat through nginx: tap ${tap.status} ${tap.body}; execution ${executionId} ${final}, next node got ${JSON.stringify(after)}; ` +
				`second tap ${again.status} ${again.body}; worker jobs ${jobs} (run + resume); posted ${JSON.stringify(posted)}`);
		}
		assert.equal(tap.status, 200, 'the tap through nginx');
		assert.match(tap.body, /\(resumed\)/, 'the trigger handed the tap on and the execution resumed');
		assert.equal(final, 'success', 'the execution after the tap');
		const sent = sim.state.sentMessages().find((m) => m.id === messageId);
		assert.deepEqual(
			after,
			[
				{
					data: {
						approved: true,
						responder: { id: SEED.users.alice._id, username: 'alice', source: 'chat' },
						respondedAt: tap.event.timestamp,
						messageId,
						groupId: sent?.groupId,
						threadId: sent?.threadId,
					},
				},
			],
			'what the next node got',
		);
		assert.match(again.body, /\(notWaiting\)/, 'the second tap resumes nothing');
		assert.equal(jobs, 2, 'worker jobs: the first run and one resume');
		assert.deepEqual(posted, ['Approved by alice', 'This request is no longer waiting for an answer.'], 'what the bot posted');
	}
	// Double taps that bypass the trigger's routing: each tap straight to another webhook process.
	// Both triggers post to the resume URL through nginx, which sends one execution's URLs to one
	// webhook process: the waiting node there takes the first answer.
	const doubleTaps: string[] = [];
	for (let i = 0; i < IN_CHAT_DOUBLE_TAPS; i++) {
		const { executionId, messageId } = await ask(`direct Approve queue double tap ${i + 1}?`);
		const repliesBefore = replies().length;
		const taps = await Promise.all(
			cluster.webhookProcesses.map((_, p) => sim.tap({ messageId, label: 'Approve', user: 'alice', webhookUrl: cluster.directWebhookUrl(p, hook, 'webhook') })),
		);
		const final = await statusOf(cluster, executionId, ['success', 'error', 'crashed'], 100);
		await sleep(2_000);
		const jobs = jobsOf(cluster, executionId);
		const posted = replies().slice(repliesBefore);
		doubleTaps.push(`${final}, ${jobs - 1} resume(s), outcomes ${taps.map((t) => /\((\w+)\)/.exec(t.body)?.[1] ?? t.status).join(' + ')}, posted ${JSON.stringify(posted)}`);
		assert.equal(jobs, 2, `double tap ${i + 1}: one resume (worker jobs: the run and one resume)`);
		assert.equal(posted.filter((t) => t === 'Approved by alice').length, 1, `double tap ${i + 1}: one confirmation`);
	}
	lines.push(`send and wait in chat, ${IN_CHAT_DOUBLE_TAPS} double taps straight to both webhook processes: ${doubleTaps.join('; ')}`);

	const sorted = [...times].sort((a, b) => a - b);
	lines.push(`send and wait in chat: ${IN_CHAT_TAPS} taps through nginx, each resumed once; tap to execution finished ${sorted.map((t) => `${t} ms`).join(', ')} (median ${sorted[Math.floor(sorted.length / 2)]} ms)`);
	const runs = await recorded();
	const questions = IN_CHAT_TAPS + IN_CHAT_DOUBLE_TAPS;
	lines.push(`send and wait in chat: ${runs} executions recorded for ${questions} questions and ${questions * 2} taps`);
	assert.equal(runs, questions, 'the taps started no run');
}

/**
 * The two-approver case watches this long after the simultaneous taps: past the trigger's second
 * recheck, so a late recount that resumed or posted again shows (the third comes after any older
 * copy was saved, minutes later, and finds the question done).
 */
const VOTES_WATCH_MS = RECHECK_DELAYS_MS[1] + 10_000;
/** The execution must resume within this after the simultaneous taps. */
const VOTES_RESUME_MS = 60_000;

type VotesChat = Awaited<ReturnType<typeof inChatWorkflow>>;

/**
 * Two people's Approve taps at the same moment, each straight to its own webhook process (the
 * signed deliveries prepared first, as the simulator's tap signs them); then the execution's
 * status, watched until `VOTES_WATCH_MS` after `watchFrom` (default: the taps): the workers' jobs
 * and what the next node got.
 */
async function tapsOnBothProcesses(
	cluster: QueueCluster,
	inst: N8nInstall,
	sim: Simulator,
	chat: VotesChat,
	executionId: string,
	messageId: string | undefined,
	users: Array<'alice' | 'bob' | 'carol'>,
	watchFrom?: number,
) {
	const voters = users.map((user, p) => ({ user, process: p, event: prepareTap(sim.state, { messageId, label: 'Approve', user }).event }));
	const started = Date.now();
	const taps = await Promise.all(voters.map((v) => sendWebhook(cluster.directWebhookUrl(v.process, chat.hook, 'webhook'), { kind: 'bot', events: [v.event] }, { secret: chat.secret })));
	const final = await statusOf(cluster, executionId, ['success', 'error', 'crashed'], 100);
	const resumedAfter = Date.now() - started;
	await sleep(Math.max(0, (watchFrom ?? started) + VOTES_WATCH_MS - Date.now()));
	const full = await cluster.main.rest<{ data?: unknown }>('GET', `/executions/${executionId}`);
	return {
		voters,
		started,
		taps,
		outcomes: taps.map((t) => /\((\w+)\)/.exec(t.body)?.[1] ?? `status ${t.status}`),
		final,
		resumedAfter,
		jobs: jobsOf(cluster, executionId),
		full,
		after: nodeRun(inst, full, 'After Release')?.data?.main?.[0]?.map((item) => item.json) ?? [],
	};
}

/**
 * Two approvers in the release topic (Approvals Required 2, alice and bob allowed): alice's and
 * bob's Approve taps, signed as the simulator's tap signs them, sent at the same moment straight to
 * webhook process 1 and webhook process 2. Each process sees only its own vote ("1 of 2" twice,
 * unless one of them already reads the other's tap in the stored static data); the trigger's
 * recounts (posted through nginx to its own URL) bring the two together: one resume with both in
 * `responders`, one confirmation, no run started. The requests nginx passed after the taps (the
 * recounts, the hand-offs to the resume URL) are printed with their times.
 */
async function inChatVotesPhase(cluster: QueueCluster, inst: N8nInstall, sim: Simulator, lines: string[]): Promise<void> {
	const chat = await inChatWorkflow(cluster, sim, 'in-chat votes', { approvalsRequired: 2, allowedApprovers: 'alice, bob, carol' });
	const { hook, ask, runs, workflowId } = chat;
	const project = SEED.groups.project;
	const topic = project.topics.release;
	const question = 'group Ship the queue release with two approvals?';
	const { executionId, messageId, sentMessage } = await ask(question, { groupId: project._id, topicId: topic._id });
	const asked = pushBodies(sim).find((b) => JSON.stringify(b.messages?.[0]?.template ?? null).includes(question));
	const buttons = (asked?.messages?.[0]?.template as { actions?: Array<{ type?: string; label?: string; data?: string }> } | undefined)?.actions ?? [];
	assert.deepEqual([asked?.gid, asked?.tid], [project._id, topic._id], 'the question was pushed to the release topic');
	assert.deepEqual(buttons.map((a) => `${a.type} ${a.label} ${decodeAnswerToken(a.data ?? '')?.executionId}`), [`postback Approve ${executionId}`, `postback Decline ${executionId}`], 'the buttons of the question');
	assert.deepEqual([sentMessage?.groupId, sentMessage?.threadId], [project._id, topic._id], 'the question as the platform recorded it');

	const pushesBefore = pushBodies(sim).length;
	const { voters, started, taps, outcomes, final, resumedAfter, jobs, after } = await tapsOnBothProcesses(cluster, inst, sim, chat, executionId, messageId, ['alice', 'bob']);
	const posted = pushBodies(sim).slice(pushesBefore);
	const stored = (await storedStaticDataOf(cluster.main, workflowId)) as Record<string, Record<string, unknown> | undefined>;
	// Measured, not a promise: a process still holding taps of a decided question writes them back (approvals/votesStore.ts).
	const keptTaps = Object.values(questionsStored(stored, 'votes') as Record<string, { ballots?: Array<{ delivery: string }> }>)
		.flatMap((entry) => entry.ballots ?? [])
		.map((b) => (JSON.parse(Buffer.from(b.delivery, 'base64').toString('utf8')) as { events: Array<{ source?: { username?: string } }> }).events[0]?.source?.username);
	// What nginx passed after the taps (which went straight to the webhook processes): recounts to the trigger's URL, hand-offs to the resume URL.
	const processOf = (upstream: string) => cluster.webhookProcesses.findIndex((w) => upstream.endsWith(`:${w.port}`)) + 1;
	const passed = cluster.nginx
		.accessLog()
		.filter((a) => a.endedAt > started && (a.uri.startsWith(`/webhook/${hook}/`) || a.uri.startsWith(`/webhook-waiting/${executionId}/`)))
		.sort((a, b) => a.startedAt - b.startedAt);
	const recounts = passed.filter((a) => a.uri.startsWith(`/webhook/${hook}/`));
	const timeline = passed.map((a) => `+${((a.startedAt - started) / 1000).toFixed(1)} s ${a.uri.startsWith('/webhook-waiting/') ? 'hand-off' : 'recount'} -> webhook${processOf(a.upstream)} ${a.status}`);
	const decidedBy = outcomes.includes('resumed')
		? 'a tap itself (its process read the other tap in the stored copy)'
		: resumedAfter < RECHECK_DELAYS_MS[1]
			? `the first recount (${RECHECK_DELAYS_MS[0] / 1000} s after the taps)`
			: `the second recount (${RECHECK_DELAYS_MS[1] / 1000} s after the taps)`;
	lines.push(
		`in-chat votes (Approvals Required 2): alice -> webhook1 ${taps[0].status} (${outcomes[0]}), bob -> webhook2 ${taps[1].status} (${outcomes[1]}) at the same moment (tap times ${Math.abs(Date.parse(voters[0].event.timestamp) - Date.parse(voters[1].event.timestamp))} ms apart); ` +
			`execution ${executionId} ${final} ${resumedAfter} ms after the taps, decided by ${decidedBy}; worker jobs ${jobs} (run + resume) after ${VOTES_WATCH_MS / 1000} s; ` +
			`next node got ${JSON.stringify(after)}`,
	);
	lines.push(`in-chat votes: posted ${JSON.stringify(posted.map((b) => b.messages?.[0]?.text))}; nginx after the taps: ${timeline.join(', ') || 'nothing'}; taps of the decided question left in the stored static data: ${JSON.stringify(keptTaps)}`);

	for (const [i, t] of taps.entries()) assert.equal(t.status, 200, `${voters[i].user}'s tap was answered ${t.status} ${t.body}`);
	assert.ok(['counted,counted', 'counted,resumed'].includes([...outcomes].sort().join(',')), `the taps' outcomes: ${outcomes.join(', ')}`);
	assert.equal(final, 'success', 'the execution after the taps');
	assert.ok(resumedAfter <= VOTES_RESUME_MS, `resumed ${resumedAfter} ms after the taps (at most ${VOTES_RESUME_MS})`);
	assert.equal(jobs, 2, 'worker jobs: the first run and one resume');
	if (!outcomes.includes('resumed')) assert.ok(recounts.some((r) => r.status === 200), 'a recount reached the trigger through nginx (its production URL on the Resume Base URL host)');

	// Both votes, each once, in time order (taps in the same millisecond in either order); the last one listed decided.
	const want = voters.map((v) => ({ id: SEED.users[v.user as 'alice' | 'bob']._id, username: v.user, source: 'chat', approved: true, respondedAt: v.event.timestamp }));
	const data = (after[0] as { data?: { responders?: typeof want } } | undefined)?.data;
	const listed = data?.responders ?? [];
	const byName = (list: typeof want) => [...list].sort((a, b) => a.username.localeCompare(b.username));
	assert.deepEqual(byName(listed), byName(want), `responders: alice and bob, each once: ${JSON.stringify(listed)}`);
	assert.ok(listed.every((r, i) => i === 0 || Date.parse(listed[i - 1].respondedAt) <= Date.parse(r.respondedAt)), 'responders in time order');
	const decider = listed[listed.length - 1];
	assert.deepEqual(
		after,
		[
			{
				data: {
					approved: true,
					responder: { id: decider.id, username: decider.username, source: 'chat' },
					respondedAt: decider.respondedAt,
					messageId,
					groupId: project._id,
					threadId: topic._id,
					responders: listed,
				},
			},
		],
		'what the next node got',
	);

	// The pushes: a "1 of 2" reply to each counted tap and one confirmation, all in the release topic.
	assert.ok(posted.every((b) => b.gid === project._id && b.tid === topic._id && b.messages?.length === 1 && b.messages[0].type === 'text'), `pushes after the taps: ${JSON.stringify(posted)}`);
	const counted = voters.filter((_, i) => outcomes[i] === 'counted').map((v) => `${v.user} approved: 1 of 2 approvals so far`);
	assert.deepEqual(
		posted.map((b) => b.messages?.[0]?.text).sort(),
		[...counted, `Approved by ${decider.username}`].sort(),
		'what the bot posted after the taps',
	);
	assert.equal(await runs(), 1, 'the taps and recounts started no run');
	await decidingTapsCase(cluster, inst, sim, lines, chat);
}

/**
 * Two deciding taps at the same moment on two webhook processes (the same workflow: Approvals
 * Required 2, alice, bob and carol allowed). alice's approval is counted first (through nginx; the
 * trigger's static data holding it is saved when her tap is answered); then bob's and carol's
 * Approve go at the same moment straight to webhook process 1 and 2. Each process reads alice's
 * vote, so each tap decides by itself, and both are handed on through nginx to the one webhook
 * process serving the execution's resume URL. The execution resumes once (the workers' jobs, the
 * Send and Wait node's and the next node's runs), approved by the tap handed on first with alice
 * and that person in `responders`; the confirmation is posted once and the other tap is told the
 * request no longer waits (or was answered). Watched past alice's last recount.
 */
async function decidingTapsCase(cluster: QueueCluster, inst: N8nInstall, sim: Simulator, lines: string[], chat: VotesChat): Promise<void> {
	const project = SEED.groups.project;
	const topic = project.topics.release;
	const { executionId, messageId } = await chat.ask('group Ship the queue hotfix with two approvals?', { groupId: project._id, topicId: topic._id });
	const pushesBefore = pushBodies(sim).length;
	const alice = await sim.tap({ messageId, label: 'Approve', user: 'alice' });
	const aliceAt = Date.now();
	await sleep(1_000);
	const afterAlice = await statusNow(cluster, executionId);
	const { voters: deciders, taps, outcomes, final, resumedAfter, jobs, full, after } = await tapsOnBothProcesses(cluster, inst, sim, chat, executionId, messageId, ['bob', 'carol'], aliceAt);
	const runData = (parseExecutionData(inst, full.data) as { resultData?: { runData?: Record<string, unknown[]> } } | undefined)?.resultData?.runData ?? {};
	const nodeRuns = { ask: runData['Ask Release']?.length ?? 0, next: runData['After Release']?.length ?? 0 };
	const posted = pushBodies(sim).slice(pushesBefore).map((b) => b.messages?.[0]?.text);
	lines.push(
		`in-chat deciding taps: alice ${/\((\w+)\)/.exec(alice.body)?.[1] ?? alice.status} (${afterAlice}); bob -> webhook1 ${taps[0].status} (${outcomes[0]}), carol -> webhook2 ${taps[1].status} (${outcomes[1]}) at the same moment; ` +
			`execution ${executionId} ${final} ${resumedAfter} ms after the taps; worker jobs ${jobs} (run + resume), Send and Wait runs ${nodeRuns.ask}, next node runs ${nodeRuns.next} after ${VOTES_WATCH_MS / 1000} s; ` +
			`next node got ${JSON.stringify(after)}; posted ${JSON.stringify(posted)}`,
	);

	assert.match(alice.body, /\(counted\)/, 'alice\'s tap through nginx is counted');
	assert.equal(afterAlice, 'waiting', 'the execution after alice\'s vote');
	for (const [i, t] of taps.entries()) assert.equal(t.status, 200, `${deciders[i].user}'s tap was answered ${t.status} ${t.body}`);
	const resumed = deciders.filter((_, i) => outcomes[i] === 'resumed');
	const late = deciders.filter((_, i) => ['notWaiting', 'alreadyAnswered'].includes(outcomes[i]));
	assert.ok(resumed.length === 1 && late.length === 1, `one deciding tap resumed, the other was too late: ${outcomes.join(', ')}`);
	assert.equal(final, 'success', 'the execution after the deciding taps');
	assert.equal(jobs, 2, 'worker jobs: the first run and one resume');
	assert.deepEqual(nodeRuns, { ask: 1, next: 1 }, 'the Send and Wait node and the next node ran once');
	const decider = resumed[0];
	const person = (user: 'alice' | 'bob' | 'carol') => ({ id: SEED.users[user]._id, username: user, source: 'chat' });
	assert.deepEqual(
		after,
		[
			{
				data: {
					approved: true,
					responder: person(decider.user),
					respondedAt: decider.event.timestamp,
					messageId,
					groupId: project._id,
					threadId: topic._id,
					responders: [
						{ ...person('alice'), approved: true, respondedAt: alice.event.timestamp },
						{ ...person(decider.user), approved: true, respondedAt: decider.event.timestamp },
					],
				},
			},
		],
		'what the next node got',
	);
	const lateReply = outcomes.includes('notWaiting') ? 'This request is no longer waiting for an answer.' : 'This request was already answered.';
	assert.deepEqual(
		[...posted].sort(),
		['alice approved: 1 of 2 approvals so far', `Approved by ${decider.user}`, lateReply].sort(),
		'what the bot posted: alice\'s count, one confirmation, the late tap\'s reply',
	);
	assert.equal(await chat.runs(), 2, 'the taps and recounts started no run');
}

/** The release topic's question in the reminders phase: Remind Approvers after 1 minute, at most 2; Escalate after 2 minutes in the same chat, carol as backup approver. */
const REMINDER_OPTIONS = {
	reminders: { values: { remindAfterAmount: 1, remindAfterUnit: 'minutes', maxReminders: 2 } },
	escalation: { values: { escalateAfterAmount: 2, escalateAfterUnit: 'minutes', backupApprovers: 'carol', postIn: 'sameChat' } },
};
/** When the first reminder must come (seconds after the question): its minute, then the next tick of the trigger's clock (every 30 s) and the post. */
const FIRST_REMINDER_S = [60, 100] as const;
/** When the escalation and the second reminder must come: their 2 minutes, a tick and the posts. */
const ESCALATION_S = [120, 160] as const;
/** How long the phase watches after carol's answer: past the clock's next tick, nothing more may be posted. */
const REMINDERS_QUIET_MS = 35_000;

/**
 * Reminders and escalation of an in-chat approval in the release topic (alice and bob allowed,
 * Approvals Required 1; REMINDER_OPTIONS). The clock is the Workplace Trigger's trigger(), which
 * n8n runs on the main process (the leader); its ticks go through nginx to the trigger's own URL on
 * a webhook process, which posts due questions to the waiting node (through nginx, by execution id).
 * Once the question is stored in the trigger's static data both webhook processes restart. Checked:
 * the first reminder within FIRST_REMINDER_S, the escalation (its text and the question's buttons
 * again, one push) and the second reminder within ESCALATION_S, each once; carol's tap after the
 * escalation resumes once, the next node says approved by carol; nothing more is posted, no run
 * started, and the trigger's inChatReminders is empty at the end. The seconds are printed.
 */
async function inChatRemindersPhase(cluster: QueueCluster, inst: N8nInstall, sim: Simulator, lines: string[]): Promise<void> {
	const workflowName = 'in-chat reminders';
	const { hook, url, ask, runs, workflowId } = await inChatWorkflow(cluster, sim, workflowName, { options: REMINDER_OPTIONS });
	const project = SEED.groups.project;
	const topic = project.topics.release;
	const question = 'group Ship the queue release, with reminders?';
	const pushes = () => sim.log.find({ method: 'POST', path: '/bot/v2/message/push' });
	const { executionId, messageId } = await ask(question, { groupId: project._id, topicId: topic._id }).catch(async (error: Error) => {
		// No question pushed: what the execution ended with (e.g. Send and Wait found no clock).
		const [latest] = (await cluster.main.executions({ workflowId, status: ['error', 'crashed', 'success'] }, 1)).results;
		const data = latest ? parseExecutionData(inst, (await cluster.main.rest<{ data?: unknown }>('GET', `/executions/${latest.id}`)).data) : undefined;
		const result = (data as { resultData?: { error?: { message?: string }; lastNodeExecuted?: string } } | undefined)?.resultData;
		lines.push(`in-chat reminders: the question was not pushed (${error.message}); execution ${latest?.id ?? 'none'} ${latest?.status ?? ''}, ${result?.lastNodeExecuted ?? '?'}: ${result?.error?.message ?? 'no error'}`);
		throw error;
	});
	const askedPush = pushes().find((r) => JSON.stringify((r.body as PushBody).messages?.[0]?.template ?? null).includes(question));
	assert.ok(askedPush, 'the question was pushed');
	const asked = askedPush.body as PushBody;
	const buttons = (asked.messages?.[0]?.template as { actions?: Array<{ data?: string }> } | undefined)?.actions ?? [];
	// The time the node asked, from the nonce its buttons carry (n8n signs it with the resume URLs).
	const askedAt = askedAtOf(decodeAnswerToken(buttons[0]?.data ?? '')?.nonce ?? '');
	assert.ok(askedAt !== undefined, `the question's nonce holds the time it was asked: ${JSON.stringify(buttons)}`);
	assert.deepEqual([asked.gid, asked.tid], [project._id, topic._id], 'the question was pushed to the release topic');
	const seconds = (time: number) => Math.round((time - askedAt) / 100) / 10;
	const since = () => pushes().filter((r) => r.seq > askedPush.seq);

	// The question as the trigger keeps it for its clock, in its static data (saved by the webhook process the registration reached).
	const kept = async () => {
		return questionsStored(await storedStaticDataOf(cluster.main, workflowId), 'reminders') as Record<string, { step: number; nextAt: string | null }>;
	};
	let stored: Record<string, { step: number; nextAt: string | null }> = {};
	for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(250)) {
		stored = await kept();
		if (Object.keys(stored).some((request) => request.startsWith(`${executionId}:`))) break;
	}
	const storedAt = seconds(Date.now());
	assert.ok(Object.keys(stored).some((request) => request.startsWith(`${executionId}:`)), `the trigger keeps the question for its clock: ${JSON.stringify(stored)}`);

	// Both webhook processes restart before the first reminder: only the stored static data knows the question.
	const beforeRestart = cluster.webhookProcesses.map((server, i) => ({ name: `webhook${i + 1} (before the restart)`, server }));
	const restartFrom = seconds(Date.now());
	await cluster.restartWebhookProcesses();
	await waitForTriggerWebhook(url);
	const restartTo = seconds(Date.now());
	const afterRestart = await statusNow(cluster, executionId);

	/** Waits until `count` pushes came after the question, or the time (seconds after the question) has passed. */
	const waitForPushes = async (count: number, untilS: number) => {
		while (since().length < count && Date.now() < askedAt + untilS * 1000) await sleep(500);
		return since().length;
	};
	await waitForPushes(1, FIRST_REMINDER_S[1] + 60);
	await waitForPushes(3, ESCALATION_S[1] + 60);

	// What the clock did: the trigger's log lines (every process) and its posts to the waiting node that nginx passed.
	const processOf = (upstream: string) => cluster.webhookProcesses.findIndex((w) => upstream.endsWith(`:${w.port}`)) + 1;
	const clockLog = () =>
		[...beforeRestart, ...clusterProcesses(cluster)].flatMap(({ name, server }) =>
			server
				.output()
				.split('\n')
				.filter((l) => l.includes(`of workflow "queue: ${workflowName}"`))
				.map((l) => `${name}: ${l.replace(/^.*?Workplace Trigger "Trigger" of workflow "[^"]*" \(ID [^)]*\): /, '').trim()}`),
		);
	const clockPosts = () =>
		cluster.nginx
			.accessLog()
			.filter((a) => a.startedAt >= askedAt && a.uri.startsWith(`/webhook-waiting/${executionId}/`) && a.uri.includes('via=clock'))
			.map((a) => `+${seconds(a.startedAt)} s ${a.status} webhook${processOf(a.upstream)}`);
	// Posts to the trigger's URL: the registration and kept progress (webhook processes), the ticks (main), the taps (the platform).
	const triggerPosts = () =>
		cluster.nginx
			.accessLog()
			.filter((a) => a.startedAt >= askedAt && a.uri.startsWith(`/webhook/${hook}/`))
			.map((a) => `+${seconds(a.startedAt)} ${a.status}`);
	const timeline = () => since().map((r) => `+${seconds(r.time)} s ${JSON.stringify((r.body as PushBody).messages?.map((m) => m.text ?? m.type))}`);
	const describe = () =>
		`in-chat reminders: clock posts to the waiting node through nginx ${clockPosts().join(', ') || 'none'}; posts to the trigger's URL through nginx since the question (s, status) ${triggerPosts().join(', ') || 'none'}; ` +
		`the trigger's log: ${JSON.stringify(clockLog())}`;
	const beforeTap = since().length;
	if (beforeTap < 3) {
		lines.push(`in-chat reminders: question stored +${storedAt} s, webhook processes restarted +${restartFrom} to +${restartTo} s (execution ${afterRestart}); only ${beforeTap} pushes after the question by +${seconds(Date.now())} s: ${timeline().join(', ') || 'none'}`);
		lines.push(describe());
		assert.fail(`the reminders and the escalation were not all posted: ${beforeTap} of 3 pushes after the question`);
	}

	// carol (backup approver) taps Approve on the question the escalation posted again.
	const tapFrom = Date.now();
	const carol = await sim.tap({ ...escalationMessageOf(sim, buttons[0]?.data ?? ''), label: 'Approve', user: 'carol' });
	const final = await statusOf(cluster, executionId, ['success', 'error', 'crashed'], 100);
	const resumedAfter = Date.now() - tapFrom;
	await sleep(Math.max(0, tapFrom + REMINDERS_QUIET_MS - Date.now()));

	const jobs = jobsOf(cluster, executionId);
	const full = await cluster.main.rest<{ data?: unknown }>('GET', `/executions/${executionId}`);
	const after = nodeRun(inst, full, 'After Release')?.data?.main?.[0]?.map((item) => item.json) ?? [];
	const posted = since();
	const left = await kept();
	const outcome = /\((\w+)\)/.exec(carol.body)?.[1] ?? `status ${carol.status}`;
	const [firstAt, escalatedAt, secondAt] = posted.slice(0, 3).map((r) => seconds(r.time));
	lines.push(
		`in-chat reminders (remind after 1 min at most 2, escalate after 2 min to carol): question stored +${storedAt} s, both webhook processes restarted +${restartFrom} to +${restartTo} s (execution ${afterRestart}); ` +
			`first reminder +${firstAt} s, escalation +${escalatedAt} s, second reminder +${secondAt} s after the question; carol's tap ${carol.status} (${outcome}), execution ${final} ${resumedAfter} ms later; ` +
			`worker jobs ${jobs} (run + resume); watched until +${seconds(Date.now())} s; next node got ${JSON.stringify(after)}`,
	);
	lines.push(`in-chat reminders: pushes after the question ${timeline().join(', ')}; left in the trigger's reminders: ${JSON.stringify(left)}`);
	lines.push(describe());

	assert.equal(afterRestart, 'waiting', 'the execution after the restart of the webhook processes');
	const text = (t: string): PushBody => ({ gid: project._id, tid: topic._id, messages: [{ type: 'text', text: t }] });
	assert.deepEqual(
		posted.map((r) => r.body as PushBody),
		[
			text(`Reminder: "${question}" is still waiting for alice, bob.`),
			// The question again with buttons of its own (the escalation's answer codes), on which carol counts.
			{ gid: project._id, tid: topic._id, messages: [{ type: 'text', text: `Escalated: "${question}" still needs an answer. carol, your answer counts from now on.` }, asEscalated(asked.messages![0] as PushedMessage, (posted[1]?.body as PushBody | undefined)?.messages?.[1] as PushedMessage | undefined)] },
			text(`Reminder: "${question}" is still waiting for alice, bob, carol.`),
			text('Approved by carol'),
		],
		'the pushes after the question: the reminder, the escalation with the question again, the second reminder and the confirmation, each once and nothing more',
	);
	assert.ok(firstAt >= FIRST_REMINDER_S[0] && firstAt <= FIRST_REMINDER_S[1], `the first reminder +${firstAt} s after the question (want ${FIRST_REMINDER_S.join(' to ')} s)`);
	for (const [what, at] of [['escalation', escalatedAt], ['second reminder', secondAt]] as const) {
		assert.ok(at >= ESCALATION_S[0] && at <= ESCALATION_S[1], `the ${what} +${at} s after the question (want ${ESCALATION_S.join(' to ')} s)`);
	}
	assert.equal(carol.status, 200, `carol's tap was answered ${carol.status} ${carol.body}`);
	assert.equal(outcome, 'resumed', "carol's tap after the escalation counts and decides");
	assert.equal(final, 'success', 'the execution after carol\'s tap');
	assert.equal(jobs, 2, 'worker jobs: the first run and one resume');
	const sent = sim.state.sentMessages().find((m) => m.id === messageId);
	assert.deepEqual(
		after,
		[
			{
				data: {
					approved: true,
					responder: { id: SEED.users.carol._id, username: 'carol', source: 'chat' },
					respondedAt: carol.event.timestamp,
					messageId,
					groupId: sent?.groupId,
					threadId: sent?.threadId,
				},
			},
		],
		'what the next node got',
	);
	// Decided questions are kept a while as done (nextAt null), so that a late copy cannot bring them back.
	assert.deepEqual(Object.values(left).filter((entry) => entry.nextAt !== null), [], "the trigger's reminders at the end: no question waits");
	assert.equal(await runs(), 1, 'the clock and the tap started no run');
}

// ---------------------------------------------------------------------------------------------

async function runTarget(id: TargetId, tarball: string): Promise<TargetReport> {
	const started = Date.now();
	const target = TARGETS[id];
	const lines: string[] = [];
	let cluster: QueueCluster | undefined;
	let sim: Simulator | undefined;
	try {
		const cached = findInstalled(target);
		const inst = cached ?? (await ensureN8n(target, { log: (m) => log(`  ${m}`) }));
		sim = await startSimulator({ port: 0 });
		cluster = await startQueueCluster(inst, { tarball, log: (m) => log(`  ${m}`), verbose });
		lines.push(`started: ${cluster.timings.join(', ')}`);
		log(`  cluster up: ${cluster.timings.join(', ')}`);
		{
			const before = lines.length;
			await packageByEnvCheck(cluster, lines);
			for (const l of lines.slice(before)) log(`    ${l}`);
		}
		const only = process.env.QUEUE_PHASES?.split(',');
		const phase = async (name: string, work: () => Promise<void>) => {
			if (only && !only.some((o) => name.startsWith(o))) return;
			const t = Date.now();
			const before = lines.length;
			try {
				await work();
			} finally {
				for (const l of lines.slice(before)) log(`    ${l}`);
				log(`  ${name}: ${formatDuration(Date.now() - t)}`);
			}
		};
		await phase('bot token', () => botPhase(cluster!, sim!, lines));
		await phase('binary data', () => binaryPhase(cluster!, inst, sim!, lines));
		await phase('trigger', () => triggerPhases(cluster!, sim!, lines));
		await phase('send and wait', () => sendAndWaitPhase(cluster!, inst, sim!, lines));
		await phase('in-chat answers', () => inChatPhase(cluster!, inst, sim!, lines));
		await phase('in-chat votes', () => inChatVotesPhase(cluster!, inst, sim!, lines));
		await phase('in-chat reminders', () => inChatRemindersPhase(cluster!, inst, sim!, lines));
		return { target: id, ok: true, lines, durationMs: Date.now() - started };
	} catch (e) {
		const outputs = cluster ? clusterOutputTails(cluster) : '';
		return { target: id, ok: false, lines, durationMs: Date.now() - started, error: `${(e as Error).stack ?? String(e)}\n${outputs}` };
	} finally {
		await cluster?.stop();
		await sim?.close();
	}
}

async function main(): Promise<number> {
	const started = Date.now();
	const ids = parseTargetIds(process.env.QUEUE_TARGETS);
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-queue-pack-'));
	const reports: TargetReport[] = [];
	try {
		const tarball = await packPackage(tmp);
		for (const id of ids) {
			log(`\n=== queue mode: n8n ${TARGETS[id].n8nVersion} ===`);
			const report = await runTarget(id, tarball);
			reports.push(report);
			log(report.ok ? `  ✓ passed (${formatDuration(report.durationMs)})` : `  ✗ failed (${formatDuration(report.durationMs)}):\n${report.error}`);
		}
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
	log(`\n=== queue mode summary (${formatDuration(Date.now() - started)}) ===`);
	for (const r of reports) {
		log(`  ${r.ok ? '✓' : '✗'} n8n ${TARGETS[r.target].n8nVersion} (${formatDuration(r.durationMs)})`);
		for (const l of r.lines) log(`      ${l}`);
	}
	return reports.length === ids.length && reports.every((r) => r.ok) ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
