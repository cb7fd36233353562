/**
 * Message > Reply to Event: answers in the conversation a Workplace Trigger event came from (a
 * topic, a group's main chat, a direct chat), without IDs mapped by the user.
 *
 * - The event: the Workplace Trigger's item paired with this one (reply/triggerEvent.ts), or the
 *   JSON given in "Event". Without a conversation the item fails before anything is sent.
 * - A text goes to `POST /bot/v1/group/message` with the event's `gid` and `tid` (the spec says an
 *   empty `tid` is the main chat), Markdown kept or made plain, split by "Split Messages Longer
 *   Than", the parts sent in order (../textParts.ts). Rich messages go in one push
 *   (`POST /bot/v2/message/push`), built like Send to Thread's.
 * - A join from before platform 14.1.0 names only its user: the direct chat is asked for first
 *   (`GET /bot/v2/groups/users/{uid}`).
 * - Output: one item per message sent, the platform's sent-message result.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { nodeParameter } from '../../../shared/parameters';
import { apiPath } from '../../../shared/transport/apiPath';
import { botRequest } from '../../../shared/transport/botApi';
import { describeValue, invalidInput, isPlainObject, parseJsonObject, requireString } from '../../../shared/validation';
import { textField } from '../common.descriptions';
import { readTextOptions, REPLY_MAX_LENGTH, sendTextToThread, textOptionsField, textParts } from '../textParts';
import { messageListFields } from './fields';
import { getMessages } from './messages';
import { optionsProperty } from './properties';
import type { ReplyTarget } from './reply/conversation';
import { replyTargetOf } from './reply/conversation';
import { triggerEvent } from './reply/triggerEvent';

const EVENT_EXAMPLE = JSON.stringify(
	{
		type: 'message',
		message: { id: '64f0e0000000000000000001', type: 'text', groupId: '64f0c0000000000000000001', topicId: '64f0d0000000000000000002', text: 'Hello bot' },
		source: { type: 'user', userId: '64f0a0000000000000000001', username: 'alice' },
	},
	null,
	2,
);

const fields: INodeProperties[] = [
	optionsProperty(
		'Reply To',
		'replyTo',
		[
			{
				name: 'Event From Workplace Trigger',
				value: 'trigger',
				description: "The event of the Workplace Trigger that started this run, the one this item comes from",
			},
			{ name: 'Event Below', value: 'event', description: 'An event of the Workplace Trigger given as JSON, e.g. by an expression' },
		],
		'trigger',
	),
	{
		displayName: 'Event',
		name: 'event',
		type: 'json',
		default: EVENT_EXAMPLE,
		required: true,
		displayOptions: { show: { replyTo: ['event'] } },
		description:
			"An event as the Workplace Trigger outputs it (message, join or postback), e.g. from an expression reading the trigger's item; its group and topic say where the reply goes",
	},
	optionsProperty(
		'Message Type',
		'messageType',
		[
			{ name: 'Text', value: 'text', description: 'A text message, split into several when long' },
			{
				name: 'Rich Messages',
				value: 'messages',
				description: 'Text, image, video, audio, imagemap, buttons or carousel messages, as Send to Thread builds them',
			},
		],
		'text',
	),
	{ ...textField, displayOptions: { show: { messageType: ['text'] } } },
	...updateDisplayOptions({ show: { messageType: ['messages'] } }, messageListFields),
	{ ...textOptionsField(REPLY_MAX_LENGTH), displayOptions: { show: { messageType: ['text'] } } },
];

export const description = updateDisplayOptions({ show: { resource: ['message'], operation: ['reply'] } }, fields);

/** Replies of one node run leave one after another, in item order: two of them may go to one conversation. */
export function conversationKey(): string {
	return 'reply';
}

const NO_CONVERSATION_RULE =
	'must be a bot event with a conversation (a message, join or postback carrying message.groupId, source.gid, sessionId or, for a join, source.uid)';

