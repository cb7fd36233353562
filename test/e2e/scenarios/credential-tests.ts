/**
 * The credentials' "Test" button in real n8n, through the endpoint the editor calls: every
 * credential is saved (POST /rest/credentials), then tested with POST /rest/credentials/test
 * `{credentials: {id, name, type, data}}`, as the credential modal does after an edit.
 *
 * Every credential x {correct, wrong secret, wrong Base URL path (404), unreachable host (a closed
 * port on 127.0.0.1), Base URL with a trailing slash, Base URL with the API's path, platform
 * failing (503)}, under each 401 body shape of the simulator (`unauthorizedBody`, set through its
 * control API), so that no verdict depends on how a 401 body is spelled. Asserted per case: OK or
 * Error, the message text, the requests the simulator received (count, method, path, status) and
 * that the platform's state did not change (nothing created; only the bot's test obtains a token).
 *
 * The runner executes scenarios with `n8n execute`; the work happens in before() on an own
 * `n8n start` (test/e2e/trigger-server.ts), and the executed workflow is a placeholder.
 */
import * as assert from 'node:assert/strict';

import { getFreePort } from '../../../scripts/lib/proc';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { E2eSimulator, ScenarioContext, TargetId } from '../types';

const SHAPES = ['interface', 'plain', 'empty'] as const;
type Shape = (typeof SHAPES)[number];

const FORM_HINT = "It is the platform's address without /v1, e.g. https://workplace.example.com.";
const TASK_HINT = "It is the platform's address without /api/v1, e.g. https://workplace.example.com.";
const KNOWLEDGE_HINT = 'It is the address of the knowledge API including its /api/v1 prefix, e.g. https://workplace.example.com/api/v1.';
const BOT_HINT = "It is the platform's address without a path, e.g. https://workplace.example.com.";
const REFUSED = 'the connection was refused, nothing listens at that address and port';
const WRONG = 'wrong-value-from-the-e2e-test';

interface Env {
	sim: E2eSimulator;
	/** http://127.0.0.1:<a port nothing listens on> */
	closed: string;
	shape: Shape;
	target: TargetId;
}

interface Expected {
	status: 'OK' | 'Error';
	message: string;
	/** "METHOD /path STATUS" of every request the simulator received, in order. */
	requests: string[];
	/** Bot tokens the platform issued during the test. */
	tokens?: number;
}

interface Case {
	credential: 'Knowledge' | 'Bot' | 'Form' | 'Task' | 'Webhook';
	type: string;
	name: string;
	data(env: Env): Record<string, unknown>;
	fault?: Record<string, unknown>;
	expect(env: Env): Expected;
}

/** The platform's message as the tests quote it: absent when the 401 body is empty. */
const said = (env: Env, text: string, status = 401) => (env.shape === 'empty' && status === 401 ? '' : ` Platform message: "${text}".`);

/** The case builder of one credential type. */
const casesOf =
	(credential: Case['credential'], type: string) =>
	(name: string, data: Case['data'], expect: Case['expect'], fault?: Case['fault']): Case => ({ credential, type, name, data, expect, fault });

/** Nothing listens at the address (`env.closed` + path): no request reaches the platform. */
const unreachable = (env: Env, path: string, field: string): Expected => ({
	status: 'Error',
	message: `Could not reach ${env.closed}${path}: ${REFUSED}. Check the "${field}" field: ${env.closed.slice(7)} must be reachable from n8n.`,
	requests: [],
});

/** The platform answers 404 at `base` + `path`: the API is not there. */
const notThere = (api: string, method: string, base: string, path: string, field: string, hint: string): Expected => ({
	status: 'Error',
	message: `There is no ${api} at this address (HTTP 404 from ${method} ${base}${path}): check the "${field}" field. ${hint} Platform message: "Cannot ${method} ${path}".`,
	requests: [`${method} ${path} 404`],
});

/** The platform answers 503 at `base` + `path`: `what` could not be checked. */
const failing = (api: string, method: string, base: string, path: string, what: string): Expected => ({
	status: 'Error',
	message: `The ${api} failed to answer (HTTP 503 from ${method} ${base}${path}): the ${what} could not be checked, try again later. Platform message: "Service Unavailable".`,
	requests: [`${method} ${path} 503`],
});

