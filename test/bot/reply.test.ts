/**
 * Workplace Bot > Message > Reply to Event, and the conversation key of the Workplace Trigger:
 * workflows run by n8n-core's engine (trigger → Bot) against the simulator, checking the output
 * items and the exact requests the platform received.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { joinEvent, messageEvent, postbackEvent, SEED } from '../../simulator';
import { useSimulator } from '../helpers/simulator';
import { runReply, sent, triggerItems } from './reply.fixtures';

const sim = useSimulator();
const project = SEED.groups.project;
const release = project.topics.release;
const aliceChat = SEED.directChats.alice;
const alice = SEED.users.alice;

const GROUP_MESSAGE = '/bot/v1/group/message';
const textBody = (gid: string, tid: string, data: string) => ({ gid, tid, message: { type: 'text', data } });
const reply = (text: string, extra: IDataObject = {}) => ({ resource: 'message', operation: 'reply', text, ...extra });

describe('Workplace Trigger: conversationKey', () => {
	it('is <group>_<topic> in a topic, <group> in a main chat, the same for a direct chat\'s join and its messages, absent without a group', async () => {
		const items = await triggerItems([
			messageEvent({ groupId: project._id, topicId: release._id, text: 'in the topic' }),
			messageEvent({ groupId: project._id, text: 'in the main chat' }),
			postbackEvent({ groupId: project._id, topicId: release._id }),
			joinEvent(),
			messageEvent({ text: 'in the direct chat' }),
			joinEvent({ gid: null }),
		]);
		expect(items.map((i) => i.conversationKey)).toEqual([
			`${project._id}_${release._id}`,
			project._id,
			`${project._id}_${release._id}`,
			aliceChat.gid,
			aliceChat.gid,
			undefined,
		]);
		expect('conversationKey' in items[5]).toBe(false);
		// The key is added beside the platform's fields, which stay as they came.
		expect(items[0]).toMatchObject({ type: 'message', sessionId: `${project._id}_${release._id}` });
	});

	it('a direct chat whose join the trigger has not seen is keyed by its sessionId', async () => {
		const [item] = await triggerItems([messageEvent({ text: 'hi' })]);
		expect(item.conversationKey).toBe(`${aliceChat.gid}_${aliceChat.tid}`);
	});
});

describe('Workplace Bot: Message > Reply to Event', () => {
	it('replies in the topic of the event that started the run, found without any ID mapped', async () => {
		const events = await triggerItems([messageEvent({ groupId: project._id, topicId: release._id, text: 'When is the release?' })]);
		const { items, error, requests } = await runReply(sim, events, reply('Friday.'));
		expect(error).toBeUndefined();
		expect(requests.map(sent)).toEqual([['POST', GROUP_MESSAGE, textBody(project._id, release._id, 'Friday.')]]);
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ status: 'success', message: { type: 'text', groupId: project._id, threadId: release._id } });
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	it("replies in a group's main chat (tid empty) and pairs each item with its own event", async () => {
		const events = await triggerItems([
			messageEvent({ groupId: project._id, text: 'main chat' }),
			messageEvent({ groupId: project._id, topicId: release._id, text: 'topic' }),
		]);
		const { items, error, requests } = await runReply(sim, events, reply('={{ "Re: " + $json.message.text }}'));
		expect(error).toBeUndefined();
		expect(requests.map(sent)).toEqual([
			['POST', GROUP_MESSAGE, textBody(project._id, '', 'Re: main chat')],
			['POST', GROUP_MESSAGE, textBody(project._id, release._id, 'Re: topic')],
		]);
		expect(items.map((i) => [i.json.message, i.pairedItem])).toEqual([
			[expect.objectContaining({ groupId: project._id, threadId: project.mainThreadId }), { item: 0 }],
			[expect.objectContaining({ groupId: project._id, threadId: release._id }), { item: 1 }],
		]);
	});

	it('replies in a direct chat, to a message event and to a join event', async () => {
		const events = await triggerItems([joinEvent(), messageEvent({ text: 'hello' })]);
		const { items, error, requests } = await runReply(sim, events, reply('Welcome!'));
		expect(error).toBeUndefined();
		expect(requests.map(sent)).toEqual([
			['POST', GROUP_MESSAGE, textBody(aliceChat.gid, '', 'Welcome!')],
			['POST', GROUP_MESSAGE, textBody(aliceChat.gid, aliceChat.tid, 'Welcome!')],
		]);
		expect(sim.state.sentMessages({ uid: alice._id }).map((m) => m.content)).toEqual([{ text: 'Welcome!' }, { text: 'Welcome!' }]);
		expect(items).toHaveLength(2);
	});

	it('a join from before platform 14.1.0 (no source.gid) asks for the direct chat first', async () => {
		const events = await triggerItems([joinEvent({ gid: null })]);
		const { error, requests } = await runReply(sim, events, reply('Welcome!'));
		expect(error).toBeUndefined();
		expect(requests.map(sent)).toEqual([
			['GET', `/bot/v2/groups/users/${alice._id}`, undefined],
			['POST', GROUP_MESSAGE, textBody(aliceChat.gid, aliceChat.tid, 'Welcome!')],
		]);
	});

	it('"Event Below" replies to the event given as JSON, without a trigger in the workflow', async () => {
		const event = messageEvent({ groupId: project._id, topicId: release._id });
		const { items, error, requests } = await runReply(sim, [{ event }], reply('From JSON', { replyTo: 'event', event: '={{ $json.event }}' }), { withoutTrigger: true });
		expect(error).toBeUndefined();
		expect(requests.map(sent)).toEqual([['POST', GROUP_MESSAGE, textBody(project._id, release._id, 'From JSON')]]);
		expect(items).toHaveLength(1);
	});

	it('refuses before any request without a Workplace Trigger, and for an event without a conversation', async () => {
		const none = await runReply(sim, [{}], reply('Hi'), { withoutTrigger: true });
		expect(none.requests).toEqual([]);
		expect(none.error?.message).toBe('Item 0: "Reply To" needs the event of the Workplace Trigger that started this run, got "Event From Workplace Trigger"');
		expect(none.error?.description).toContain('No Workplace Trigger comes before this node');

		const user = await runReply(sim, [{ event: { action: 'created', user: { _id: 'u1' } } }], reply('Hi', { replyTo: 'event', event: '={{ $json.event }}' }), { withoutTrigger: true });
		expect(user.requests).toEqual([]);
		expect(user.error?.message).toMatch(/^Item 0: "Event" must be a bot event with a conversation \(.*\), got /);
		expect(user.error?.description).toContain('a user event (created)');
	});

	it('sends rich messages in one push to the conversation; one output item per message', async () => {
		const events = await triggerItems([messageEvent({ groupId: project._id, topicId: release._id })]);
		const messages = [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }];
		const { items, error, requests } = await runReply(sim, events, {
			resource: 'message',
			operation: 'reply',
			messageType: 'messages',
			defineMessages: 'json',
			messagesJson: JSON.stringify(messages),
		});
		expect(error).toBeUndefined();
		expect(requests.map(sent)).toEqual([['POST', '/bot/v2/message/push', { gid: project._id, tid: release._id, messages }]]);
		expect(items.map((i) => [i.json.message, i.pairedItem])).toEqual([
			[expect.objectContaining({ type: 'botv2', threadId: release._id }), { item: 0 }],
			[expect.objectContaining({ type: 'botv2', threadId: release._id }), { item: 0 }],
		]);
	});

	it('splits a long text at paragraphs, then sentences, then words, sent in order as exact parts', async () => {
		const events = await triggerItems([messageEvent({ groupId: project._id, topicId: release._id })]);
		const text = 'First paragraph is short.\n\nSecond paragraph. It has two sentences that are long.\n\nThe End';
		const { items, error, requests } = await runReply(sim, events, reply(text, { options: { maxLength: 40 } }));
		expect(error).toBeUndefined();
		expect(requests.map((r) => (r.body as IDataObject).message)).toEqual(
			['First paragraph is short.', 'Second paragraph.', 'It has two sentences that are long.', 'The End'].map((data) => ({ type: 'text', data })),
		);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 0 }, { item: 0 }]);
		expect(sim.state.sentMessages({ gid: project._id, tid: release._id }).map((m) => m.content)).toEqual([
			{ text: 'First paragraph is short.' },
			{ text: 'Second paragraph.' },
			{ text: 'It has two sentences that are long.' },
			{ text: 'The End' },
		]);
	});

	it('turns Markdown into plain text when asked', async () => {
		const events = await triggerItems([messageEvent({ groupId: project._id })]);
		const text = '## Plan\n\n**Ship** on *Friday*, see [the notes](https://example.com/notes).\n\n* one\n* two';
		const { requests } = await runReply(sim, events, reply(text, { options: { markdown: 'plain' } }));
		expect(requests.map(sent)).toEqual([
			['POST', GROUP_MESSAGE, textBody(project._id, '', 'Plan\n\nShip on Friday, see the notes (https://example.com/notes).\n\n- one\n- two')],
		]);
	});

	it('stops at the part that fails and says which parts were sent (Continue On Fail)', async () => {
		const events = await triggerItems([messageEvent({ groupId: project._id })]);
		// Part 2 breaks the simulator's 5000-character text limit; part 3 is never sent.
		const text = `${'a'.repeat(4000)}\n\n${'b'.repeat(5200)}\n\n${'c'.repeat(200)}`;
		const { items, requests } = await runReply(sim, events, reply(text, { options: { maxLength: 5300 } }), { continueOnFail: true });
		expect(requests.map((r) => [r.path, r.status, ((r.body as IDataObject).message as IDataObject).data])).toEqual([
			[GROUP_MESSAGE, 201, 'a'.repeat(4000)],
			[GROUP_MESSAGE, 400, 'b'.repeat(5200)],
		]);
		expect(items).toHaveLength(1);
		const json = items[0].json;
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(json.httpCode).toBe('400');
		expect(json.description).toContain('The text was split into 3 messages. Part 1 was sent; part 2 failed; parts 3-3 were not sent.');
		expect(json.partial).toMatchObject({ partsSent: 1, partsTotal: 3, sent: [{ status: 'success' }] });
	});

	it('fails the node without Continue On Fail, after the parts before the failure', async () => {
		const events = await triggerItems([messageEvent({ groupId: project._id })]);
		const text = `${'a'.repeat(4000)}\n\n${'b'.repeat(5200)}`;
		const { error, requests } = await runReply(sim, events, reply(text, { options: { maxLength: 5300 } }));
		expect(requests.map((r) => r.status)).toEqual([201, 400]);
		expect(error?.description).toContain('Part 1 was sent; part 2 failed.');
	});

	it('finds the trigger when it runs as an AI agent tool variant too', async () => {
		const events = await triggerItems([messageEvent({ groupId: project._id, topicId: release._id })]);
		const { items, error, requests } = await runReply(sim, events, reply('As a tool'), { asTool: true });
		expect(error).toBeUndefined();
		expect(requests.map(sent)).toEqual([['POST', GROUP_MESSAGE, textBody(project._id, release._id, 'As a tool')]]);
		expect(items).toHaveLength(1);
	});

	it('as a tool, answers the conversation its input names when the run holds several (AI Agent 3 hands a tool its item)', async () => {
		const { gid, tid } = sim.state.ensureDirectChat(SEED.users.bob._id);
		const events = await triggerItems([messageEvent({ groupId: project._id, topicId: release._id }), messageEvent({ groupId: gid, topicId: tid })]);
		const { error, requests } = await runReply(sim, events, reply('As a tool'), { asTool: true });
		expect(error).toBeUndefined();
		expect(requests.map(sent)).toEqual([
			['POST', GROUP_MESSAGE, textBody(project._id, release._id, 'As a tool')],
			['POST', GROUP_MESSAGE, textBody(gid, tid, 'As a tool')],
		]);
	});
});

describe('Reply to Event as a tool without its agent (docs/ARCHITECTURE.md, reliance 15)', () => {
	it('looks before the tool only, and says so in the log once per process', async () => {
		const { triggerEvent } = await import('../../nodes/WorkplaceBot/actions/message/reply/triggerEvent');
		const { FALLBACK_MARK } = await import('../../nodes/shared/reliance');
		const warnings: string[] = [];
		const asked: string[] = [];
		// A tool context of a later n8n: no parentNode, no source of its input.
		const ctx = {
			getNode: () => ({ name: 'Say You Are Looking', type: 'n8n-nodes-workplace.workplaceBotTool' }),
			getInputSourceData: () => {
				throw new Error('Source data is missing');
			},
			getParentNodes: (name: string) => {
				asked.push(name);
				return [];
			},
			logger: { warn: (message: string) => warnings.push(message) },
		} as unknown as IExecuteFunctions;
		expect(triggerEvent(ctx, 0)).toEqual({ triggers: [] });
		expect(triggerEvent(ctx, 0)).toEqual({ triggers: [] });
		expect(asked).toEqual(['Say You Are Looking', 'Say You Are Looking']);
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/^Reply to Event runs as an AI agent's tool, but n8n names no agent in its context .* it looks for the Workplace Trigger before the tool only/);
		expect(warnings[0].endsWith(FALLBACK_MARK)).toBe(true);
	});
});

describe('Workplace Bot: Send Text splitting', () => {
	it('Group Message > Send Text sends one message by default, and splits when asked', async () => {
		const { runBot } = await import('./bot.fixtures');
		const text = 'One sentence here. Another sentence there.';
		const whole = await runBot(sim, { resource: 'groupMessage', operation: 'sendText', groupId: project._id, text });
		expect(whole.requests.map(sent)).toEqual([['POST', GROUP_MESSAGE, textBody(project._id, '', text)]]);
		const split = await runBot(sim, { resource: 'groupMessage', operation: 'sendText', groupId: project._id, text, options: { maxLength: 20 } });
		expect(split.requests.map(sent)).toEqual([
			['POST', GROUP_MESSAGE, textBody(project._id, '', 'One sentence here.')],
			['POST', GROUP_MESSAGE, textBody(project._id, '', 'Another sentence')],
			['POST', GROUP_MESSAGE, textBody(project._id, '', 'there.')],
		]);
		expect(split.items).toHaveLength(3);
	});

	it('Direct Message > Send Text splits and converts Markdown', async () => {
		const { runBot } = await import('./bot.fixtures');
		const { requests } = await runBot(sim, {
			resource: 'directMessage',
			operation: 'sendText',
			userId: alice._id,
			text: '**Hi** there\n\nsecond',
			options: { maxLength: 10, markdown: 'plain' },
		});
		expect(requests.map((r) => r.body)).toEqual([
			{ uid: alice._id, message: { type: 'text', data: 'Hi there' } },
			{ uid: alice._id, message: { type: 'text', data: 'second' } },
		]);
	});
});
