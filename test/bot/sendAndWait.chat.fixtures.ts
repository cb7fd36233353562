/** What the tests of in-chat answers share: asking, the signed deliveries of taps, the trigger that hands them on. */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { prepareTap, signBody } from '../../simulator';
import type { LoggedRequest, Simulator } from '../../simulator';
import { decodeAnswerToken } from '../../nodes/shared/approvals/tapProtocol';
import type { WaitingRoute } from '../helpers/waiting-route';
import { TriggerBed } from '../trigger/trigger-bed';
import { botCredentials, runBot } from './bot.fixtures';
import { PUSH, alice, project, pushBody } from './sendAndWait.fixtures';

/** The webhook secret of the platform, the trigger and the Send and Wait node alike. */
export const SECRET = 'chat-answer-secret';

export type PostbackAction = { type: string; label: string; data: string };

export function inChat(extra: IDataObject = {}): INodeParameters {
	return {
		resource: 'message',
		operation: 'sendAndWait',
		message: 'Approve 120 EUR for the team lunch?',
		responseType: 'approval',
		answerIn: 'chat',
		approvalOptions: { values: { approvalType: 'double' } },
		...extra,
	} as INodeParameters;
}

export const toAlice = { sendTo: 'user', userId: { __rl: true, mode: 'id', value: alice._id } };
export const toReleaseTopic = { sendTo: 'group', groupId: project._id, topicId: project.topics.release._id };

/** A delivery of these events as the platform signs it. */
export function delivery(...events: object[]) {
	const raw = JSON.stringify({ events });
	return { raw, signature: signBody(SECRET, raw) };
}

/** A signed delivery as the trigger forwards it: the tap is its event `event` (an earlier tap among `ballots` needs none). */
export function forwarded(raw: string, signature: string, event = 0): IDataObject {
	return { delivery: Buffer.from(raw).toString('base64'), signature, event };
}

/** A signed delivery as the trigger keeps it among a question's earlier taps. */
export function ballotOf(raw: string, signature: string): IDataObject {
	return { delivery: Buffer.from(raw).toString('base64'), signature };
}

/** The resume URL (path and query) a token stands for, as the trigger calls it. */
export function urlOf(data: string): string {
	const token = decodeAnswerToken(data)!;
	return `/webhook-waiting/${token.executionId}/${token.nodeId}?nonce=${token.nonce}&answer=${token.answer}&via=chat&signature=${token.signature}`;
}

export function replyOf(request: LoggedRequest): IDataObject {
	return request.body as IDataObject;
}

/** Asking in the chat and tapping, against one simulator. */
export function chatHelpers(sim: Simulator) {
	/** Sends an in-chat approval; the run, its push body and the two postback actions. */
	async function ask(parameters: INodeParameters, inputItems: Array<{ json: IDataObject }> = [{ json: {} }]) {
		const run = await runBot(sim, parameters, {
			credentials: { ...botCredentials(sim), workplaceWebhookApi: { secret: SECRET } },
			inputItems,
		});
		expect(run.error).toBeUndefined();
		const pushes = run.requests.filter((r) => r.path === PUSH);
		expect(pushes).toHaveLength(1);
		const body = pushBody(sim, pushes[0]);
		const [message] = body.messages as IDataObject[];
		const actions = (message.template as IDataObject).actions as PostbackAction[];
		return { run, body, actions };
	}

	function trigger(route: WaitingRoute, extra: IDataObject = {}, restartOf?: TriggerBed, name?: string) {
		return new TriggerBed({
			parameters: { verification: 'secret', events: ['message', 'postback'], useBotCredential: true, options: { resumeBaseUrl: route.url }, ...extra },
			credentials: { workplaceWebhookApi: { secret: SECRET }, ...botCredentials(sim) },
			...(restartOf ? { restartOf } : {}),
			...(name ? { name } : {}),
		});
	}

	/** A person taps a button of the last pushed message; the trigger gets the signed delivery. */
	async function tap(bed: TriggerBed, label: string, user: string) {
		const { event } = prepareTap(sim.state, { label, user });
		const { raw, signature } = delivery(event);
		sim.log.clear();
		const outcome = await bed.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signature } });
		const replies = sim.log.find({ method: 'POST', path: PUSH });
		return { event, raw, signature, outcome, replies };
	}

	return { ask, trigger, tap };
}