function knowledgeCases(): Case[] {
	const c = casesOf('Knowledge', 'workplaceKnowledgeApi');
	const key = (env: Env) => env.sim.credentials.knowledgeApiKey;
	const ok = (env: Env, base: string): Expected => ({
		status: 'OK',
		message: `Connection successful: the knowledge API at ${base} accepted the API key.`,
		requests: ['GET /api/v1/knowledge 200'],
	});
	return [
		c('correct', (env) => ({ knowledgeUrl: env.sim.knowledgeUrl, apiKey: key(env) }), (env) => ok(env, env.sim.knowledgeUrl)),
		c(
			'wrong API key',
			(env) => ({ knowledgeUrl: env.sim.knowledgeUrl, apiKey: WRONG }),
			(env) => ({
				status: 'Error',
				message: `The knowledge API rejected the API key (HTTP 401 from GET ${env.sim.knowledgeUrl}/knowledge): check the "API Key" field. The knowledge API also answers 401 when n8n calls from an address that is not on the platform's allowed list.${said(env, 'Invalid API key')}`,
				requests: ['GET /api/v1/knowledge 401'],
			}),
		),
		c(
			'wrong path (404)',
			(env) => ({ knowledgeUrl: `${env.sim.url}/wrong`, apiKey: key(env) }),
			(env) => notThere('knowledge API', 'GET', env.sim.url, '/wrong/knowledge', 'Knowledge URL', KNOWLEDGE_HINT),
		),
		c(
			'unreachable host',
			(env) => ({ knowledgeUrl: `${env.closed}/api/v1`, apiKey: key(env) }),
			(env) => unreachable(env, '/api/v1/knowledge', 'Knowledge URL'),
		),
		c('trailing slash', (env) => ({ knowledgeUrl: `${env.sim.knowledgeUrl}/`, apiKey: key(env) }), (env) => ok(env, env.sim.knowledgeUrl)),
		c(
			'trailing API path (/knowledge)',
			(env) => ({ knowledgeUrl: `${env.sim.knowledgeUrl}/knowledge`, apiKey: key(env) }),
			(env) => ({
				status: 'Error',
				message: `There is no knowledge API at this address (HTTP 404 from GET ${env.sim.knowledgeUrl}/knowledge/knowledge): check the "Knowledge URL" field. ${KNOWLEDGE_HINT} Platform message: "Knowledge base knowledge not found".`,
				requests: ['GET /api/v1/knowledge/knowledge 404'],
			}),
		),
		c(
			'platform failing (503)',
			(env) => ({ knowledgeUrl: env.sim.knowledgeUrl, apiKey: key(env) }),
			(env) => failing('knowledge API', 'GET', env.sim.url, '/api/v1/knowledge', 'API key'),
			{ path: '/api/v1/knowledge', status: 503 },
		),
	];
}

function formCases(): Case[] {
	const c = casesOf('Form', 'workplaceFormApi');
	const good = (env: Env, baseUrl: string) => ({ baseUrl, apiKey: env.sim.credentials.formApiKey, token: env.sim.credentials.formApiToken });
	const ok = (env: Env, base: string): Expected => ({
		status: 'OK',
		message: `Connection successful: the form API at ${base} accepted the API key and token. It answered HTTP 400 to the test form, which is invalid on purpose, and HTTP 401 to a made-up API key and token: nothing was created.`,
		requests: ['POST /v1/forms 400', 'POST /v1/forms 401'],
	});
	const rejected = (env: Env, platform: string): Expected => ({
		status: 'Error',
		message: `The form API rejected the API key or the token (HTTP 401 from POST ${env.sim.url}/v1/forms): check the "API Key" and "User or Session Token" fields.${said(env, platform)}`,
		requests: ['POST /v1/forms 401'],
	});
	return [
		c('correct', (env) => good(env, env.sim.url), (env) => ok(env, env.sim.url)),
		c('wrong API key', (env) => ({ ...good(env, env.sim.url), apiKey: WRONG }), (env) => rejected(env, 'Invalid API key')),
		c('wrong token', (env) => ({ ...good(env, env.sim.url), token: WRONG }), (env) => rejected(env, 'Invalid API token')),
		c(
			'wrong path (404)',
			(env) => good(env, `${env.sim.url}/wrong`),
			(env) => notThere('form API', 'POST', env.sim.url, '/wrong/v1/forms', 'Base URL', FORM_HINT),
		),
		c(
			'unreachable host',
			(env) => good(env, env.closed),
			(env) => unreachable(env, '/v1/forms', 'Base URL'),
		),
		c('trailing slash', (env) => good(env, `${env.sim.url}/`), (env) => ok(env, env.sim.url)),
		c(
			'trailing API path (/v1)',
			(env) => good(env, `${env.sim.url}/v1`),
			(env) => notThere('form API', 'POST', env.sim.url, '/v1/v1/forms', 'Base URL', FORM_HINT),
		),
		c(
			'platform failing (503)',
			(env) => good(env, env.sim.url),
			(env) => failing('form API', 'POST', env.sim.url, '/v1/forms', 'API key and token'),
			{ path: '/v1/forms', status: 503 },
		),
	];
}

