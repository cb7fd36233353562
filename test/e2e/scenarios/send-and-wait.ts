/**
 * Workplace Bot, Message > Send and Wait for Response, in real n8n (`n8n start`): active workflows
 * Webhook -> Send and Wait -> After (No Operation), each started by a POST to the Webhook node's
 * production URL. The bot credential points at the scenario's simulator; the test takes the
 * button's linkUri from the push the simulator received and follows it as a person's browser
 * would (a GET with a browser user agent; the form page, then its form posted urlencoded to the
 * same URL). Asserted per case: the pages n8n answered, the execution's status, and what the node
 * after Send and Wait got. Also: a link preview, tampered URLs and a second click resume nothing,
 * Limit Wait Time finishes the execution by itself, and the question reaches a group's topic and a
 * user given by username (looked up once). The resume URLs' lengths are printed.
 *
 * The work happens in before() on one own `n8n start` per target (test/e2e/trigger-server.ts);
 * the executed workflow is a placeholder.
 *
 * Short form (`npm run test:compat`): an approval answered by link, a free text answered through
 * its form page, and an approval whose Limit Wait Time runs out. On an n8n older than 1.107 (no
 * signed resume URLs), either form checks that the operation refuses to send, naming the version.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { parseExecutionData } from '../../../bench/lib';
import { findInstalled, SIGNED_RESUME_URLS, targetFor, versionAtLeast, type N8nInstall } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import { SEED } from '../../../simulator/seed';
import type { SimulatorState } from '../../../simulator/state';
import type { RequestLogApi } from '../../../simulator/types';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { ScenarioContext, WorkflowJson } from '../types';
import { byId, chain, node, PACKAGE } from '../workflow';

export const PUSH = '/bot/v2/message/push';
export const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const PREVIEW_AGENTS = ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'facebookexternalhit/1.1'];
/** Limit Wait Time of the timed-out case: 0.05 minutes = 3 s. */
const LIMIT_MINUTES = 0.05;

type Params = Record<string, unknown>;

export interface OpenInit {
	userAgent?: string;
	/** Fields to POST as the form page says (its enctype), or urlencoded when there is no page. */
	form?: Record<string, string>;
	/** The form page the fields were typed into. */
	from?: Page;
}

export interface Button {
	label: string;
	/** A link button (Answer In: Link). */
	linkUri: string;
	/** A postback button (Answer In: Chat): its answer token. */
	data?: string;
}

/** The buttons template of a push. */
export interface Template {
	title?: string;
	text?: string;
	actions: Button[];
}

export interface Page {
	status: number;
	contentType: string;
	/** The Content-Security-Policy header(s) the browser got. */
	csp: string;
	/** Cache-Control, X-Robots-Tag and Referrer-Policy as the browser got them. */
	privacy: string;
	text: string;
}

/** An ISO time of the last hour is shown as this, so items compare exactly. */
export const RECENT_TIME = '<a time of the last hour>';

/** What a link answer says about who answered: only that it came by link. */
export const BY_LINK = { source: 'link' };

/**
 * The next node's item as the cases compare it: `data.respondedAt` becomes RECENT_TIME when it is
 * an ISO time of the last hour; a timed-out item keeps `data` and the message of its input
 * (the Webhook's `body.message`), since it carries the input item's fields.
 */
export function comparable(json: Record<string, unknown>): Record<string, unknown> {
	const data = { ...((json.data ?? {}) as Record<string, unknown>) };
	if (typeof data.respondedAt === 'string') {
		const at = Date.parse(data.respondedAt);
		const iso = new Date(at).toISOString() === data.respondedAt;
		if (iso && Date.now() - at < 3_600_000 && at <= Date.now() + 5_000) data.respondedAt = RECENT_TIME;
	}
	if (data.timedOut === true) return { data, inputMessage: (json.body as { message?: unknown } | undefined)?.message };
	return { ...json, data };
}

/** What the test saw of one case; check() asserts on it. */
interface CaseReport {
	name: string;
	/** Every page the person (or preview, or tamperer) got: "label: status". */
	pages: Array<{ label: string; status: number; expected: number | number[]; html?: boolean }>;
	/** Execution status after each step ("label: status"). */
	statuses: Array<{ label: string; status: string; expected: string }>;
	/** What the node after Send and Wait got (json of its items), or undefined when it did not run. */
	afterItems?: Array<Record<string, unknown>>;
	expectedAfter: Array<Record<string, unknown>>;
	executions: { before: number; after: number; expected: number };
	/** Checks of pages' content: [what, ok]. */
	checks: Array<[string, boolean]>;
}

