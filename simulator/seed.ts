/**
 * Seeded test data and default credentials (fixed values, so tests and docs can rely on them).
 */
import { createHmac } from 'crypto';
import { SimulatorCredentials } from './types';

const JWT_SIGNING_SECRET = 'workplace-simulator-task-jwt-secret';

function b64url(v: string | Buffer): string {
	return Buffer.from(v).toString('base64url');
}

/** HS256 JWT signed with the simulator's fixed key (deterministic for a given payload). */
export function makeJwt(payload: Record<string, unknown>): string {
	const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
	const body = b64url(JSON.stringify(payload));
	const sig = createHmac('sha256', JWT_SIGNING_SECRET).update(`${head}.${body}`).digest('base64url');
	return `${head}.${body}.${sig}`;
}

// iat 2024-01-01T00:00:00Z, exp 2099-12-31T23:59:59Z
const TASK_JWT = makeJwt({ sub: '64f0a0000000000000000001', name: 'alice', scope: 'tasks:read tasks:write', iat: 1704067200, exp: 4102444799 });
const TASK_READONLY_JWT = makeJwt({ sub: '64f0a0000000000000000002', name: 'bob', scope: 'tasks:read', iat: 1704067200, exp: 4102444799 });

export const DEFAULT_CREDENTIALS: SimulatorCredentials = {
	knowledgeApiKey: 'sim-knowledge-api-key-0123456789',
	botClientId: 'sim-bot-client-id',
	botClientSecret: 'sim-bot-client-secret-0123456789',
	formApiKey: 'sim-form-api-key',
	formApiToken: 'sim-form-api-token',
	taskJwt: TASK_JWT,
	webhookSecret: 'sim-webhook-secret',
};

/** A valid JWT whose scope lacks write access: POST /api/v1/task-projects/tasks answers 403. */
export const TASK_READONLY_JWT_DEFAULT = TASK_READONLY_JWT;

export const SEED = {
	bot: { _id: '64f0b0000000000000000001', username: 'workplace.bot' },
	users: {
		alice: { _id: '64f0a0000000000000000001', username: 'alice', email: 'alice@example.com', firstname: 'Alice', lastname: 'Anderson', position: 'Product Manager', network_admin: true },
		bob: { _id: '64f0a0000000000000000002', username: 'bob', email: 'bob@example.com', firstname: 'Bob', lastname: 'Brown', position: 'Software Engineer', network_admin: false },
		carol: { _id: '64f0a0000000000000000003', username: 'carol', email: 'carol@example.com', firstname: 'Carol', lastname: 'Chen', position: 'Designer', network_admin: false },
		dave: { _id: '64f0a0000000000000000004', username: 'dave', email: 'dave@example.com', firstname: 'Dave', lastname: 'Davis', position: 'Former Contractor', network_admin: false, deleted: true },
		erin: { _id: '64f0a0000000000000000005', username: 'erin', email: 'erin@example.com', firstname: 'Erin', lastname: 'Evans', position: 'Support Lead', network_admin: false },
	},
	groups: {
		/** bot, alice, bob, carol; one topic */
		project: { _id: '64f0c0000000000000000001', name: 'Project Apollo', mainThreadId: '64f0d0000000000000000001', topics: { release: { _id: '64f0d0000000000000000002', name: 'Release planning' } } },
		/** alice, bob; the bot is NOT a member */
		leadership: { _id: '64f0c0000000000000000002', name: 'Leadership', mainThreadId: '64f0d0000000000000000003' },
	},
	/** pre-existing direct chat between the bot and alice */
	directChats: { alice: { gid: '64f0c0000000000000000003', tid: '64f0d0000000000000000004' } },
	pictures: { first: 'pic-0001', second: 'pic-0002' },
	knowledge: {
		handbook: {
			id: 'a0000000-0000-4000-8000-000000000001',
			name: 'Employee Handbook',
			files: { policy: 'f0000000-0000-4000-8000-000000000001', holidays: 'f0000000-0000-4000-8000-000000000002' },
		},
		faq: {
			id: 'a0000000-0000-4000-8000-000000000002',
			name: 'Product FAQ',
			files: { faq: 'f0000000-0000-4000-8000-000000000003', overview: 'f0000000-0000-4000-8000-000000000004' },
		},
		empty: { id: 'a0000000-0000-4000-8000-000000000003', name: 'Empty Base' },
	},
	tasks: { parent: 'task-0001' },
	taskTopics: { roadmap: 'topic-0001' },
} as const;

export const SEED_FILE_CONTENTS = {
	policy: {
		name: 'remote-work-policy.md',
		mimeType: 'text/markdown',
		content: '# Remote work policy\n\nEmployees may work remotely up to three days per week.\n',
	},
	holidays: {
		name: 'holidays-2025.csv',
		mimeType: 'text/csv',
		content: 'date,name\n2025-01-01,New Year\n2025-12-25,Christmas\n',
	},
	faq: {
		name: 'faq.txt',
		mimeType: 'text/plain',
		content: 'Q: How do I reset my password?\nA: Use the "Forgot password" link.\n',
	},
	overview: {
		name: 'Überblick – Produkt.pdf',
		mimeType: 'application/pdf',
		content: '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
	},
} as const;