function taskCases(): Case[] {
	const c = casesOf('Task', 'workplaceTaskApi');
	const TASKS = '/api/v1/task-projects/tasks';
	const good = (env: Env, baseUrl: string) => ({ baseUrl, token: env.sim.credentials.taskJwt });
	const ok = (env: Env, base: string): Expected => ({
		status: 'OK',
		message: `Connection successful: the task API at ${base} accepted the JWT. It answered HTTP 422 to the test task, which is invalid on purpose, and HTTP 401 to a made-up JWT: nothing was created.`,
		requests: [`POST ${TASKS} 422`, `POST ${TASKS} 401`],
	});
	return [
		c('correct', (env) => good(env, env.sim.url), (env) => ok(env, env.sim.url)),
		c(
			'wrong JWT',
			(env) => ({ ...good(env, env.sim.url), token: WRONG }),
			(env) => ({
				status: 'Error',
				message: `The task API rejected the JWT (missing, invalid or expired) (HTTP 401 from POST ${env.sim.url}${TASKS}): check the "JWT" field.${said(env, 'Invalid or expired token')}`,
				requests: [`POST ${TASKS} 401`],
			}),
		),
		c(
			'JWT without the right to create tasks (403)',
			(env) => ({ ...good(env, env.sim.url), token: String((env.sim.state as { taskReadOnlyJwt: string }).taskReadOnlyJwt) }),
			(env) => ({
				status: 'Error',
				message: `The task API refused access (HTTP 403 from POST ${env.sim.url}${TASKS}): the JWT is valid but lacks the scope or role needed to create tasks. Platform message: "Insufficient scope: tasks:write is required".`,
				requests: [`POST ${TASKS} 403`],
			}),
		),
		c(
			'wrong path (404)',
			(env) => good(env, `${env.sim.url}/wrong`),
			(env) => notThere('task API', 'POST', env.sim.url, `/wrong${TASKS}`, 'Base URL', TASK_HINT),
		),
		c(
			'unreachable host',
			(env) => good(env, env.closed),
			(env) => unreachable(env, TASKS, 'Base URL'),
		),
		c('trailing slash', (env) => good(env, `${env.sim.url}/`), (env) => ok(env, env.sim.url)),
		c(
			'trailing API path (/api/v1)',
			(env) => good(env, `${env.sim.url}/api/v1`),
			(env) => notThere('task API', 'POST', env.sim.url, `/api/v1${TASKS}`, 'Base URL', TASK_HINT),
		),
		c(
			'platform failing (503)',
			(env) => good(env, env.sim.url),
			(env) => failing('task API', 'POST', env.sim.url, TASKS, 'JWT'),
			{ path: TASKS, status: 503 },
		),
	];
}

