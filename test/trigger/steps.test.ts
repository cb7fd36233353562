/**
 * The steps of a delivery (nodes/WorkplaceTrigger/receiveDelivery.ts), each alone with a small stand-in
 * for n8n's webhook context: the signature, the selection of events and the duplicates. The
 * whole path runs in trigger.test.ts through the trigger bed.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { signBody } from '../../simulator';
import { parseDelivery } from '../../nodes/shared/delivery';
import type { BotDelivery, UserDelivery } from '../../nodes/shared/delivery';
import type { Fresh, Receipt } from '../../nodes/WorkplaceTrigger/receiveDelivery';
import { deduplicate, selectEvents, verifySignature } from '../../nodes/WorkplaceTrigger/receiveDelivery';

interface Answered {
	status?: number;
	body?: unknown;
	headers: Record<string, string>;
}

/** A webhook context with the parameters, credential and response object the steps read. */
function context(parameters: IDataObject, credential?: { id: string; secret: string }) {
	const answered: Answered = { headers: {} };
	const response = {
		status(code: number) {
			answered.status = code;
			return response;
		},
		json(body: unknown) {
			answered.body = body;
			return response;
		},
		setHeader(name: string, value: string) {
			answered.headers[name] = value;
		},
	};
	const lines: string[] = [];
	const ctx = {
		getNodeParameter: (name: string, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
		getNode: () => ({ id: 'node-1', name: 'Workplace Trigger', credentials: credential ? { workplaceWebhookApi: { id: credential.id, name: 'secret' } } : {} }),
		getWorkflow: () => ({ id: 'wf-steps', name: 'steps', active: true }),
		getCredentials: async () => ({ secret: credential?.secret }),
		getResponseObject: () => response,
		logger: { error: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), info: (m: string) => lines.push(m), debug: () => undefined },
	} as unknown as IWebhookFunctions;
	return { ctx, answered, lines };
}

function receipt(staticData: IDataObject, options: IDataObject = {}, production = true): Receipt {
	const scope = `wf-steps:${Math.random()}`;
	return { options, staticData, scope, production, questions: { scope, staticData, key: 'hook-steps' } };
}

describe('verifySignature', () => {
	const body = Buffer.from('{"events":[]}');

	it('a valid signature passes; a wrong or missing one is answered 401 before anything is read', async () => {
		const secret = { id: `cred-${Math.random()}`, secret: 'step-secret' };
		const { ctx } = context({ verification: 'secret' }, secret);
		expect(await verifySignature(ctx, body, signBody('step-secret', body.toString()))).toBeUndefined();
		const wrong = context({ verification: 'secret' }, secret);
		expect(await verifySignature(wrong.ctx, body, signBody('other', body.toString()))).toEqual({ noWebhookResponse: true });
		expect(wrong.answered).toEqual({ status: 401, body: { message: 'Invalid X-Service-Signature' }, headers: {} });
		const missing = context({ verification: 'secret' }, secret);
		await verifySignature(missing.ctx, body, undefined);
		expect(missing.answered.body).toEqual({ message: 'Missing X-Service-Signature header' });
	});

	it('without a credential: 500 and a line for the admin; with verification off: passes', async () => {
		const none = context({ verification: 'secret' });
		await verifySignature(none.ctx, body, 'x');
		expect(none.answered.status).toBe(500);
		expect(none.lines).toHaveLength(1);
		expect(await verifySignature(context({ verification: 'none' }).ctx, body, undefined)).toBeUndefined();
	});
});

describe('selectEvents', () => {
	const bot = (events: IDataObject[]) => parseDelivery(Buffer.from(JSON.stringify({ events })), undefined) as BotDelivery;
	const message = (groupId: string, topicId?: string) => ({ type: 'message', message: { id: `m-${groupId}-${topicId}`, type: 'text', text: 'hi', groupId, topicId }, source: { type: 'user', userId: 'u1' }, timestamp: '2026-11-27T10:00:00Z' });

	it('keeps the selected events of the groups and topics named', () => {
		const { ctx } = context({ events: ['message'] });
		const delivery = bot([message('g1', 't1'), message('g1', 't2'), message('g2'), { type: 'join', source: { type: 'direct_chat', uid: 'u1', gid: 'g9' } }]);
		const picked = selectEvents(ctx, delivery, Buffer.from(''), receipt({}, { groupIds: 'g1', topicIds: 't1' }));
		expect(picked.map((c) => (c.json.message as IDataObject).id)).toEqual(['m-g1-t1']);
	});

	it('a user event when its action is selected; an unknown delivery gives none', () => {
		const { ctx } = context({ events: ['userCreated'] });
		const raw = Buffer.from(JSON.stringify({ action: 'created', user: { _id: 'u7' } }));
		const user = parseDelivery(raw, 'user') as UserDelivery;
		expect(selectEvents(ctx, user, raw, receipt({})).map((c) => c.json)).toEqual([{ action: 'created', user: { _id: 'u7' } }]);
		expect(selectEvents(ctx, { kind: 'unknown', body: {} } as never, raw, receipt({}))).toEqual([]);
	});
});

describe('deduplicate', () => {
	const candidates = (...keys: string[]) => keys.map((key) => ({ json: { key }, key }));

	it('fresh events pass and are written on settle; the same again is "repeated"; test mode keeps every event', async () => {
		const staticData: IDataObject = {};
		const production = receipt(staticData);
		const { ctx } = context({});
		const first = deduplicate(ctx, candidates('a', 'b'), production) as Fresh;
		expect(first.fresh.map((c) => c.key)).toEqual(['a', 'b']);
		first.answered();
		await first.settle();
		expect(Object.keys(staticData)).toEqual(['recentEventKeys']);
		expect(deduplicate(ctx, candidates('a', 'b'), production)).toHaveProperty('repeated');
		const test = deduplicate(ctx, candidates('a', 'b'), receipt({}, {}, false)) as Fresh;
		expect(test.fresh).toHaveLength(2);
	});

	it('a redelivery while the first is still being received is asked again later (503, Retry-After)', () => {
		const production = receipt({});
		const first = context({});
		deduplicate(first.ctx, candidates('c'), production);
		const again = context({});
		expect(deduplicate(again.ctx, candidates('c'), production)).toEqual({ noWebhookResponse: true });
		expect([again.answered.status, again.answered.headers['Retry-After']]).toEqual([503, '10']);
	});
});
