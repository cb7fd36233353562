import type {
	IAuthenticateGeneric,
	IAuthenticateRuleResponseSuccessBody,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/** The task API: a JWT sent as `Authorization: Bearer <JWT>`, with a JSON content type. */
export class WorkplaceTaskApi implements ICredentialType {
	name = 'workplaceTaskApi';

	displayName = 'Workplace Task API';

	icon: Icon = { light: 'file:icons/workplace.svg', dark: 'file:icons/workplace.dark.svg' };

	documentationUrl = 'https://github.com/workplace-n8n/n8n-nodes-workplace#workplace-task-api';

	properties: INodeProperties[] = [
		{
			displayName:
				'The task API has no read-only call, so "Test" sends POST /api/v1/task-projects/tasks with an empty body. The platform checks the token first and then rejects the task as invalid (422): nothing is created. A rejected token (401), a token without permission to create tasks (403) or a wrong Base URL fails the test.',
			name: 'testNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://workplace.example.com',
			description: 'Address of the platform; tasks are created at {Base URL}/api/v1/task-projects/tasks',
		},
		{
			displayName: 'JWT',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: "The JSON Web Token, sent in the Authorization header as a Bearer token (a leading \"Bearer \" is removed)",
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '={{"Bearer " + $credentials.token.replace(/^\\s*Bearer\\s+/i, "").trim()}}',
				'Content-Type': 'application/json',
			},
		},
	};

	// No harmless read exists: a task without its required title passes authentication and fails
	// validation (422), which proves the token (and its right to create tasks) without creating
	// anything. With ignoreHttpStatusErrors the answer's body decides: the platform's error names,
	// and the common framework shapes ({statusCode}, {error: 'Not Found'}) for a wrong Base URL.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/api/v1/task-projects/tasks',
			method: 'POST',
			body: { taskDescription: 'n8n credential test: a task without a title, rejected by the platform' },
			ignoreHttpStatusErrors: true,
		},
		rules: [
			...[
				['error', 'Unauthorized'],
				['statusCode', 401],
			].map(([key, value]) => rule(key, value, UNAUTHORIZED)),
			...[
				['error', 'Forbidden'],
				['statusCode', 403],
			].map(([key, value]) => rule(key, value, FORBIDDEN)),
			...[
				['error', 'NotFound'],
				['error', 'Not Found'],
				['statusCode', 404],
				['status', 404],
			].map(([key, value]) => rule(key, value, NOT_FOUND)),
		],
	};
}

const UNAUTHORIZED = 'The platform rejected the JWT: missing, invalid or expired (401)';
const FORBIDDEN = 'The JWT is valid but may not create tasks: it lacks the scope or role (403)';
const NOT_FOUND = 'No task API at this Base URL (404): use the platform address, without /api/v1';

function rule(key: string | number, value: string | number, message: string): IAuthenticateRuleResponseSuccessBody {
	return { type: 'responseSuccessBody', properties: { key: String(key), value, message } };
}