function botCases(): Case[] {
	const c = casesOf('Bot', 'workplaceBotOAuth2Api');
	const good = (env: Env, baseUrl: string) => ({ baseUrl, clientId: env.sim.credentials.botClientId, clientSecret: env.sim.credentials.botClientSecret });
	const ok = (env: Env): Expected => ({
		status: 'OK',
		message: `Connection successful: the platform at ${env.sim.url} issued a bot token, and the bot API accepted it.`,
		requests: ['POST /oauth/token 200', 'GET /bot/v1/users 200'],
		tokens: 1,
	});
	const refused = (env: Env, prefix: string): Expected => notThere('token endpoint', 'POST', env.sim.url, `${prefix}/oauth/token`, 'Base URL', BOT_HINT);
	/** The token is issued, then the user lookup (GET /bot/v1/users) answers `status`. */
	const lookupFails = (name: string, status: number, message: string): Case =>
		c(
			name,
			(env) => good(env, env.sim.url),
			() => ({ status: 'Error', message, requests: ['POST /oauth/token 200', `GET /bot/v1/users ${status}`], tokens: 1 }),
			{ method: 'GET', path: '/bot/v1/users', status },
		);
	return [
		c('correct', (env) => good(env, env.sim.url), ok),
		c(
			'wrong client secret',
			(env) => ({ ...good(env, env.sim.url), clientSecret: WRONG }),
			(env) => ({
				status: 'Error',
				message: `The platform refused the bot's client ID or secret (HTTP 401 from POST ${env.sim.url}/oauth/token): check the "Client ID" and "Client Secret" fields.${said(env, 'Client authentication failed: unknown client or wrong secret')}`,
				requests: ['POST /oauth/token 401'],
			}),
		),
		c('wrong path (404)', (env) => good(env, `${env.sim.url}/wrong`), (env) => refused(env, '/wrong')),
		c(
			'unreachable host',
			(env) => good(env, env.closed),
			(env) => unreachable(env, '/oauth/token', 'Base URL'),
		),
		c('trailing slash', (env) => good(env, `${env.sim.url}/`), ok),
		c('trailing API path (/bot/v1)', (env) => good(env, `${env.sim.url}/bot/v1`), (env) => refused(env, '/bot/v1')),
		lookupFails(
			'token without the "bot" scope (403 on the user lookup)',
			403,
			'The platform issued a token without the "bot" scope (HTTP 403 from GET /bot/v1/users): the bot profile may not look up users, ask the platform admin to grant it the scope "bot profile". Platform message: "Forbidden".',
		),
		lookupFails(
			'bot API failing (503 on the user lookup)',
			503,
			'The bot API failed to answer (HTTP 503 from GET /bot/v1/users): the token was issued, the bot API could not be checked, try again later. Platform message: "Service Unavailable".',
		),
		c(
			'platform failing (503)',
			(env) => good(env, env.sim.url),
			(env) => failing('token endpoint', 'POST', env.sim.url, '/oauth/token', 'client ID and secret'),
			{ path: '/oauth/token', status: 503 },
		),
	];
}

function webhookCases(): Case[] {
	const c = (name: string, data: Case['data'], expect: Expected): Case => ({
		credential: 'Webhook',
		type: 'workplaceWebhookApi',
		name,
		data,
		expect: () => expect,
	});
	const saved = 'Secret saved. The platform offers no way to check it: each delivery is verified when it arrives.';
	return [
		c('correct', (env) => ({ secret: env.sim.credentials.webhookSecret }), { status: 'OK', message: saved, requests: [] }),
		c('wrong secret (cannot be checked)', () => ({ secret: WRONG }), { status: 'OK', message: saved, requests: [] }),
		c('secret with white space around it', (env) => ({ secret: ` ${env.sim.credentials.webhookSecret} ` }), {
			status: 'Error',
			message: 'The secret starts or ends with white space; signatures would not match',
			requests: [],
		}),
	];
}

const CASES: Case[] = [...knowledgeCases(), ...botCases(), ...formCases(), ...taskCases(), ...webhookCases()];

interface Observed {
	status: string;
	message: string;
	requests: string[];
	tokens: number;
	stateChanged: string[];
}

interface Row {
	credential: string;
	name: string;
	shape: Shape;
	observed: Observed;
	expected: Expected;
}

type Snapshot = Record<string, unknown>;

async function simState(sim: E2eSimulator): Promise<Snapshot> {
	const res = await fetch(`${sim.controlUrl}/state`);
	if (!res.ok) throw new Error(`GET /__sim/state answered ${res.status}`);
	return (await res.json()) as Snapshot;
}

/** Which parts of the platform's state differ (tokens and the simulator's settings aside). */
function changedParts(before: Snapshot, after: Snapshot): string[] {
	const ignore = new Set(['issuedTokens', 'activeTokens', 'latencyMs', 'faults', 'config']);
	return Object.keys({ ...before, ...after }).filter((k) => !ignore.has(k) && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

async function setShape(sim: E2eSimulator, shape: Shape): Promise<void> {
	const res = await fetch(`${sim.controlUrl}/config`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ unauthorizedBody: shape }),
	});
	const body = (await res.json()) as { unauthorizedBody?: string };
	if (!res.ok || body.unauthorizedBody !== shape) throw new Error(`POST /__sim/config {unauthorizedBody: ${shape}} answered ${res.status} ${JSON.stringify(body)}`);
}

