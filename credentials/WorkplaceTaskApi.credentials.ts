import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProperty, secretProperty, testNotice } from './properties';

/**
 * The task API: a JWT sent as `Authorization: Bearer <JWT>`, with a JSON content type. Its "Test"
 * button is the Workplace Task node's `testTaskCredential` (nodes/WorkplaceTask/transport.ts),
 * judged by the HTTP status.
 */
export class WorkplaceTaskApi implements ICredentialType {
	name = 'workplaceTaskApi';

	displayName = 'Workplace Task API';

	icon: Icon = { light: 'file:icons/workplace.svg', dark: 'file:icons/workplace.dark.svg' };

	documentationUrl = 'https://github.com/workplace-n8n/n8n-nodes-workplace#workplace-task-api';

	properties: INodeProperties[] = [
		testNotice(
			'The task API has no read-only call, so "Test" sends POST /api/v1/task-projects/tasks with a body that cannot be a task (no title; priority, due date and checklist of the wrong types). The platform refuses it and nothing is created; the same request with a made-up JWT must then get 401 or 403, which shows the JWT was checked. A rejected token (401), a token without permission to create tasks (403) or a wrong Base URL fails the test.',
		),
		baseUrlProperty('Address of the platform; tasks are created at {Base URL}/api/v1/task-projects/tasks'),
		secretProperty(
			'JWT',
			'token',
			'The JSON Web Token, sent in the Authorization header as a Bearer token (a leading "Bearer " is removed)',
		),
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
}