interface Report {
	cases: CaseReport[];
	/** Length of each resume URL n8n put in a push, by what it was for. */
	urlLengths: Array<{ what: string; length: number }>;
	baseUrl: string;
	/** Seconds from sending to the end of each Limit Wait Time execution. */
	timeoutSeconds: number[];
	/** Content-Security-Policy of the custom form page (not in the short form). */
	formCsp?: string;
	/** Its Cache-Control, X-Robots-Tag and Referrer-Policy. */
	formPrivacy?: string;
	/** n8n older than 1.107: what the refused run recorded (no case ran). */
	refused?: Refusal;
}

/** What Send and Wait says on an n8n without signed resume URLs (sendAndWait/body.ts). */
export const NEEDS_SIGNED_RESUME_URLS = /Send and Wait for Response needs n8n 1\.107 or newer \(signed resume URLs\)/;

/** An n8n older than 1.107: the run that reached Send and Wait, and the pushes the platform got. */
export interface Refusal {
	statuses: string[];
	/** Whether the failed run's data names the version needed. */
	namesVersion: boolean;
	pushes: number;
}

/** Waits until a workflow has at least one execution and none is still running; their statuses and full texts. */
export async function finishedRuns(srv: TriggerServer, workflowId: string, timeoutMs = 30_000): Promise<Array<{ status: string; text: string }>> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const list = await srv.settledExecutions(workflowId, 1000);
		if (list.length || Date.now() > deadline) {
			return await Promise.all(list.map(async (e) => ({ status: e.status, text: JSON.stringify(await srv.execution(e.id)) })));
		}
		await sleep(500);
	}
}

/** Checks a refusal (n8n older than 1.107). */
export function checkRefusal(refused: Refusal, n8nVersion: string): void {
	process.stdout.write(`        n8n ${n8nVersion} < ${SIGNED_RESUME_URLS}: runs ${refused.statuses.join(', ')}, the version named: ${refused.namesVersion}, pushes ${refused.pushes}\n`);
	assert.deepEqual(refused.statuses, ['error'], 'one run, failed in Send and Wait');
	assert.ok(refused.namesVersion, 'the error says Send and Wait needs n8n 1.107 or newer');
	assert.equal(refused.pushes, 0, 'nothing was sent to the platform');
}

/**
 * Whether a Content-Security-Policy lets the page's form post back to its own URL: a sandbox
 * must allow forms, a form-action must allow 'self'.
 */
function cspAllowsPostingBack(csp: string): boolean {
	const directives = csp.split(/[;,]/).map((d) => d.trim().split(/\s+/));
	return directives.every(([name, ...values]) => {
		if (name === 'sandbox') return values.includes('allow-forms');
		if (name === 'form-action') return values.includes("'self'") || values.includes('*');
		return true;
	});
}

export function askWorkflow(hookPath: string, ask: Params, credential: { id: string; name: string }): WorkflowJson {
	const wf = chain([
		node('Webhook', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: hookPath, responseMode: 'onReceived', options: {} }, { after: [] }),
		node('Ask', `${PACKAGE}.workplaceBot`, 1, { resource: 'message', operation: 'sendAndWait', sendTo: 'user', userId: byId(SEED.users.alice._id), ...ask }),
		node('After', 'n8n-nodes-base.noOp', 1, {}),
	]);
	for (const n of wf.nodes) {
		if (n.name === 'Webhook') n.webhookId = randomUUID();
		if (n.name === 'Ask') n.credentials = { workplaceBotOAuth2Api: credential };
	}
	return wf;
}

/** The enctype a browser posts the page's form with (its default: urlencoded). */
function formEnctype(page: Page): string {
	return /<form[^>]*\benctype="([^"]+)"/.exec(page.text)?.[1] ?? 'application/x-www-form-urlencoded';
}

/** Whether the page has a form that posts back to the URL it was opened with (no action, or an empty one). */
const postsBack = (page: Page) => /<form method="post"(?![^>]*\baction="[^"])[^>]*>/.test(page.text);

export const isHtml = (page: Page) => /^text\/html/.test(page.contentType) && /<html/i.test(page.text);

