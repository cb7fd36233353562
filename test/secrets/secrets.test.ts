/**
 * No credential value leaks: representative workflows of every node (successes, platform
 * errors, wrong credentials and injected faults) run through n8n's engine with n8n's logger at
 * debug level; then every output item, the whole run data n8n would store (errors with their
 * message, description, context and cause), trigger answers, credential test results and all
 * captured log output are searched for every credential value: API keys, the client secret
 * (also as Basic auth), every access token the simulator issued, the form token, the task
 * JWTs, the webhook secret, and the wrong values the failure cases used.
 *
 *   npx tsc -p tsconfig.json && npx gulp build:icons && npx tsc -p tsconfig.tools.json &&
 *   npx jest build/test/secrets
 */
import { capturedLogs, safeStringify, stopCapture } from './log-capture';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { messageEvent, SEED, signBody } from '../../simulator';
import type { RunNodeOptions, RunNodeResult } from '../helpers/engine';
import { CredentialStore, runNode, testCredential } from '../helpers/engine';
import { resetProcessState } from '../helpers/jest-setup';
import { useSimulator } from '../helpers/simulator';
import { TriggerBed } from '../trigger/trigger-bed';

const WEBHOOK_SECRET = 'secrets-test-webhook-secret-c0ffee';
const WRONG = {
	knowledgeKey: 'wrong-knowledge-key-LEAKCHECK-1',
	clientSecret: 'wrong-client-secret-LEAKCHECK-2',
	formToken: 'wrong-form-token-LEAKCHECK-3',
	formKey: 'wrong-form-key-LEAKCHECK-4',
	taskJwt: 'wrong.task.jwt-LEAKCHECK-5',
	webhookSecret: 'wrong-webhook-secret-LEAKCHECK-6',
};

const sim = useSimulator({ reset: false });
/** Everything a user or an operator could see, labelled by where it came from. */
const haystacks: Array<{ label: string; text: string }> = [];
const issuedTokens = new Set<string>();
let runs = 0;

function record(label: string, value: unknown): void {
	haystacks.push({ label, text: safeStringify(value) });
}

function rememberTokens(): void {
	for (const t of sim.state.tokens()) issuedTokens.add((t as { token: string }).token);
}

function recordRun(label: string, result: RunNodeResult): void {
	runs++;
	record(`${label}: items`, result.items);
	record(`${label}: error`, result.error && { ...result.error, message: result.error.message, stack: result.error.stack });
	record(`${label}: run data`, result.run);
	rememberTokens();
}

const cred = () => ({
	knowledge: { workplaceKnowledgeApi: { knowledgeUrl: sim.knowledgeUrl, apiKey: sim.credentials.knowledgeApiKey } },
	bot: { workplaceBotOAuth2Api: { baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret: sim.credentials.botClientSecret } },
	form: { workplaceFormApi: { baseUrl: sim.url, apiKey: sim.credentials.formApiKey, token: sim.credentials.formApiToken } },
	task: { workplaceTaskApi: { baseUrl: sim.url, token: sim.credentials.taskJwt } },
});

async function run(label: string, nodeType: string, parameters: INodeParameters, options: Partial<RunNodeOptions>) {
	const result = await runNode({ nodeType, parameters, ...options });
	recordRun(label, result);
	return result;
}

const FORM: INodeParameters = {
	resource: 'form',
	operation: 'create',
	name: 'Leave request',
	subject: 'Leave',
	senderUserId: 'alice',
	receiverUserIds: 'bob',
	status: 'submitted',
	formFields: { field: [{ type: 'textinput', name: 'Reason', value: '', editable: true }] },
};