/** The event the item replies to, checked: it names a conversation. */
function eventOf(ctx: IExecuteFunctions, itemIndex: number): { event: IDataObject; target: ReplyTarget } {
	const replyTo = nodeParameter(ctx, 'replyTo', itemIndex, 'trigger') as string;
	let event: IDataObject;
	let field: string;
	if (replyTo === 'event') {
		field = 'Event';
		event = parseJsonObject(ctx, itemIndex, field, nodeParameter(ctx, 'event', itemIndex, ''));
		if (Object.keys(event).length === 0) throw invalidInput(ctx, itemIndex, field, 'must not be empty', nodeParameter(ctx, 'event', itemIndex, ''));
	} else if (replyTo === 'trigger') {
		const found = triggerEvent(ctx, itemIndex);
		if (!('event' in found)) {
			const fix = 'Start the workflow with a Workplace Trigger, or set Reply To to "Event Below" and give the event.';
			const hint = found.ambiguous
				? `This run holds events of ${found.ambiguous.conversations} conversations from "${found.ambiguous.trigger}", and n8n does not tell a tool which of the AI agent's items it was called for; its input names none of them. Use AI Agent version 3 or later with the trigger's events as its input (n8n then hands the tool the fields of the agent's item), or reply after the agent with a Reply to Event node.`
				: found.triggers.length
					? `No item of ${found.triggers.map((t) => `"${t}"`).join(', ')} is paired with this item (the trigger did not start this run, or a node between them does not keep the item's link). ${fix}`
					: `No Workplace Trigger comes before this node (or before the AI agent using it as a tool). ${fix}`;
			throw invalidInput(ctx, itemIndex, 'Reply To', 'needs the event of the Workplace Trigger that started this run', 'Event From Workplace Trigger', hint);
		}
		event = found.event;
		field = `Reply To (the event of "${found.trigger}")`;
	} else {
		throw invalidInput(ctx, itemIndex, 'Reply To', 'must be "trigger" or "event"', replyTo);
	}
	const target = replyTargetOf(event);
	if (!target) {
		const kind = typeof event.type === 'string' ? `a ${event.type} event` : typeof event.action === 'string' ? `a user event (${event.action})` : 'an event';
		throw invalidInput(ctx, itemIndex, field, NO_CONVERSATION_RULE, event, `Got ${kind} without a group: ${describeValue(event)}. User events (created, updated, deleted) have no conversation; send with Direct Message > Send Text instead.`);
	}
	return { event, target };
}

/** The group and thread of the reply; a direct chat named by its user is asked for. */
async function threadOf(ctx: IExecuteFunctions, itemIndex: number, target: ReplyTarget): Promise<{ gid: string; tid: string }> {
	if ('gid' in target) return target;
	const { body } = await botRequest<IDataObject>(ctx, { method: 'GET', path: apiPath`/bot/v2/groups/users/${target.uid}` }, itemIndex);
	const gid = isPlainObject(body) ? body.gid : undefined;
	const tid = isPlainObject(body) ? body.tid : undefined;
	if ((typeof gid !== 'string' && typeof gid !== 'number') || String(gid) === '') {
		throw invalidInput(ctx, itemIndex, 'Direct chat', 'must be answered with a gid', body);
	}
	return { gid: String(gid), tid: typeof tid === 'string' || typeof tid === 'number' ? String(tid) : '' };
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const { target } = eventOf(this, itemIndex);
	const messageType = nodeParameter(this, 'messageType', itemIndex, 'text') as string;
	if (messageType === 'messages') {
		const messages = getMessages(this, itemIndex);
		const { gid, tid } = await threadOf(this, itemIndex, target);
		const { body } = await botRequest<unknown>(this, { method: 'POST', path: '/bot/v2/message/push', body: { gid, tid, messages } }, itemIndex);
		return (Array.isArray(body) ? body : body === undefined || body === null || body === '' ? [] : [body]) as IDataObject[];
	}
	if (messageType !== 'text') throw invalidInput(this, itemIndex, 'Message Type', 'must be "text" or "messages"', messageType);
	const text = requireString(this, itemIndex, 'text', 'Text');
	const parts = textParts(text, readTextOptions(this, itemIndex, REPLY_MAX_LENGTH));
	return await sendTextToThread(this, itemIndex, await threadOf(this, itemIndex, target), parts);
}