export async function open(url: string, init: OpenInit = {}): Promise<Page> {
	const headers: Record<string, string> = { 'user-agent': init.userAgent ?? BROWSER, accept: 'text/html' };
	let body: FormData | string | undefined;
	if (init.form && init.from && formEnctype(init.from) === 'multipart/form-data') {
		body = new FormData();
		for (const [name, value] of Object.entries(init.form)) body.append(name, value);
	} else if (init.form) {
		headers['content-type'] = 'application/x-www-form-urlencoded';
		body = new URLSearchParams(init.form).toString();
	}
	const res = await fetch(url, {
		method: init.form ? 'POST' : 'GET',
		headers,
		body,
		redirect: 'manual',
		signal: AbortSignal.timeout(30_000),
	});
	return {
		status: res.status,
		contentType: res.headers.get('content-type') ?? '',
		csp: res.headers.get('content-security-policy') ?? '',
		privacy: ['cache-control', 'x-robots-tag', 'referrer-policy'].map((h) => `${h}: ${res.headers.get(h) ?? ''}`).join(', '),
		text: await res.text(),
	};
}

/** The buttons template of the push whose text is `message`, once the platform got it. */
export async function pushedTemplate(log: Pick<RequestLogApi, 'find'>, message: string, timeoutMs = 30_000): Promise<Template> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const push = log
			.find({ method: 'POST', path: PUSH })
			.map((r) => (r.body as { messages?: Array<{ template?: Template }> }).messages?.[0]?.template)
			.find((t) => t?.text === message);
		if (push) return push;
		if (Date.now() > deadline) throw new Error(`no push with the message "${message}" reached the simulator`);
		await sleep(100);
	}
}

/**
 * The question's message as the platform recorded it (the push answered its `id`, `groupId` and
 * `threadId`), found by the buttons template's text: the `messageId`, `groupId` and `threadId` the
 * answer's `data` must carry.
 */
export function sentMessageOf(ctx: ScenarioContext, text: string): { messageId: string; groupId: string; threadId: string } {
	const sent = (ctx.sim.state as SimulatorState)
		.sentMessages()
		.filter((m) => (m.content as { template?: { text?: string } }).template?.text === text)
		.at(-1);
	if (!sent) throw new Error(`the platform recorded no message "${text}"`);
	return { messageId: sent.id, groupId: sent.groupId, threadId: sent.threadId };
}

/** The thread (gid, tid) of the push whose buttons template has the text `message`. */
function pushedThread(log: Pick<RequestLogApi, 'find'>, message: string): { gid?: string; tid?: string } {
	const push = log
		.find({ method: 'POST', path: PUSH })
		.map((r) => r.body as { gid?: string; tid?: string; messages?: Array<{ template?: Template }> })
		.find((body) => body.messages?.[0]?.template?.text === message);
	return { gid: push?.gid, tid: push?.tid };
}

/** The resume URL's execution id (…/webhook-waiting/<executionId>/<nodeId>?…). */
export function executionIdOf(linkUri: string): string {
	const parts = new URL(linkUri).pathname.split('/');
	return parts[parts.length - 2];
}

/** A URL of the same resume path with one query parameter changed. */
function withQuery(linkUri: string, name: string, value: string): string {
	const url = new URL(linkUri);
	url.searchParams.set(name, value);
	return url.toString();
}

class Run {
	readonly inst: N8nInstall;
	constructor(
		readonly ctx: ScenarioContext,
		readonly srv: TriggerServer,
	) {
		const inst = findInstalled(targetFor(ctx.n8nVersion));
		if (!inst) throw new Error(`n8n ${ctx.n8nVersion} is not installed`);
		this.inst = inst;
	}

	/** Starts an execution through the Webhook node and returns the template of its push (found by the message text). */
	async start(hookPath: string, message: string): Promise<Template> {
		const url = `${this.srv.server.url}/webhook/${hookPath}`;
		const deadline = Date.now() + 30_000;
		for (;;) {
			const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
			await res.text();
			if (res.status === 200) break;
			if (res.status !== 404 || Date.now() > deadline) throw new Error(`POST ${url} answered ${res.status}`);
			await sleep(250);
		}
		return pushedTemplate(this.ctx.sim.log, message, deadline - Date.now());
	}

	async status(executionId: string): Promise<string> {
		const e = await this.srv.execution(executionId);
		return String(e.status);
	}

	/** Polls until the execution has one of the statuses (or the deadline); returns the last status. */
	async waitFor(executionId: string, statuses: string[], timeoutMs = 15_000): Promise<string> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const status = await this.status(executionId);
			if (statuses.includes(status) || Date.now() > deadline) return status;
			await sleep(200);
		}
	}

	/** The items the node after Send and Wait got (json), undefined when it did not run. */
	async afterItems(executionId: string): Promise<Array<Record<string, unknown>> | undefined> {
		const e = await this.srv.execution(executionId);
		const data = parseExecutionData(this.inst, e.data) as {
			resultData?: { runData?: Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>> };
		};
		const runs = data?.resultData?.runData?.After;
		if (!runs) return undefined;
		return runs.flatMap((r) => r.data?.main?.[0] ?? []).map((i) => comparable(i.json));
	}

	async count(workflowId: string): Promise<number> {
		return (await this.srv.server.executions({ workflowId })).count;
	}
}