async function runCases(ctx: ScenarioContext, srv: TriggerServer): Promise<Row[]> {
	const closed = `http://127.0.0.1:${await getFreePort()}`;
	const rows: Row[] = [];
	const saved = new Map<Case, { id: string; name: string; data: Record<string, unknown> }>();
	for (const shape of SHAPES) {
		await setShape(ctx.sim, shape);
		const env: Env = { sim: ctx.sim, closed, shape, target: ctx.target };
		for (const c of CASES) {
			let credential = saved.get(c);
			if (!credential) {
				const name = `e2e ${c.credential}: ${c.name}`;
				const data = c.data(env);
				credential = { id: await srv.createCredential(name, c.type, data), name, data };
				saved.set(c, credential);
			}
			ctx.sim.faults?.clear();
			if (c.fault) ctx.sim.faults?.add(c.fault);
			const before = await simState(ctx.sim);
			ctx.sim.log.clear();
			const result = await srv.server.rest<{ status: string; message: string }>('POST', '/credentials/test', {
				credentials: { id: credential.id, name: credential.name, type: c.type, data: credential.data },
			});
			const requests = ctx.sim.log.all().map((r) => `${r.method} ${r.path} ${r.status}`);
			const after = await simState(ctx.sim);
			ctx.sim.faults?.clear();
			rows.push({
				credential: c.credential,
				name: c.name,
				shape,
				observed: {
					status: result.status,
					message: result.message,
					requests,
					tokens: Number(after.issuedTokens) - Number(before.issuedTokens),
					stateChanged: changedParts(before, after),
				},
				expected: c.expect(env),
			});
		}
	}
	await setShape(ctx.sim, 'interface');
	return rows;
}

function printTable(ctx: ScenarioContext, rows: Row[]): void {
	const lines = [`      [n8n ${ctx.n8nVersion}] Test button (POST /rest/credentials/test), what the user sees:`];
	for (const r of rows) {
		const same = r.observed.status === r.expected.status && r.observed.message === r.expected.message;
		lines.push(
			`        ${same ? '✓' : '✗'} ${r.credential} | ${r.name} | 401 body ${r.shape} | ${r.observed.status}: ${r.observed.message} | requests: ${r.observed.requests.join(', ') || 'none'}${r.observed.tokens ? ` | tokens issued: ${r.observed.tokens}` : ''}${r.observed.stateChanged.length ? ` | STATE CHANGED: ${r.observed.stateChanged.join(', ')}` : ''}`,
		);
	}
	process.stdout.write(`${lines.join('\n')}\n`);
}

export const scenario = triggerServerScenario({
	name: 'credentials: Test button through POST /rest/credentials/test (n8n start), every credential and failure',
	placeholderNote: 'the credential tests run in before()',
	run: runCases,
	check(rows, ctx) {
		printTable(ctx, rows);
		const failures: string[] = [];
		for (const r of rows) {
			const label = `${r.credential} / ${r.name} / 401 body ${r.shape}`;
			const e = r.expected;
			const o = r.observed;
			if (o.status !== e.status) failures.push(`${label}: status ${o.status}, expected ${e.status}`);
			if (o.message !== e.message) failures.push(`${label}: message\n          got:      ${o.message}\n          expected: ${e.message}`);
			if (JSON.stringify(o.requests) !== JSON.stringify(e.requests)) {
				failures.push(`${label}: requests [${o.requests.join(', ')}], expected [${e.requests.join(', ')}]`);
			}
			if (o.tokens !== (e.tokens ?? 0)) failures.push(`${label}: ${o.tokens} token(s) issued, expected ${e.tokens ?? 0}`);
			if (o.stateChanged.length) failures.push(`${label}: the platform's state changed (${o.stateChanged.join(', ')})`);
		}
		assert.equal(failures.length, 0, `${failures.length} case(s) differ:\n        ${failures.join('\n        ')}`);
	},
});