async function runEverything(): Promise<void> {
	const c = cred();
	const kb = SEED.knowledge.handbook;
	const byId = (value: string) => ({ __rl: true, mode: 'id', value });

	// Knowledge: success, 404, wrong key, faults (503 after the handler, reset, 429 exhausted).
	await run('knowledge list', 'workplaceKnowledge', { resource: 'knowledgeBase', operation: 'getAll', returnAll: true }, { credentials: c.knowledge });
	await run('knowledge download', 'workplaceKnowledge', { resource: 'file', operation: 'download', knowledgeBaseId: byId(kb.id), fileId: byId(kb.files.policy), binaryPropertyName: 'data' }, { credentials: c.knowledge });
	await run('knowledge upload', 'workplaceKnowledge', { resource: 'file', operation: 'upload', knowledgeBaseId: byId(kb.id), binaryPropertyName: 'data' }, {
		credentials: c.knowledge,
		inputItems: [{ json: {}, binary: { data: { data: 'hello', fileName: 'a.txt', mimeType: 'text/plain' } } }],
	});
	await run('knowledge 404', 'workplaceKnowledge', { resource: 'knowledgeBase', operation: 'get', knowledgeBaseId: byId('a0000000-0000-4000-8000-00000000dead') }, { credentials: c.knowledge });
	await run('knowledge wrong key', 'workplaceKnowledge', { resource: 'knowledgeBase', operation: 'getAll', returnAll: true }, {
		credentials: { workplaceKnowledgeApi: { knowledgeUrl: sim.knowledgeUrl, apiKey: WRONG.knowledgeKey } },
	});
	await run('knowledge wrong key, continue on fail', 'workplaceKnowledge', { resource: 'knowledgeBase', operation: 'getAll', returnAll: true }, {
		credentials: { workplaceKnowledgeApi: { knowledgeUrl: sim.knowledgeUrl, apiKey: WRONG.knowledgeKey } },
		continueOnFail: true,
	});
	sim.faults.add({ method: 'POST', path: '/api/v1/knowledge', status: 503, afterHandler: true });
	await run('knowledge 503', 'workplaceKnowledge', { resource: 'knowledgeBase', operation: 'create', name: 'x' }, { credentials: c.knowledge });
	sim.faults.add({ method: 'POST', path: '/api/v1/knowledge', reset: true });
	await run('knowledge reset', 'workplaceKnowledge', { resource: 'knowledgeBase', operation: 'create', name: 'y' }, { credentials: c.knowledge, continueOnFail: true });
	sim.faults.add({ method: 'GET', path: '/api/v1/knowledge', status: 429, retryAfter: 0, times: 4 });
	await run('knowledge 429 exhausted', 'workplaceKnowledge', { resource: 'knowledgeBase', operation: 'getAll', returnAll: true }, { credentials: c.knowledge });
	await run('knowledge unreachable', 'workplaceKnowledge', { resource: 'knowledgeBase', operation: 'getAll', returnAll: true }, {
		credentials: { workplaceKnowledgeApi: { knowledgeUrl: 'http://127.0.0.1:1/api/v1', apiKey: sim.credentials.knowledgeApiKey } },
	});

	// Bot: send, picture, wrong client secret, expired token mid-run, faults.
	const uid = SEED.users.alice._id;
	const store = new CredentialStore();
	const sendText = { resource: 'directMessage', operation: 'sendText', userId: uid, text: '={{ $json.text }}' };
	await run('bot send', 'workplaceBot', sendText, { credentials: c.bot, credentialStore: store, inputItems: [{ json: { text: 'a' } }] });
	sim.expireTokens();
	await run('bot send after expiry', 'workplaceBot', sendText, { credentials: c.bot, credentialStore: store, inputItems: [{ json: { text: 'b' } }, { json: { text: 'c' } }] });
	await run('bot image', 'workplaceBot', { resource: 'image', operation: 'download', pictureId: SEED.pictures.first, size: 'small', binaryPropertyName: 'photo' }, { credentials: c.bot, credentialStore: store });
	await run('bot unknown picture', 'workplaceBot', { resource: 'image', operation: 'download', pictureId: 'pic-missing', size: 'small', binaryPropertyName: 'photo' }, { credentials: c.bot, credentialStore: store });
	// Another process (this one holds a valid token for the account, whatever secret is entered now).
	resetProcessState();
	await run('bot wrong client secret', 'workplaceBot', sendText, {
		credentials: { workplaceBotOAuth2Api: { ...c.bot.workplaceBotOAuth2Api, clientSecret: WRONG.clientSecret } },
		inputItems: [{ json: { text: 'x' } }],
	});
	resetProcessState();
	await run('bot wrong client secret, continue on fail', 'workplaceBot', sendText, {
		credentials: { workplaceBotOAuth2Api: { ...c.bot.workplaceBotOAuth2Api, clientSecret: WRONG.clientSecret } },
		inputItems: [{ json: { text: 'x' } }],
		continueOnFail: true,
	});
	sim.faults.add({ method: 'POST', path: '/bot/v1/direct/message', status: 503, afterHandler: true });
	await run('bot 503', 'workplaceBot', sendText, { credentials: c.bot, credentialStore: store, inputItems: [{ json: { text: 'd' } }] });
	sim.faults.add({ method: 'POST', path: '/bot/v1/direct/message', reset: true, afterHandler: true });
	await run('bot reset', 'workplaceBot', sendText, { credentials: c.bot, credentialStore: store, inputItems: [{ json: { text: 'e' } }], continueOnFail: true });
	sim.faults.add({ method: 'POST', path: '/bot/v1/direct/message', status: 401, times: 2 });
	await run('bot 401 twice', 'workplaceBot', sendText, { credentials: c.bot, credentialStore: store, inputItems: [{ json: { text: 'f' } }] });
	sim.faults.add({ method: 'POST', path: '/oauth/token', status: 500 });
	resetProcessState();
	await run('bot token endpoint 500', 'workplaceBot', sendText, { credentials: c.bot, inputItems: [{ json: { text: 'g' } }] });

	// Form: success, validation error, wrong token and key, 503.
	await run('form create', 'workplaceForm', FORM, { credentials: c.form });
	await run('form invalid parameters', 'workplaceForm', { ...FORM, receiverUserIds: '' }, { credentials: c.form });
	await run('form wrong token', 'workplaceForm', FORM, {
		credentials: { workplaceFormApi: { ...c.form.workplaceFormApi, token: WRONG.formToken, apiKey: WRONG.formKey } },
	});
	sim.faults.add({ method: 'POST', path: '/v1/forms', status: 503, afterHandler: true });
	await run('form 503', 'workplaceForm', FORM, { credentials: c.form, continueOnFail: true });

	// Task: success, 403 read-only JWT, wrong JWT, 503 retried, 422.
	const task = { resource: 'task', operation: 'create', taskTitle: 'Secret check' };
	await run('task create', 'workplaceTask', task, { credentials: c.task });
	await run('task read-only JWT', 'workplaceTask', task, { credentials: { workplaceTaskApi: { baseUrl: sim.url, token: sim.state.taskReadOnlyJwt } } });
	await run('task wrong JWT', 'workplaceTask', task, { credentials: { workplaceTaskApi: { baseUrl: sim.url, token: WRONG.taskJwt } }, continueOnFail: true });
	sim.faults.add({ method: 'POST', path: '/api/v1/task-projects/tasks', status: 503, retryAfter: 0, afterHandler: true });
	await run('task 503 retried', 'workplaceTask', task, { credentials: c.task });
	sim.faults.add({ method: 'POST', path: '/api/v1/task-projects/tasks', status: 503, retryAfter: 0, times: 3 });
	await run('task 503 exhausted', 'workplaceTask', task, { credentials: c.task });
	await run('task invalid due date', 'workplaceTask', { ...task, additionalFields: { dueDate: 'not a date' } }, { credentials: c.task });

	// Trigger: accepted, refused (wrong secret), picture download with the bot credential, failing picture.
	await TriggerBed.init();
	const bed = new TriggerBed({
		parameters: { verification: 'secret', events: ['*'], useBotCredential: true, downloadImages: true, imageSize: 'small' },
		credentials: { workplaceWebhookApi: { secret: WEBHOOK_SECRET }, ...c.bot },
	});
	const deliveries: Array<[string, object, string]> = [
		['trigger accepted', { events: [messageEvent({ pictureId: SEED.pictures.first })] }, WEBHOOK_SECRET],
		['trigger wrong secret', { events: [messageEvent()] }, WRONG.webhookSecret],
		['trigger unknown picture', { events: [messageEvent({ pictureId: 'pic-missing' })] }, WEBHOOK_SECRET],
		['trigger malformed', { nope: true }, WEBHOOK_SECRET],
	];
	for (const [label, body, secret] of deliveries) {
		const raw = JSON.stringify(body);
		const outcome = await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody(secret, raw) } });
		record(label, { ...outcome, error: outcome.error && { ...outcome.error, message: outcome.error.message, stack: outcome.error.stack } });
		runs++;
	}
	record('trigger static data', bed.storedStaticData);
	const emptySecret = new TriggerBed({ parameters: { verification: 'secret', events: ['*'] }, credentials: { workplaceWebhookApi: { secret: '' } } });
	record('trigger empty secret', await emptySecret.deliver({ rawBody: '{"events":[]}', headers: { 'x-service-signature': 'x' } }));

	// Credential tests ("Test" button), right and wrong values.
	const tests: Array<[string, IDataObject]> = [
		['workplaceKnowledgeApi', c.knowledge.workplaceKnowledgeApi],
		['workplaceKnowledgeApi', { ...c.knowledge.workplaceKnowledgeApi, apiKey: WRONG.knowledgeKey }],
		['workplaceBotOAuth2Api', c.bot.workplaceBotOAuth2Api],
		['workplaceBotOAuth2Api', { ...c.bot.workplaceBotOAuth2Api, clientSecret: WRONG.clientSecret }],
		['workplaceFormApi', c.form.workplaceFormApi],
		['workplaceFormApi', { ...c.form.workplaceFormApi, token: WRONG.formToken }],
		['workplaceTaskApi', c.task.workplaceTaskApi],
		['workplaceTaskApi', { ...c.task.workplaceTaskApi, token: WRONG.taskJwt }],
		['workplaceTaskApi', { ...c.task.workplaceTaskApi, token: sim.state.taskReadOnlyJwt }],
		['workplaceWebhookApi', { secret: ` ${WEBHOOK_SECRET} ` }],
	];
	for (const [type, data] of tests) {
		record(`credential test ${type}`, await testCredential(type, data));
		rememberTokens();
	}
}

