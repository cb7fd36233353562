import type { Simulator } from '../../simulator';
import { startSimulator } from '../../simulator';
import { testCredential } from '../helpers/engine';
import { TASKS } from './task.fixtures';

let sim: Simulator;

beforeAll(async () => {
	sim = await startSimulator({ port: 0 });
});
beforeEach(() => {
	sim.state.reset();
	sim.log.clear();
});
afterAll(async () => await sim.close());

describe('Workplace Task API credential test', () => {
	it('passes with a valid JWT: an empty task is rejected as invalid (422), nothing is created', async () => {
		const result = await testCredential('workplaceTaskApi', { baseUrl: `${sim.url}/`, token: sim.credentials.taskJwt });
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		const [request] = sim.log.all();
		expect(sim.log.all()).toHaveLength(1);
		expect([request.method, request.path, request.status]).toEqual(['POST', TASKS, 422]);
		expect(request.headers.authorization).toBe(`Bearer ${sim.credentials.taskJwt}`);
		expect(request.body).toEqual({ taskDescription: 'n8n credential test: a task without a title, rejected by the platform' });
		expect(sim.state.tasks()).toHaveLength(1);
	});

	it('fails with an invalid JWT (401)', async () => {
		const result = await testCredential('workplaceTaskApi', { baseUrl: sim.url, token: 'wrong' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/rejected the JWT.*401/);
	});

	it('fails with a JWT that may not create tasks (403)', async () => {
		const result = await testCredential('workplaceTaskApi', { baseUrl: sim.url, token: sim.state.taskReadOnlyJwt });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/may not create tasks.*403/);
	});

	it.each([['already containing /api/v1', '/api/v1'], ['with a wrong path', '/wrong']])(
		'fails with a Base URL %s (404)',
		async (_name, suffix) => {
			const result = await testCredential('workplaceTaskApi', { baseUrl: `${sim.url}${suffix}`, token: sim.credentials.taskJwt });
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(/No task API at this Base URL/);
		},
	);
});
