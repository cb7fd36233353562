/**
 * Workplace Bot, Message > Send and Wait for Response, in n8n-core's engine against the
 * simulator: the exact requests (direct chat lookup, push with uri buttons carrying n8n's signed
 * resume URLs), the wait (putExecutionToWait's date), every limit refused before anything is
 * sent, and the output when the wait time runs out (test/helpers/waiting.ts).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

import { SEED } from '../../simulator/seed';
import { resumeAfterTimeout } from '../helpers/waiting';
import { useSimulator } from '../helpers/simulator';
import { runBot } from './bot.fixtures';
import {
	PUSH,
	actionsOf,
	alice,
	aliceChat,
	approval,
	project,
	pushBody,
	resumeUrlPattern,
	send,
	sentMessage,
	toAlice,
	waitingApproval,
} from './sendAndWait.fixtures';

const sim = useSimulator();

describe('sending the message', () => {
	it('asks a user through the direct chat: lookup, then one buttons template whose uri actions are the signed resume URLs, then waits', async () => {
		const run = await send(sim, {
			...toAlice,
			title: 'Expense report',
			message: 'Approve 120 EUR for the team lunch?',
			...approval({ approvalType: 'double' }),
		});
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			`GET /bot/v2/groups/users/${alice._id} 200`,
			`POST ${PUSH} 200`,
		]);
		const body = pushBody(sim, run.pushes[0]);
		const nodeId = run.workflow.getNode(run.nodeName)!.id;
		const [approve, decline] = actionsOf(body);
		expect(body).toEqual({
			gid: aliceChat.gid,
			tid: aliceChat.tid,
			messages: [
				{
					type: 'template',
					altText: 'Expense report: Approve 120 EUR for the team lunch?',
					template: {
						type: 'buttons',
						title: 'Expense report',
						text: 'Approve 120 EUR for the team lunch?',
						actions: [
							{ type: 'uri', label: 'Approve', linkUri: approve.linkUri },
							{ type: 'uri', label: 'Decline', linkUri: decline.linkUri },
						],
					},
				},
			],
		});
		expect(approve.linkUri).toMatch(resumeUrlPattern(run.executionId, nodeId, 'approved=true&'));
		expect(decline.linkUri).toMatch(resumeUrlPattern(run.executionId, nodeId, 'approved=false&'));
		// One wait: both buttons carry the same nonce.
		expect(new URL(approve.linkUri).searchParams.get('nonce')).toBe(new URL(decline.linkUri).searchParams.get('nonce'));

		expect(new Date(run.run!.data.waitTill!).getTime()).toBe(WAIT_INDEFINITELY.getTime());
		expect(run.run!.data.validateSignature).toBe(true);
		expect(run.items).toEqual([
			{
				json: { gid: aliceChat.gid, tid: aliceChat.tid, results: [expect.objectContaining({ status: 'success' })], waitTill: WAIT_INDEFINITELY.toISOString() },
				pairedItem: { item: 0 },
			},
		]);
	});

	it('sends to a group main chat when the topic is empty, without a lookup; one message for several input items', async () => {
		const run = await send(
			sim,
			{ sendTo: 'group', groupId: project._id, topicId: '', message: 'Deploy to production?', ...approval() },
			[{ json: { n: 1 } }, { json: { n: 2 } }, { json: { n: 3 } }],
		);
		expect(run.error).toBeUndefined();
		expect(run.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${PUSH}`]);
		const body = pushBody(sim, run.pushes[0]);
		expect(body.gid).toBe(project._id);
		expect(body.tid).toBe('');
		expect((body.messages as IDataObject[])[0]).toEqual({
			type: 'template',
			altText: 'Deploy to production?',
			template: { type: 'buttons', text: 'Deploy to production?', actions: [{ type: 'uri', label: 'Approve', linkUri: expect.any(String) }] },
		});
		expect(run.items).toHaveLength(1);
	});

	it('waits until the limit: an interval, or a date and time', async () => {
		const interval = await send(sim, {
			...toAlice,
			message: 'Ok?',
			...approval(),
			options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } },
		});
		const waitTill = new Date(interval.run!.data.waitTill!).getTime();
		expect(waitTill).toBeGreaterThanOrEqual(interval.before + 2 * 3_600_000);
		expect(waitTill).toBeLessThan(Date.now() + 2 * 3_600_000 + 1);

		const at = await send(sim, {
			...toAlice,
			message: 'Ok?',
			...approval(),
			options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2999-05-01T10:00:00Z' } } },
		});
		expect(new Date(at.run!.data.waitTill!).toISOString()).toBe('2999-05-01T10:00:00.000Z');
	});

	it('does not wait when the platform refuses: a deleted user, a group without the bot, or an error item under Continue On Fail', async () => {
		const deleted = await send(sim, { sendTo: 'user', userId: SEED.users.dave._id, message: 'Ok?', ...approval() });
		expect(deleted.error).toBeInstanceOf(NodeApiError);
		expect(deleted.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET /bot/v2/groups/users/${SEED.users.dave._id} 404`]);
		expect(deleted.run?.data.waitTill).toBeUndefined();

		const parameters = { sendTo: 'group', groupId: SEED.groups.leadership._id, message: 'Ok?', ...approval() };
		const outside = await send(sim, parameters);
		expect(outside.error).toBeInstanceOf(NodeApiError);
		expect(outside.pushes.map((r) => r.status)).toEqual([403]);
		expect(outside.run?.data.waitTill).toBeUndefined();

		const continued = await runBot(sim, { resource: 'message', operation: 'sendAndWait', ...parameters }, { continueOnFail: true });
		expect(continued.run?.data.waitTill).toBeUndefined();
		expect(continued.items).toEqual([{ json: expect.objectContaining({ error: expect.any(String), httpCode: '403' }), pairedItem: { item: 0 } }]);
	});

	it.each([
		['an approve label over 20 characters', approval({ approveLabel: 'Approve this expense now' }), 'Item 0: "Approval Options > Approve Button Label" must be at most 20 characters, got "Approve this expense now" (24 characters)'],
		['a disapprove label over 20 characters', approval({ approvalType: 'double', disapproveLabel: 'x'.repeat(21) }), 'Item 0: "Approval Options > Disapprove Button Label" must be at most 20 characters'],
		['a message over 160 characters', { message: 'm'.repeat(161), ...approval() }, 'Item 0: "Message" must be at most 160 characters'],
		['a message over 60 characters with a title', { title: 'Expense', message: 'm'.repeat(61), ...approval() }, 'Item 0: "Message" must be at most 60 characters with a title'],
		['a title over 40 characters', { title: 't'.repeat(41), message: 'Ok?', ...approval() }, 'Item 0: "Title" must be at most 40 characters'],
		['a form button label over 20 characters', { message: 'Why?', responseType: 'freeText', options: { messageButtonLabel: 'Tell us what you think' } }, 'Item 0: "Options > Message Button Label" must be at most 20 characters'],
		['a custom form without fields', { message: 'Why?', responseType: 'customForm' }, 'Item 0: "Form Fields" must have at least 1 field'],
		[
			'a custom form field without a label',
			{ message: 'Why?', responseType: 'customForm', formFields: { values: [{ fieldLabel: 'Reason' }, { fieldLabel: ' ' }] } },
			'Item 0: "Form Fields > Field Label" (field 2 of 2) must not be empty, got " "',
		],
		[
			'a custom form field labelled like a field the output adds',
			{ message: 'Why?', responseType: 'customForm', formFields: { values: [{ fieldLabel: 'Reason' }, { fieldLabel: 'respondedAt' }] } },
			'Item 0: "Form Fields > Field Label" (field 2 of 2) must not be one of the names the output gives its own fields (responder, respondedAt, responders, messageId, groupId, threadId, timedOut), got "respondedAt"',
		],
		['a limit date in the past', { message: 'Ok?', ...approval(), options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2001-01-01T00:00:00Z' } } } }, 'Item 0: "Options > Limit Wait Time > Max Date and Time" must be in the future'],
		['an empty user ID', { userId: ' ', message: 'Ok?', ...approval() }, 'Item 0: "User" must not be empty'],
	])('refuses %s before anything is sent', async (_, parameters, message) => {
		const run = await send(sim, { ...toAlice, message: 'Ok?', ...(parameters as INodeParameters) });
		expect(run.error).toBeInstanceOf(NodeOperationError);
		expect(run.error!.message.startsWith(message)).toBe(true);
		expect(sim.log.all()).toEqual([]);
		expect(run.run?.data.waitTill).toBeUndefined();
	});
});

describe('no answer in time', () => {
	it('an approval goes on with {data: {approved: false, timedOut: true, messageId, groupId, threadId}}', async () => {
		const { run } = await waitingApproval(sim, 'single');
		const { items, run: finished } = await resumeAfterTimeout(run);
		const message = sentMessage(run);
		expect(message).toEqual({ messageId: expect.any(String), groupId: aliceChat.gid, threadId: aliceChat.tid });
		expect(items).toEqual([{ json: { data: { approved: false, timedOut: true, ...message } }, pairedItem: { item: 0 } }]);
		expect(finished.data.resultData.error).toBeUndefined();
		expect(finished.data.resultData.runData[run.nodeName]).toHaveLength(1);
	});

	it('free text goes on with the input item and {data: {timedOut: true, messageId, groupId, threadId}}', async () => {
		const run = await send(sim, { ...toAlice, message: 'Why?', responseType: 'freeText' }, [{ json: { keep: 'me' } }]);
		const { items } = await resumeAfterTimeout(run);
		expect(items.map((i) => i.json)).toEqual([{ keep: 'me', data: { timedOut: true, ...sentMessage(run) } }]);
		// The input node's output is left as it was.
		expect(run.run!.data.resultData.runData['Manual Trigger'][0].data!.main[0]![0].json).toEqual({ keep: 'me' });
	});
});

it('a typical resume URL stays far below the 1000-character URL limit', async () => {
	const { approve } = await waitingApproval(sim);
	expect(approve.length).toBeLessThan(300);
});