function secretValues(): Array<[string, string]> {
	const basic = Buffer.from(`${sim.credentials.botClientId}:${sim.credentials.botClientSecret}`).toString('base64');
	const values: Array<[string, string]> = [
		['knowledge API key', sim.credentials.knowledgeApiKey],
		['bot client secret', sim.credentials.botClientSecret],
		['bot client id:secret as Basic auth', basic],
		['form API key', sim.credentials.formApiKey],
		['form API token', sim.credentials.formApiToken],
		['task JWT', sim.credentials.taskJwt],
		['read-only task JWT', sim.state.taskReadOnlyJwt],
		['webhook secret', WEBHOOK_SECRET],
		...Object.entries(WRONG).map(([k, v]): [string, string] => [`wrong ${k}`, v]),
		...[...issuedTokens].map((t, i): [string, string] => [`access token ${i + 1}`, t]),
	];
	// The task JWT's signature part alone would identify it too.
	values.push(['task JWT signature', sim.credentials.taskJwt.split('.')[2]]);
	return values;
}

function leaks(texts: Array<{ label: string; text: string }>): string[] {
	const found: string[] = [];
	for (const [name, value] of secretValues()) {
		for (const { label, text } of texts) {
			if (text.includes(value)) {
				const at = text.indexOf(value);
				found.push(`${name} in ${label}: ...${text.slice(Math.max(0, at - 120), at + value.length + 40)}...`);
			}
		}
	}
	return found;
}

