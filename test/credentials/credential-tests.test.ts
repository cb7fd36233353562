/**
 * The "Test" button of every credential in the engine (n8n-core's credential test context and
 * RoutingNode, as testCredential() in test/helpers/engine.ts), against the simulator under each
 * of its 401 body shapes: the verdict comes from the HTTP status, the body only adds the
 * platform's words. Real n8n 1.x and 2.x run the same cases in test/e2e/scenarios/credential-tests.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { testCredential } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';

const SHAPES = ['interface', 'plain', 'framework', 'empty'] as const;
const TASKS = '/api/v1/task-projects/tasks';
const WRONG = 'wrong-value-of-the-engine-test';

const sim = useSimulator({ clearLog: true });
let closed: string;

beforeAll(async () => {
	// A port that was free a moment ago: nothing listens there.
	const probe = createServer();
	await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
	closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
	await new Promise<void>((resolve) => probe.close(() => resolve()));
});
beforeEach(async () => await setShape('interface'));

async function setShape(shape: (typeof SHAPES)[number]): Promise<void> {
	const res = await fetch(`${sim.controlUrl}/config`, { method: 'POST', body: JSON.stringify({ unauthorizedBody: shape }) });
	expect(res.status).toBe(200);
}

const requests = () => sim.log.all().map((r) => `${r.method} ${r.path} ${r.status}`);
const said = (shape: string, text: string) => (shape === 'empty' ? '' : ` Platform message: "${text}".`);
const knowledge = (over: Record<string, string> = {}) => ({ knowledgeUrl: sim.knowledgeUrl, apiKey: sim.credentials.knowledgeApiKey, ...over });
const form = (over: Record<string, string> = {}) => ({ baseUrl: sim.url, apiKey: sim.credentials.formApiKey, token: sim.credentials.formApiToken, ...over });
const task = (over: Record<string, string> = {}) => ({ baseUrl: sim.url, token: sim.credentials.taskJwt, ...over });
const bot = (over: Record<string, string> = {}) => ({ baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret: sim.credentials.botClientSecret, ...over });

describe.each(SHAPES)('a wrong key, token or secret fails with 401 bodies shaped "%s"', (shape) => {
	beforeEach(async () => await setShape(shape));

	it('knowledge API key', async () => {
		await expect(testCredential('workplaceKnowledgeApi', knowledge({ apiKey: WRONG }))).resolves.toEqual({
			status: 'Error',
			message: `The knowledge API rejected the API key (HTTP 401 from GET ${sim.knowledgeUrl}/knowledge): check the "API Key" field. The knowledge API also answers 401 when n8n calls from an address that is not on the platform's allowed list.${said(shape, 'Invalid API key')}`,
		});
		expect(requests()).toEqual(['GET /api/v1/knowledge 401']);
	});

	it.each([
		['apiKey', 'Invalid API key'],
		['token', 'Invalid API token'],
	])('form %s', async (field, platform) => {
		await expect(testCredential('workplaceFormApi', form({ [field]: WRONG }))).resolves.toEqual({
			status: 'Error',
			message: `The form API rejected the API key or the token (HTTP 401 from POST ${sim.url}/v1/forms): check the "API Key" and "User or Session Token" fields.${said(shape, platform)}`,
		});
		expect(requests()).toEqual(['POST /v1/forms 401']);
		expect(sim.state.forms()).toEqual([]);
	});

	it('task JWT', async () => {
		await expect(testCredential('workplaceTaskApi', task({ token: WRONG }))).resolves.toEqual({
			status: 'Error',
			message: `The task API rejected the JWT (missing, invalid or expired) (HTTP 401 from POST ${sim.url}${TASKS}): check the "JWT" field.${said(shape, 'Invalid or expired token')}`,
		});
		expect(requests()).toEqual([`POST ${TASKS} 401`]);
	});

	it('bot client secret', async () => {
		await expect(testCredential('workplaceBotOAuth2Api', bot({ clientSecret: WRONG }))).resolves.toEqual({
			status: 'Error',
			message: `The platform refused the bot's client ID or secret (HTTP 401 from POST ${sim.url}/oauth/token): check the "Client ID" and "Client Secret" fields.${said(shape, 'Client authentication failed: unknown client or wrong secret')}`,
		});
		expect(requests()).toEqual(['POST /oauth/token 401']);
	});

	it('the right values pass, and a form or task test creates nothing', async () => {
		expect((await testCredential('workplaceKnowledgeApi', knowledge())).status).toBe('OK');
		expect((await testCredential('workplaceFormApi', form())).status).toBe('OK');
		expect((await testCredential('workplaceTaskApi', task())).status).toBe('OK');
		expect((await testCredential('workplaceBotOAuth2Api', bot())).status).toBe('OK');
		expect(requests()).toEqual([
			'GET /api/v1/knowledge 200',
			'POST /v1/forms 400',
			'POST /v1/forms 401',
			`POST ${TASKS} 422`,
			`POST ${TASKS} 401`,
			'POST /oauth/token 200',
			'GET /bot/v1/users 200',
		]);
		expect(sim.state.forms()).toEqual([]);
		expect(sim.state.tasks().map((t) => t.id)).toEqual(['task-0001']);
	});
});

describe('Knowledge API credential test', () => {
	it('passes with a one-record list, with or without a trailing slash', async () => {
		for (const knowledgeUrl of [sim.knowledgeUrl, `${sim.knowledgeUrl}//`]) {
			await expect(testCredential('workplaceKnowledgeApi', knowledge({ knowledgeUrl }))).resolves.toEqual({
				status: 'OK',
				message: `Connection successful: the knowledge API at ${sim.knowledgeUrl} accepted the API key.`,
			});
		}
		const [request] = sim.log.all();
		expect([request.method, request.path, request.query, request.headers['x-api-key']]).toEqual([
			'GET',
			'/api/v1/knowledge',
			{ page: '1', pageSize: '1' },
			sim.credentials.knowledgeApiKey,
		]);
	});

	it('names the URL after a 404, and says when nothing listens there', async () => {
		await expect(testCredential('workplaceKnowledgeApi', knowledge({ knowledgeUrl: sim.url }))).resolves.toEqual({
			status: 'Error',
			message: `There is no knowledge API at this address (HTTP 404 from GET ${sim.url}/knowledge): check the "Knowledge URL" field. It is the address of the knowledge API including its /api/v1 prefix, e.g. https://workplace.example.com/api/v1. Platform message: "Cannot GET /knowledge".`,
		});
		await expect(testCredential('workplaceKnowledgeApi', knowledge({ knowledgeUrl: `${closed}/api/v1` }))).resolves.toEqual({
			status: 'Error',
			message: `Could not reach ${closed}/api/v1/knowledge: the connection was refused, nothing listens at that address and port. Check the "Knowledge URL" field: ${closed.slice(7)} must be reachable from n8n.`,
		});
	});

	it('reports an address not on the allowed list, 403, 429 with Retry-After and 5xx by status', async () => {
		sim.faults.add({ path: '/api/v1/knowledge', status: 403 });
		sim.faults.add({ path: '/api/v1/knowledge', status: 429, retryAfter: 7 });
		sim.faults.add({ path: '/api/v1/knowledge', status: 502, body: '<html><body>Bad gateway</body></html>' });
		const messages = [];
		for (let i = 0; i < 3; i++) messages.push((await testCredential('workplaceKnowledgeApi', knowledge())).message);
		const url = `GET ${sim.knowledgeUrl}/knowledge`;
		expect(messages).toEqual([
			`The knowledge API refused access (HTTP 403 from ${url}): the API key may not list knowledge bases. Platform message: "Forbidden".`,
			`The knowledge API is limiting requests (HTTP 429 from ${url}): the API key could not be checked, try again in 7 s. Platform message: "Rate limit exceeded".`,
			`The knowledge API failed to answer (HTTP 502 from ${url}): the API key could not be checked, try again later.`,
		]);
	});

	it('a 200 that is not JSON (a web page at that address) is not the API', async () => {
		sim.faults.add({ path: '/api/v1/knowledge', status: 200, body: '<!doctype html><title>Workplace</title>' });
		await expect(testCredential('workplaceKnowledgeApi', knowledge())).resolves.toEqual({
			status: 'Error',
			message: `GET ${sim.knowledgeUrl}/knowledge answered HTTP 200, but not with the knowledge API's JSON: check the "Knowledge URL" field. It is the address of the knowledge API including its /api/v1 prefix, e.g. https://workplace.example.com/api/v1.`,
		});
	});

	it('never shows a secret: not the key the platform echoes, not a password typed into the URL', async () => {
		const apiKey = 'secret-knowledge-key-echoed-back';
		sim.faults.add({ path: '/api/v1/knowledge', status: 401, body: { message: `Unknown key ${apiKey}` } });
		const withUser = sim.knowledgeUrl.replace('http://', 'http://someone:url-password-123@');
		const result = await testCredential('workplaceKnowledgeApi', knowledge({ apiKey, knowledgeUrl: withUser }));
		expect(result.status).toBe('Error');
		expect(result.message).toContain('Platform message: "Unknown key ***".');
		expect(result.message).toContain(`GET ${sim.knowledgeUrl}/knowledge`);
		expect(result.message).not.toMatch(/secret-knowledge-key|url-password|someone/);
	});

	it('an empty key or an address that is not a web address sends nothing', async () => {
		expect(await testCredential('workplaceKnowledgeApi', knowledge({ apiKey: ' ' }))).toEqual({ status: 'Error', message: 'Enter the API key in the "API Key" field' });
		expect(await testCredential('workplaceKnowledgeApi', knowledge({ knowledgeUrl: 'workplace.example.com/api/v1' }))).toEqual({
			status: 'Error',
			message: '"Knowledge URL" is not a web address: "workplace.example.com/api/v1". It is the address of the knowledge API including its /api/v1 prefix, e.g. https://workplace.example.com/api/v1.',
		});
		expect(requests()).toEqual([]);
	});
});

describe.each([
	{
		name: 'Form',
		type: 'workplaceFormApi',
		api: 'form API',
		path: '/v1/forms',
		accepted: 400,
		secret: 'API key and token',
		data: form,
		hint: "It is the platform's address without /v1, e.g. https://workplace.example.com.",
		count: () => sim.state.forms().length,
	},
	{
		name: 'Task',
		type: 'workplaceTaskApi',
		api: 'task API',
		path: TASKS,
		accepted: 422,
		secret: 'JWT',
		data: task,
		hint: "It is the platform's address without /api/v1, e.g. https://workplace.example.com.",
		count: () => sim.state.tasks().length,
	},
])('$name API credential test (no read-only call: an invalid create)', ({ type, api, path, accepted, secret, data, hint, count }) => {
	let before: number;
	beforeEach(() => {
		before = count();
	});
	afterEach(() => expect(count()).toBe(before));

	it('passes when the invalid body is refused and a made-up credential gets 401', async () => {
		for (const baseUrl of [sim.url, `${sim.url}/`]) {
			await expect(testCredential(type, data({ baseUrl }))).resolves.toEqual({
				status: 'OK',
				message: `Connection successful: the ${api} at ${sim.url} accepted the ${secret}. It answered HTTP ${accepted} to the test ${api.split(' ')[0]}, which is invalid on purpose, and HTTP 401 to a made-up ${secret}: nothing was created.`,
			});
		}
		const [real, control] = sim.log.all();
		expect(requests()).toEqual([`POST ${path} ${accepted}`, `POST ${path} 401`, `POST ${path} ${accepted}`, `POST ${path} 401`]);
		expect(real.body).toEqual(control.body);
		expect(JSON.stringify(control.headers)).not.toContain(type === 'workplaceFormApi' ? sim.credentials.formApiKey : sim.credentials.taskJwt);
	});

	it('passes as well when the made-up credential gets 403, as the notice says', async () => {
		// The platform refuses the real request's body, then the made-up credential with 403.
		sim.faults.add({ method: 'POST', path, status: accepted });
		sim.faults.add({ method: 'POST', path, status: 403 });
		await expect(testCredential(type, data())).resolves.toEqual({
			status: 'OK',
			message: `Connection successful: the ${api} at ${sim.url} accepted the ${secret}. It answered HTTP ${accepted} to the test ${api.split(' ')[0]}, which is invalid on purpose, and HTTP 403 to a made-up ${secret}: nothing was created.`,
		});
		expect(requests()).toEqual([`POST ${path} ${accepted}`, `POST ${path} 403`]);
	});

	it('the body breaks the spec: no required field, values outside the documented types and limits', async () => {
		await testCredential(type, data());
		const body = sim.log.all()[0].body as Record<string, unknown>;
		if (type === 'workplaceFormApi') {
			expect(Object.keys(body).filter((k) => ['name', 'subject', 'senderUserId', 'receiverUserIds', 'data', 'status'].includes(k))).toEqual([]);
			expect(body).toEqual({ dueDate: 'n8n credential test, not a date', responseTiers: [{ tier: 0, duration: -1, minimumWeight: -1 }] });
		} else {
			expect(body).not.toHaveProperty('taskTitle');
			expect(body).toEqual({ priority: 'n8n credential test, not an integer', dueDate: 'n8n credential test, not a date', checklist: [{}] });
		}
	});

	it('a platform that checks the body before the credentials cannot prove them', async () => {
		sim.faults.add({ method: 'POST', path, status: accepted, times: 2 });
		const result = await testCredential(type, data());
		expect(result).toEqual({
			status: 'Error',
			message: `The ${api} answered HTTP ${accepted} to the test ${api.split(' ')[0]}, which is invalid on purpose, and HTTP ${accepted} to the same request with a made-up ${secret}: it does not check the ${secret} before the body, so the ${secret} could not be verified. A workflow's first call will tell.`,
		});
	});

	it('a 2xx to the invalid body is an error: this does not behave like the spec', async () => {
		sim.faults.add({ method: 'POST', path, status: 201, body: { id: 'x' } });
		const result = await testCredential(type, data());
		expect(result.status).toBe('Error');
		expect(result.message).toBe(
			`POST ${sim.url}${path} answered HTTP 201 to the test ${api.split(' ')[0]}, which is invalid on purpose: the ${api} of the spec refuses such a request, so this address does not behave like it. Check the "Base URL" field, and look on the platform for an empty record from this test.`,
		);
		expect(requests()).toEqual([`POST ${path} 201`]);
	});

	it('404 names the URL and the field; a closed port says it could not be reached; 503 says try later', async () => {
		await expect(testCredential(type, data({ baseUrl: `${sim.url}/wrong` }))).resolves.toEqual({
			status: 'Error',
			message: `There is no ${api} at this address (HTTP 404 from POST ${sim.url}/wrong${path}): check the "Base URL" field. ${hint} Platform message: "Cannot POST /wrong${path}".`,
		});
		await expect(testCredential(type, data({ baseUrl: closed }))).resolves.toEqual({
			status: 'Error',
			message: `Could not reach ${closed}${path}: the connection was refused, nothing listens at that address and port. Check the "Base URL" field: ${closed.slice(7)} must be reachable from n8n.`,
		});
		sim.faults.add({ method: 'POST', path, status: 503 });
		await expect(testCredential(type, data())).resolves.toEqual({
			status: 'Error',
			message: `The ${api} failed to answer (HTTP 503 from POST ${sim.url}${path}): the ${secret} could not be checked, try again later. Platform message: "Service Unavailable".`,
		});
	});
});

describe('Task API credential test: permissions and the Bearer prefix', () => {
	it('a JWT without the right to create tasks fails with 403', async () => {
		await expect(testCredential('workplaceTaskApi', task({ token: sim.state.taskReadOnlyJwt }))).resolves.toEqual({
			status: 'Error',
			message: `The task API refused access (HTTP 403 from POST ${sim.url}${TASKS}): the JWT is valid but lacks the scope or role needed to create tasks. Platform message: "Insufficient scope: tasks:write is required".`,
		});
	});

	it('a pasted "Bearer " prefix is removed, as the credential does for the nodes', async () => {
		expect((await testCredential('workplaceTaskApi', task({ token: ` Bearer ${sim.credentials.taskJwt} ` }))).status).toBe('OK');
		expect(sim.log.all()[0].headers.authorization).toBe(`Bearer ${sim.credentials.taskJwt}`);
	});
});

describe('Bot credential test (token by preAuthentication, then a user lookup)', () => {
	it('passes: one token request as the nodes make it, one lookup with that token', async () => {
		await expect(testCredential('workplaceBotOAuth2Api', bot({ baseUrl: `${sim.url}/` }))).resolves.toEqual({
			status: 'OK',
			message: `Connection successful: the platform at ${sim.url} issued a bot token, and the bot API accepted it.`,
		});
		expect(requests()).toEqual(['POST /oauth/token 200', 'GET /bot/v1/users 200']);
		const [token, lookup] = sim.log.all();
		const basic = Buffer.from(`${sim.credentials.botClientId}:${sim.credentials.botClientSecret}`).toString('base64');
		expect(token.headers.authorization).toBe(`Basic ${basic}`);
		expect(token.contentType).toBe('application/x-www-form-urlencoded');
		expect(token.body).toEqual({ grant_type: 'client_credentials', scope: 'bot profile' });
		expect(lookup.query).toEqual({ username: 'n8n-credential-test' });
		expect(lookup.headers.authorization).toMatch(/^Bearer \S+$/);
		expect(lookup.headers.authorization).not.toContain(sim.credentials.botClientSecret);
	});

	it('names the empty field before sending anything', async () => {
		await expect(testCredential('workplaceBotOAuth2Api', bot({ clientId: ' ' }))).resolves.toEqual({
			status: 'Error',
			message: 'Enter the bot profile\'s client ID in the "Client ID" field',
		});
		await expect(testCredential('workplaceBotOAuth2Api', bot({ baseUrl: 'workplace.example.com' }))).resolves.toEqual({
			status: 'Error',
			message: '"Base URL" is not a web address: "workplace.example.com". It is the platform\'s address without a path, e.g. https://workplace.example.com.',
		});
		expect(requests()).toEqual([]);
	});

	it('decides token failures by status: 404, unreachable, 503', async () => {
		const hint = "It is the platform's address without a path, e.g. https://workplace.example.com.";
		await expect(testCredential('workplaceBotOAuth2Api', bot({ baseUrl: `${sim.url}/bot/v1` }))).resolves.toEqual({
			status: 'Error',
			message: `There is no token endpoint at this address (HTTP 404 from POST ${sim.url}/bot/v1/oauth/token): check the "Base URL" field. ${hint} Platform message: "Cannot POST /bot/v1/oauth/token".`,
		});
		await expect(testCredential('workplaceBotOAuth2Api', bot({ baseUrl: closed }))).resolves.toEqual({
			status: 'Error',
			message: `Could not reach ${closed}/oauth/token: the connection was refused, nothing listens at that address and port. Check the "Base URL" field: ${closed.slice(7)} must be reachable from n8n.`,
		});
		sim.faults.add({ path: '/oauth/token', status: 503 });
		await expect(testCredential('workplaceBotOAuth2Api', bot())).resolves.toEqual({
			status: 'Error',
			message: `The token endpoint failed to answer (HTTP 503 from POST ${sim.url}/oauth/token): the client ID and secret could not be checked, try again later. Platform message: "Service Unavailable".`,
		});
	});

	it('a token without the "bot" scope fails on the lookup (403)', async () => {
		sim.faults.add({ method: 'GET', path: '/bot/v1/users', status: 403 });
		await expect(testCredential('workplaceBotOAuth2Api', bot())).resolves.toEqual({
			status: 'Error',
			message:
				'The platform issued a token without the "bot" scope (HTTP 403 from GET /bot/v1/users): the bot profile may not look up users, ask the platform admin to grant it the scope "bot profile". Platform message: "Forbidden".',
		});
		expect(requests()).toEqual(['POST /oauth/token 200', 'GET /bot/v1/users 403']);
	});

	it('a token the bot API refuses (401 on the lookup) points at the Base URL, and never shows the token', async () => {
		sim.faults.add({ method: 'GET', path: '/bot/v1/users', status: 401 });
		const result = await testCredential('workplaceBotOAuth2Api', bot());
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The platform issued a token but refused it for GET \/bot\/v1\/users \(HTTP 401\): check the "Base URL" field, the token endpoint and the bot API must be the same platform\./,
		);
		expect(result.message).not.toContain(sim.credentials.botClientSecret);
		expect(requests()).toEqual(['POST /oauth/token 200', 'GET /bot/v1/users 401']);
	});
});

describe('a host that accepts the connection but never answers', () => {
	let silent: Server;
	afterEach(async () => await new Promise<void>((resolve) => silent.close(() => resolve())));

	it('times out after 15 s with a message naming the URL', async () => {
		silent = createServer(() => undefined);
		await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
		const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
		const started = Date.now();
		const result = await testCredential('workplaceKnowledgeApi', knowledge({ knowledgeUrl: url }));
		silent.closeAllConnections();
		expect(Date.now() - started).toBeGreaterThanOrEqual(14_000);
		expect(result).toEqual({
			status: 'Error',
			message: `Could not reach ${url}/knowledge: there was no answer within 15 seconds. Check the "Knowledge URL" field: ${url.slice(7)} must be reachable from n8n.`,
		});
	}, 40_000);
});