async function runCases(ctx: ScenarioContext, srv: TriggerServer): Promise<Report> {
	const run = new Run(ctx, srv);
	const credName = 'Workplace Bot (send and wait e2e)';
	const credId = await srv.createCredential(credName, 'workplaceBotOAuth2Api', {
		baseUrl: ctx.sim.url,
		clientId: ctx.sim.credentials.botClientId,
		clientSecret: ctx.sim.credentials.botClientSecret,
	});
	const credential = { id: credId, name: credName };
	const create = async (name: string, ask: Params) => {
		const hookPath = randomUUID();
		const id = await srv.createActiveWorkflow(`e2e send and wait: ${name}`, askWorkflow(hookPath, ask, credential));
		return { id, hookPath };
	};

	if (!versionAtLeast(ctx.n8nVersion, SIGNED_RESUME_URLS)) {
		const wf = await create('approval (refused)', { message: '={{ $json.body.message }}', responseType: 'approval' });
		const res = await fetch(`${srv.server.url}/webhook/${wf.hookPath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ message: 'Approve 120 EUR?' }),
		});
		await res.text();
		const runs = await finishedRuns(srv, wf.id);
		const refused = {
			statuses: runs.map((r) => r.status),
			namesVersion: runs.some((r) => NEEDS_SIGNED_RESUME_URLS.test(r.text)),
			pushes: ctx.sim.log.find({ method: 'POST', path: PUSH }).length,
		};
		return { cases: [], urlLengths: [], baseUrl: srv.server.url, timeoutSeconds: [], refused };
	}

	const approvalWf = await create('approval', {
		title: 'Expense report',
		message: '={{ $json.body.message }}',
		responseType: 'approval',
		approvalOptions: { values: { approvalType: 'double' } },
	});
	const freeTextWf = await create('free text', {
		// $json here is the webhook's item when the message is sent, the timed-out item when the form is served.
		title: '={{ $json.body.message ? "Title from $json" : "" }}',
		message: "={{ $('Webhook').item.json.body.message }}",
		responseType: 'freeText',
	});
	const formWf = await create('custom form', {
		title: 'Trip request',
		message: '={{ $json.body.message }}',
		responseType: 'customForm',
		formFields: {
			values: [
				{ fieldLabel: 'Destination', fieldType: 'text', requiredField: true },
				{ fieldLabel: 'Nights', fieldType: 'number' },
			],
		},
		options: { responseFormTitle: 'Your trip', responseFormButtonLabel: 'Send request' },
	});
	const topicWf = await create('approval to a group topic', {
		sendTo: 'group',
		groupId: SEED.groups.project._id,
		topicId: SEED.groups.project.topics.release._id,
		message: '={{ $json.body.message }}',
		responseType: 'approval',
	});
	const usernameWf = await create('approval to a user by username', {
		userId: { __rl: true, mode: 'username', value: 'alice' },
		message: '={{ $json.body.message }}',
		responseType: 'approval',
	});
	const limit = { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: LIMIT_MINUTES, resumeUnit: 'minutes' } } };
	const timeoutWfs = {
		freeText: await create('limit wait time, free text', { message: '={{ $json.body.message }}', responseType: 'freeText', options: limit }),
		approval: await create('limit wait time, approval', {
			message: '={{ $json.body.message }}',
			responseType: 'approval',
			approvalOptions: { values: { approvalType: 'double' } },
			options: limit,
		}),
	};

	const cases: CaseReport[] = [];
	const urlLengths: Report['urlLengths'] = [];
	const newCase = (name: string, expectedAfter: Array<Record<string, unknown>>): CaseReport => {
		const c: CaseReport = { name, pages: [], statuses: [], expectedAfter, executions: { before: 0, after: 0, expected: 1 }, checks: [] };
		cases.push(c);
		return c;
	};
	const page = async (c: CaseReport, label: string, expected: number | number[], url: string, init: OpenInit = {}) => {
		const p = await open(url, init);
		c.pages.push({ label, status: p.status, expected, html: isHtml(p) });
		return p;
	};
	const status = async (c: CaseReport, label: string, executionId: string, expected: string) => {
		// Right after the push n8n may still be saving the wait ('running'): wait for it to settle
		// then; later a single read checks the execution still waits.
		const settling = expected === 'waiting' && label === 'after sending';
		const s =
			expected === 'waiting' && !settling
				? await run.status(executionId)
				: await run.waitFor(executionId, settling ? ['waiting', 'success', 'error', 'crashed', 'canceled'] : [expected, 'error', 'crashed']);
		c.statuses.push({ label, status: s, expected });
	};

	const short = ctx.short;
	// Limit Wait Time first: it runs out while the other cases are answered.
	const timeouts = [];
	const timeoutTypes = [
		['freeText', { timedOut: true }],
		['approval', { approved: false, timedOut: true }],
	] as const;
	for (const [type, expected] of timeoutTypes.filter(([type]) => !short || type === 'approval')) {
		const question = `Nobody will answer this one (${type})`;
		const c = newCase(`${type === 'freeText' ? 'free text' : 'approval'}, Limit Wait Time ${LIMIT_MINUTES * 60} s`, []);
		const wf = timeoutWfs[type];
		c.executions.before = await run.count(wf.id);
		const [button] = (await run.start(wf.hookPath, question)).actions;
		// The timed-out item names the question's message too.
		c.expectedAfter = [{ data: { ...expected, ...sentMessageOf(ctx, question) }, inputMessage: question }];
		const executionId = executionIdOf(button.linkUri);
		timeouts.push({ c, wf, button, executionId, started: Date.now() });
		await status(c, 'after sending', executionId, 'waiting');
	}

	if (short) {
		const c = newCase('approval: approve', []);
		c.executions.before = await run.count(approvalWf.id);
		const question = 'Approve 120 EUR for the team lunch?';
		const [approve] = (await run.start(approvalWf.hookPath, question)).actions;
		c.expectedAfter = [{ data: { approved: true, responder: BY_LINK, respondedAt: RECENT_TIME, ...sentMessageOf(ctx, question) } }];
		urlLengths.push({ what: 'approval (Approve)', length: approve.linkUri.length });
		const executionId = executionIdOf(approve.linkUri);
		await status(c, 'after sending', executionId, 'waiting');
		const approved = await page(c, 'click Approve', 200, approve.linkUri);
		c.checks.push(['the click is answered with the "recorded" page', /recorded/i.test(approved.text)]);
		await status(c, 'after the click', executionId, 'success');
		c.afterItems = await run.afterItems(executionId);
		c.executions.after = await run.count(approvalWf.id);
	} else await approvalCases();

	// Approval: two executions, one approved, one declined.
	async function approvalCases() {
		const approveCase = newCase('approval: approve', []);
		const declineCase = newCase('approval: decline', []);
		approveCase.executions.before = await run.count(approvalWf.id);
		const [approve, declineOfFirst] = (await run.start(approvalWf.hookPath, 'Approve 120 EUR for the team lunch?')).actions;
		const [, decline] = (await run.start(approvalWf.hookPath, 'Approve 80 EUR for the taxi?')).actions;
		approveCase.expectedAfter = [
			{ data: { approved: true, responder: BY_LINK, respondedAt: RECENT_TIME, ...sentMessageOf(ctx, 'Approve 120 EUR for the team lunch?') } },
		];
		declineCase.expectedAfter = [{ data: { approved: false, responder: BY_LINK, respondedAt: RECENT_TIME, ...sentMessageOf(ctx, 'Approve 80 EUR for the taxi?') } }];
		declineCase.executions.before = approveCase.executions.before + 1;
		urlLengths.push({ what: 'approval (Approve)', length: approve.linkUri.length }, { what: 'approval (Decline)', length: decline.linkUri.length });
		const approveExecution = executionIdOf(approve.linkUri);
		const declineExecution = executionIdOf(decline.linkUri);
		approveCase.checks.push(['the two executions differ', approveExecution !== declineExecution]);
		approveCase.checks.push(['buttons are labelled Approve and Decline', approve.label === 'Approve' && decline.label === 'Decline']);
		await status(approveCase, 'after sending', approveExecution, 'waiting');
		await status(declineCase, 'after sending', declineExecution, 'waiting');

		// Link previews open the link first: a page, nothing resumed.
		for (const agent of PREVIEW_AGENTS) {
			const p = await page(approveCase, `preview (${agent.split(/[ /]/)[0]})`, 200, approve.linkUri, { userAgent: agent });
			approveCase.checks.push([`preview page of ${agent.split(/[ /]/)[0]} does not record an answer`, !/recorded/i.test(p.text)]);
		}
		await status(approveCase, 'after the link previews', approveExecution, 'waiting');

		// Tampered URLs: refused, both executions still waiting.
		const signature = new URL(approve.linkUri).searchParams.get('signature') ?? '';
		const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
		await page(approveCase, 'tampered signature', [401, 403], withQuery(approve.linkUri, 'signature', flipped));
		await page(approveCase, 'approved=false with the approve signature', [401, 403], withQuery(approve.linkUri, 'approved', 'false'));
		await page(
			declineCase,
			"approve URL pointed at the other execution's id",
			[401, 403],
			approve.linkUri.replace(`/${approveExecution}/`, `/${declineExecution}/`),
		);
		await page(approveCase, 'approve URL with an execution id that does not exist', [401, 403, 404], approve.linkUri.replace(`/${approveExecution}/`, '/999999/'));
		await status(approveCase, 'after the tampered URLs', approveExecution, 'waiting');
		await status(declineCase, 'after the tampered URLs', declineExecution, 'waiting');

		// The person's clicks.
		const approved = await page(approveCase, 'click Approve', 200, approve.linkUri);
		approveCase.checks.push(['the click is answered with the "recorded" page', /recorded/i.test(approved.text)]);
		await status(approveCase, 'after the click', approveExecution, 'success');
		approveCase.afterItems = await run.afterItems(approveExecution);
		const declined = await page(declineCase, 'click Decline', 200, decline.linkUri);
		declineCase.checks.push(['the click is answered with the "recorded" page', /recorded/i.test(declined.text)]);
		await status(declineCase, 'after the click', declineExecution, 'success');
		declineCase.afterItems = await run.afterItems(declineExecution);

		// Second clicks: a page, no second resume, output unchanged.
		await page(approveCase, 'second click Approve', 200, approve.linkUri);
		await page(approveCase, 'click Decline after Approve', 200, declineOfFirst.linkUri);
		await page(declineCase, 'second click Decline', 200, decline.linkUri);
		await status(approveCase, 'after the second clicks', approveExecution, 'success');
		const approvedAgain = await run.afterItems(approveExecution);
		approveCase.checks.push(['output unchanged after the second clicks', JSON.stringify(approvedAgain) === JSON.stringify(approveCase.afterItems)]);
		approveCase.executions.after = await run.count(approvalWf.id);
		approveCase.executions.expected = 2;
		declineCase.executions.after = approveCase.executions.after;
		declineCase.executions.expected = 1;

		// To a group's topic, and to a user given by username: the push goes to that thread, Approve resumes.
		const usernameLookups = () => ctx.sim.log.find({ method: 'GET', path: '/bot/v1/users' }).filter((r) => r.query.username === 'alice').length;
		for (const target of [
			{ name: 'approval to a group topic', wf: topicWf, message: 'Ship release 1.6 on Friday?', thread: { gid: SEED.groups.project._id, tid: SEED.groups.project.topics.release._id }, lookups: 0 },
			{ name: 'approval to a user by username', wf: usernameWf, message: 'Approve 45 EUR for books?', thread: SEED.directChats.alice, lookups: 1 },
		]) {
			const c = newCase(target.name, []);
			c.executions.before = await run.count(target.wf.id);
			const lookupsBefore = usernameLookups();
			const [button] = (await run.start(target.wf.hookPath, target.message)).actions;
			const message = sentMessageOf(ctx, target.message);
			c.checks.push([
				`the message's group and thread are the thread pushed to (got ${message.groupId}, ${message.threadId})`,
				message.groupId === target.thread.gid && message.threadId === target.thread.tid,
			]);
			c.expectedAfter = [{ data: { approved: true, responder: BY_LINK, respondedAt: RECENT_TIME, ...message } }];
			const thread = pushedThread(ctx.sim.log, target.message);
			c.checks.push([`pushed to ${JSON.stringify(target.thread)} (got ${JSON.stringify(thread)})`, thread.gid === target.thread.gid && thread.tid === target.thread.tid]);
			const lookups = usernameLookups() - lookupsBefore;
			c.checks.push([`${target.lookups} username lookup(s) (got ${lookups})`, lookups === target.lookups]);
			c.checks.push(['the button is labelled Approve', button.label === 'Approve']);
			const executionId = executionIdOf(button.linkUri);
			await status(c, 'after sending', executionId, 'waiting');
			await page(c, 'click Approve', 200, button.linkUri);
			await status(c, 'after the click', executionId, 'success');
			c.afterItems = await run.afterItems(executionId);
			c.executions.after = await run.count(target.wf.id);
		}
	}

	// Free text: the form page, then the form posted to the same URL.
	const freeCase = newCase('free text', []);
	freeCase.executions.before = await run.count(freeTextWf.id);
	const freeTemplate = await run.start(freeTextWf.hookPath, 'When can we meet?');
	freeCase.expectedAfter = [{ data: { text: 'Tuesday works, 14:00 ✓', responder: BY_LINK, respondedAt: RECENT_TIME, ...sentMessageOf(ctx, 'When can we meet?') } }];
	const [respond] = freeTemplate.actions;
	freeCase.checks.push(['the pushed title resolved $json when the message was sent', freeTemplate.title === 'Title from $json']);
	urlLengths.push({ what: 'free text (Respond)', length: respond.linkUri.length });
	const freeExecution = executionIdOf(respond.linkUri);
	await status(freeCase, 'after sending', freeExecution, 'waiting');
	if (!short) await page(freeCase, 'preview (Slackbot)', 200, respond.linkUri, { userAgent: PREVIEW_AGENTS[0] });
	const form = await page(freeCase, 'open the form', 200, respond.linkUri);
	freeCase.checks.push(['the form page has a form posting back with a field-0 textarea', postsBack(form) && /<textarea[^>]*name="field-0"/.test(form.text)]);
	freeCase.checks.push(["the form shows the message from $('Webhook').item", form.text.includes('When can we meet?')]);
	// $json is the input item when the page is served (the timed-out item keeps its fields): the title as sent.
	freeCase.checks.push(['the title from $json is on the form page, as sent', form.text.includes('<h1>Title from $json</h1>')]);
	await status(freeCase, 'after the form page', freeExecution, 'waiting');
	let filled = form;
	if (!short) {
		filled = await page(freeCase, 'send the form empty', 400, respond.linkUri, { form: { 'field-0': '' }, from: form });
		freeCase.checks.push(['the empty form comes back with "This field is required"', /This field is required/.test(filled.text)]);
		await status(freeCase, 'after the empty form', freeExecution, 'waiting');
	}
	const sent = await page(freeCase, 'send the form', 200, respond.linkUri, { form: { 'field-0': 'Tuesday works, 14:00 ✓' }, from: filled });
	freeCase.checks.push(['the form is answered with the "recorded" page', /recorded/i.test(sent.text)]);
	await status(freeCase, 'after the form', freeExecution, 'success');
	freeCase.afterItems = await run.afterItems(freeExecution);
	freeCase.executions.after = await run.count(freeTextWf.id);
	const formPage = short ? undefined : await moreForms();

	async function moreForms() {
		await page(freeCase, 'open the link again', 200, respond.linkUri);
		await page(freeCase, 'send the form again', 200, respond.linkUri, { form: { 'field-0': 'changed my mind' }, from: form });
		await page(freeCase, 'send the form again, urlencoded', 200, respond.linkUri, { form: { 'field-0': 'changed my mind' } });
		const freeAgain = await run.afterItems(freeExecution);
		freeCase.checks.push(['output unchanged after the second answer', JSON.stringify(freeAgain) === JSON.stringify(freeCase.afterItems)]);
		freeCase.executions.after = await run.count(freeTextWf.id);

		// Custom form with two fields.
		const formCase = newCase('custom form', []);
		formCase.executions.before = await run.count(formWf.id);
		const [formButton] = (await run.start(formWf.hookPath, 'Where do you want to go?')).actions;
		formCase.expectedAfter = [
			{ data: { Destination: 'Lisbon', Nights: 3, responder: BY_LINK, respondedAt: RECENT_TIME, ...sentMessageOf(ctx, 'Where do you want to go?') } },
		];
		urlLengths.push({ what: 'custom form (Respond)', length: formButton.linkUri.length });
		const formExecution = executionIdOf(formButton.linkUri);
		await status(formCase, 'after sending', formExecution, 'waiting');
		const formPage = await page(formCase, 'open the form', 200, formButton.linkUri);
		formCase.checks.push([
			'the form page has a form posting back with both fields, its title and button label, and no script',
			postsBack(formPage) &&
				/name="field-0"/.test(formPage.text) &&
				/type="number"[^>]*name="field-1"/.test(formPage.text) &&
				formPage.text.includes('<h1>Your trip</h1>') &&
				formPage.text.includes('>Send request</button>') &&
				!/<script/i.test(formPage.text),
		]);
		const bad = await page(formCase, 'send a non-number', 400, formButton.linkUri, { form: { 'field-0': 'Lisbon', 'field-1': 'three' }, from: formPage });
		formCase.checks.push(['the form comes back with "Enter a number"', /Enter a number/.test(bad.text)]);
		await status(formCase, 'after the wrong answer', formExecution, 'waiting');
		const formSent = await page(formCase, 'send the form', 200, formButton.linkUri, { form: { 'field-0': 'Lisbon', 'field-1': '3' }, from: bad });
		formCase.checks.push(['the form is answered with the "recorded" page', /recorded/i.test(formSent.text)]);
		await status(formCase, 'after the form', formExecution, 'success');
		formCase.afterItems = await run.afterItems(formExecution);
		formCase.executions.after = await run.count(formWf.id);
		return formPage;
	}

	// Back to Limit Wait Time: n8n resumes the executions by itself.
	const timeoutSeconds: number[] = [];
	for (const { c, wf, button, executionId, started } of timeouts) {
		const finished = await run.waitFor(executionId, ['success', 'error', 'crashed'], 120_000);
		timeoutSeconds.push(Math.round((Date.now() - started) / 100) / 10);
		c.statuses.push({ label: 'after the limit', status: finished, expected: 'success' });
		c.afterItems = await run.afterItems(executionId);
		await page(c, 'open the link after the limit', 200, button.linkUri);
		c.executions.after = await run.count(wf.id);
	}

	return { cases, urlLengths, baseUrl: srv.server.url, timeoutSeconds, formCsp: formPage?.csp, formPrivacy: formPage?.privacy };
}

