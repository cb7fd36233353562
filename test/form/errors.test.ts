import type { NodeApiError } from 'n8n-workflow';

import { testCredential } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { BASE, formCredentials, FORMS, only, runForm } from './form.fixtures';

const sim = useSimulator({ clearLog: true });

describe('Workplace Form: platform errors', () => {
	it('401: a wrong API key is a NodeApiError that does not contain the key', async () => {
		const apiKey = 'wrong-form-key-must-not-leak';
		const { error, requests } = await runForm(sim, BASE, { credentials: formCredentials(sim, { apiKey }) });
		expect(only(requests).status).toBe(401);
		expect((error as NodeApiError).httpCode).toBe('401');
		expect(error?.message).toBe('HTTP 401 unauthorized: Invalid API key');
		expect(JSON.stringify({ m: error?.message, d: (error as NodeApiError).description, c: (error as NodeApiError).context })).not.toContain(apiKey);
	});

	it('404: unknown usernames are listed field by field', async () => {
		const { error, requests } = await runForm(sim, { ...BASE, receiverUserIds: 'bob, zed' });
		expect(only(requests).status).toBe(404);
		expect(error?.message).toBe('HTTP 404 user_not_found: Unknown username(s): zed [receiverUserIds[1]: user zed not found]');
		expect((error as NodeApiError).description).toContain('Code: user_not_found');
	});

	it('429: waits for Retry-After and sends the form once more; one form exists', async () => {
		sim.faults.add({ method: 'POST', path: FORMS, status: 429, retryAfter: 1 });
		const { error, requests } = await runForm(sim, BASE);
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([429, 201]);
		expect(sim.state.forms()).toHaveLength(1);
	});

	it('503: not retried (the form API takes no idempotency key, the form may exist); the error says so', async () => {
		sim.faults.add({ method: 'POST', path: FORMS, status: 503, afterHandler: true });
		const { error, requests } = await runForm(sim, BASE);
		expect(only(requests).status).toBe(503);
		expect((error as NodeApiError).httpCode).toBe('503');
		expect(sim.state.forms()).toHaveLength(1);
	});

	it('Continue On Fail: error items are paired with their input items', async () => {
		const { error, items, requests } = await runForm(
			sim,
			{ ...BASE, receiverUserIds: '={{ $json.to }}' },
			{ continueOnFail: true, inputItems: [{ json: { to: 'bob' } }, { json: { to: '' } }, { json: { to: 'nobody' } }, { json: { to: 'carol' } }] },
		);
		expect(error).toBeUndefined();
		expect(requests.map((r) => r.status)).toEqual([201, 404, 201]);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(items[0].json.receiverUserIds).toEqual(['bob']);
		expect(items[1].json.error).toBe('Item 1: "Recipient Usernames" must have at least 1 username, got 0 usernames');
		expect(items[2].json).toMatchObject({ error: 'HTTP 404 user_not_found: Unknown username(s): nobody [receiverUserIds[0]: user nobody not found]', httpCode: '404' });
		expect(items[3].json.receiverUserIds).toEqual(['carol']);
	});
});

describe('Workplace Form API credential test (the Form node\'s testFormCredential)', () => {
	const data = () => formCredentials(sim).workplaceFormApi;
	const hint = "It is the platform's address without /v1, e.g. https://workplace.example.com.";

	it('passes with a valid key and token: the invalid test form gets 400, made-up ones 401, nothing is created', async () => {
		const result = await testCredential('workplaceFormApi', data());
		expect(result).toEqual({
			status: 'OK',
			message: `Connection successful: the form API at ${sim.url} accepted the API key and token. It answered HTTP 400 to the test form, which is invalid on purpose, and HTTP 401 to a made-up API key and token: nothing was created.`,
		});
		const [request, control] = sim.log.all();
		expect(sim.log.all()).toHaveLength(2);
		expect([request.method, request.path, request.status]).toEqual(['POST', FORMS, 400]);
		expect(request.headers['x-api-key']).toBe(sim.credentials.formApiKey);
		expect(request.headers['x-api-token']).toBe(sim.credentials.formApiToken);
		expect([control.status, control.body]).toEqual([401, request.body]);
		expect(control.headers['x-api-key']).not.toBe(sim.credentials.formApiKey);
		expect(control.headers['x-api-token']).not.toBe(sim.credentials.formApiToken);
		expect(sim.state.forms()).toHaveLength(0);
	});

	it.each([
		['API key', { apiKey: 'wrong' }, 'Invalid API key'],
		['token', { token: 'wrong' }, 'Invalid API token'],
	])('fails with a wrong %s (401)', async (_name, override, platform) => {
		const result = await testCredential('workplaceFormApi', { ...data(), ...override });
		expect(result).toEqual({
			status: 'Error',
			message: `The form API rejected the API key or the token (HTTP 401 from POST ${sim.url}${FORMS}): check the "API Key" and "User or Session Token" fields. Platform message: "${platform}".`,
		});
	});

	it.each([['/v1'], ['/wrong']])('fails with a Base URL ending in %s (404), naming the URL tried', async (suffix) => {
		const result = await testCredential('workplaceFormApi', { ...data(), baseUrl: `${sim.url}${suffix}` });
		expect(result).toEqual({
			status: 'Error',
			message: `There is no form API at this address (HTTP 404 from POST ${sim.url}${suffix}${FORMS}): check the "Base URL" field. ${hint} Platform message: "Cannot POST ${suffix}${FORMS}".`,
		});
	});
});