beforeAll(async () => {
	try {
		await runEverything();
	} finally {
		stopCapture();
	}
}, 120_000);

describe('credential values never leak', () => {
	it('ran the workflows it claims, and the simulator issued tokens to look for', () => {
		expect(runs).toBeGreaterThanOrEqual(34);
		expect(issuedTokens.size).toBeGreaterThanOrEqual(3);
		expect(haystacks.some((h) => /KnowledgeNotFound|NotFound/.test(h.text))).toBe(true);
		// The failure cases really failed with the wrong values sent.
		expect(haystacks.find((h) => h.label === 'knowledge wrong key: error')?.text).toMatch(/Unauthorized/);
		for (const label of ['bot wrong client secret', 'form wrong token', 'task read-only JWT', 'knowledge 503', 'bot 503', 'task 503 exhausted']) {
			expect(haystacks.find((h) => h.label === `${label}: error`)?.text).toMatch(/"message"/);
		}
		if (process.env.SECRETS_VERBOSE) for (const h of haystacks.filter((x) => x.label.endsWith('error'))) process.stdout.write(`${h.label}: ${h.text.slice(0, 300)}\n`);
		// The search itself works: a planted value is found.
		expect(leaks([{ label: 'control', text: `x-api-key: ${sim.credentials.knowledgeApiKey}` }])).toHaveLength(1);
	});

	it('not in output items, run data, errors (message, description, context, cause), trigger answers or credential tests', () => {
		expect(leaks(haystacks)).toEqual([]);
	});

	it("not in n8n's log output (debug level) or anything written to the console", () => {
		const logs = capturedLogs.join('');
		// The logger was really on: n8n's debug lines about the runs were captured.
		expect(logs.length).toBeGreaterThan(1000);
		expect(logs).toMatch(/Start executing node|Running node|Workflow execution/i);
		expect(leaks([{ label: 'logs', text: logs }])).toEqual([]);
	});
});