export const scenario = triggerServerScenario({
	name: 'send-and-wait: Webhook -> Workplace Bot Send and Wait -> next node, answered through the resume URLs (n8n start)',
	compat: true,
	placeholderNote: 'the send-and-wait cases run in before()',
	run: runCases,
	check(report, ctx) {
		if (report.refused) return checkRefusal(report.refused, ctx.n8nVersion);
		const out: string[] = [`      [n8n ${ctx.n8nVersion}] send and wait:`];
		for (const c of report.cases) {
			out.push(`        ${c.name}: executions +${c.executions.after - c.executions.before}, next node got ${JSON.stringify(c.afterItems)}`);
			out.push(`          pages: ${c.pages.map((p) => `${p.label} ${p.status}`).join('; ')}`);
			out.push(`          status: ${c.statuses.map((s) => `${s.label} ${s.status}`).join('; ')}`);
		}
		out.push(`        Limit Wait Time ${LIMIT_MINUTES * 60} s: finished ${report.timeoutSeconds.join(' s and ')} s after sending`);
		if (report.formCsp !== undefined) out.push(`        form page Content-Security-Policy: ${report.formCsp}; ${report.formPrivacy}`);
		const base = report.baseUrl.length + 1; // WEBHOOK_URL is the server URL with a slash
		out.push(
			`        resume URLs (WEBHOOK_URL ${report.baseUrl}/, ${base} characters): ${report.urlLengths
				.map((u) => `${u.what} ${u.length} (${u.length - base} after the base URL)`)
				.join(', ')}`,
		);
		process.stdout.write(`${out.join('\n')}\n`);

		for (const c of report.cases) {
			for (const p of c.pages) {
				const allowed = [p.expected].flat();
				assert.ok(allowed.includes(p.status), `${c.name}, ${p.label}: HTTP ${p.status}, expected ${allowed.join(' or ')}`);
			}
			for (const s of c.statuses) assert.equal(s.status, s.expected, `${c.name}, execution ${s.label}`);
			for (const [what, ok] of c.checks) assert.ok(ok, `${c.name}: ${what}`);
			assert.deepEqual(c.afterItems, c.expectedAfter, `${c.name}: what the node after Send and Wait got`);
			assert.equal(c.executions.after - c.executions.before, c.executions.expected, `${c.name}: new executions`);
		}
		for (const u of report.urlLengths) assert.ok(u.length <= 1000, `${u.what}: resume URL of ${u.length} characters`);
		if (report.formCsp === undefined) return; // the short form has no custom form
		assert.equal(
			report.formPrivacy,
			'cache-control: no-store, x-robots-tag: noindex, nofollow, referrer-policy: no-referrer',
			'the form page is neither cached, indexed nor sent on as a referrer',
		);
		assert.ok(cspAllowsPostingBack(report.formCsp), `the form page's Content-Security-Policy blocks posting the form: ${report.formCsp}`);
	},
});
