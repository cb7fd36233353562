import { testCredential } from '../helpers/engine';
import { useSimulator } from '../helpers/simulator';
import { TASKS } from './task.fixtures';

const sim = useSimulator({ clearLog: true });

describe('Workplace Task API credential test (the Task node\'s testTaskCredential)', () => {
	const hint = "It is the platform's address without /api/v1, e.g. https://workplace.example.com.";

	it('passes with a valid JWT: the invalid test task gets 422, a made-up JWT 401, nothing is created', async () => {
		const result = await testCredential('workplaceTaskApi', { baseUrl: `${sim.url}/`, token: sim.credentials.taskJwt });
		expect(result).toEqual({
			status: 'OK',
			message: `Connection successful: the task API at ${sim.url} accepted the JWT. It answered HTTP 422 to the test task, which is invalid on purpose, and HTTP 401 to a made-up JWT: nothing was created.`,
		});
		const [request, control] = sim.log.all();
		expect(sim.log.all()).toHaveLength(2);
		expect([request.method, request.path, request.status]).toEqual(['POST', TASKS, 422]);
		expect(request.headers.authorization).toBe(`Bearer ${sim.credentials.taskJwt}`);
		expect(request.body).not.toHaveProperty('taskTitle');
		expect([control.path, control.status, control.body]).toEqual([TASKS, 401, request.body]);
		expect(control.headers.authorization).toMatch(/^Bearer n8n-credential-test-[0-9a-f-]{36}$/);
		expect(sim.state.tasks()).toHaveLength(1);
	});

	it('fails with an invalid JWT (401), naming the field, the URL and the platform\'s words', async () => {
		const result = await testCredential('workplaceTaskApi', { baseUrl: sim.url, token: 'wrong' });
		expect(result).toEqual({
			status: 'Error',
			message: `The task API rejected the JWT (missing, invalid or expired) (HTTP 401 from POST ${sim.url}${TASKS}): check the "JWT" field. Platform message: "Invalid or expired token".`,
		});
		expect(sim.log.all()).toHaveLength(1);
	});

	it('fails with a JWT that may not create tasks (403)', async () => {
		const result = await testCredential('workplaceTaskApi', { baseUrl: sim.url, token: sim.state.taskReadOnlyJwt });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The task API refused access \(HTTP 403 from POST .*\): the JWT is valid but lacks the scope or role needed to create tasks\./);
	});

	it.each([['already containing /api/v1', '/api/v1'], ['with a wrong path', '/wrong']])(
		'fails with a Base URL %s (404), naming the URL tried',
		async (_name, suffix) => {
			const result = await testCredential('workplaceTaskApi', { baseUrl: `${sim.url}${suffix}`, token: sim.credentials.taskJwt });
			expect(result).toEqual({
				status: 'Error',
				message: `There is no task API at this address (HTTP 404 from POST ${sim.url}${suffix}${TASKS}): check the "Base URL" field. ${hint} Platform message: "Cannot POST ${suffix}${TASKS}".`,
			});
		},
	);
});
