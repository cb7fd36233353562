/** What the Send and Wait for Response tests share: running the node, reading the push, the resume URLs. */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { LoggedRequest, Simulator } from '../../simulator';
import { SEED } from '../../simulator/seed';
import { ENGINE_INSTANCE_BASE_URL } from '../helpers/engine-additional-data';
import { runBot } from './bot.fixtures';

export const alice = SEED.users.alice;
export const aliceChat = SEED.directChats.alice;
export const project = SEED.groups.project;
export const PUSH = '/bot/v2/message/push';
export const BROWSER =
	'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/** Runs Message > Send and Wait for Response once; `pushes` are its push requests. */
export async function send(sim: Simulator, parameters: INodeParameters, inputItems?: Array<{ json: IDataObject }>) {
	const before = Date.now();
	const run = await runBot(sim, { resource: 'message', operation: 'sendAndWait', ...parameters }, inputItems ? { inputItems } : {});
	return { ...run, before, pushes: run.requests.filter((r) => r.path === PUSH) };
}

/** Checks method, path, bearer token and JSON content type of a push; returns its body. */
export function pushBody(sim: Simulator, request: LoggedRequest): IDataObject {
	expect([request.method, request.path, request.status]).toEqual(['POST', PUSH, 200]);
	expect(sim.state.tokens().map((t) => `Bearer ${t.token}`)).toContain(request.headers.authorization);
	expect(request.headers['content-type']).toMatch(/^application\/json/);
	return request.body as IDataObject;
}

export type UriAction = { type: string; label: string; linkUri: string };

export function actionsOf(body: IDataObject): UriAction[] {
	const [message] = body.messages as IDataObject[];
	return (message.template as IDataObject).actions as UriAction[];
}

/** A resume URL as n8n's getSignedResumeUrl builds it in the engine bed. */
export function resumeUrlPattern(executionId: string, nodeId: string, query: string): RegExp {
	const prefix = `${ENGINE_INSTANCE_BASE_URL}/webhook-waiting/${executionId}/${nodeId}?`.replace(/[.?/]/g, '\\$&');
	return new RegExp(`^${prefix}${query}nonce=[A-Za-z0-9_-]{8}&signature=[0-9a-f]{64}$`);
}

/** Send To: alice's direct chat. */
export const toAlice = { sendTo: 'user', userId: alice._id };

export const approval = (values: IDataObject = {}): INodeParameters =>
	({ responseType: 'approval', approvalOptions: { values } }) as unknown as INodeParameters;

/** Sends an approval to alice; the run and its resume URLs. */
export async function waitingApproval(sim: Simulator, approvalType: 'single' | 'double' = 'double') {
	const run = await send(sim, { ...toAlice, message: 'Approve?', ...approval({ approvalType }) });
	expect(run.error).toBeUndefined();
	const [approve, decline] = actionsOf(pushBody(sim, run.pushes[0])).map((a) => a.linkUri);
	return { run, approve, decline };
}

/** The question's message as the push answered it (`[{status, message: {id, type, groupId, threadId}}]`), named as the output names it. */
export function sentMessage(run: { items: Array<{ json: IDataObject }> }): { messageId: string; groupId: string; threadId: string } {
	const [result] = run.items[0].json.results as Array<{ message: { id: string; groupId: string; threadId: string } }>;
	expect(result.message.id).toMatch(/\S/);
	return { messageId: result.message.id, groupId: result.message.groupId, threadId: result.message.threadId };
}
