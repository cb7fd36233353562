/**
 * Workplace Bot, resource Message, operation "Send to Thread" (POST /bot/v2/message/push)
 * run through n8n-core's engine against the simulator: the exact requests, the output
 * items, UI vs JSON, and every limit refused before anything is sent.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { LoggedRequest } from '../../simulator';
import { SEED } from '../../simulator/seed';
import type { RunNodeOptions, TestInputItem } from '../helpers/engine';
import { runNode } from '../helpers/engine';
import { WorkplaceBot } from '../../nodes/WorkplaceBot/WorkplaceBot.node';
import { only, useSimulator } from '../helpers/simulator';

const project = SEED.groups.project;
const release = project.topics.release;
const aliceChat = SEED.directChats.alice;
const PUSH = '/bot/v2/message/push';
const IMG = 'https://example.com/img/photo.jpg';
const PREVIEW = 'https://example.com/img/preview.jpg';

const sim = useSimulator();

/** Runs "Send to Thread" once with a fresh request log; `pushes` are the push requests it made. */
async function runPush(parameters: INodeParameters, options: Partial<RunNodeOptions> = {}) {
	sim.log.clear();
	const result = await runNode({
		nodeType: 'workplaceBot',
		parameters: { resource: 'message', operation: 'push', groupId: project._id, threadId: project.mainThreadId, ...parameters },
		credentials: {
			workplaceBotOAuth2Api: {
				baseUrl: sim.url,
				clientId: sim.credentials.botClientId,
				clientSecret: sim.credentials.botClientSecret,
			},
		},
		...options,
	});
	const log = sim.log.all();
	return { ...result, log, pushes: log.filter((r) => r.path === PUSH) };
}

/** Checks method, path, bearer token and JSON content type of a push; returns its body. */
function pushBody(request: LoggedRequest): IDataObject {
	expect([request.method, request.path, request.status]).toEqual(['POST', PUSH, 200]);
	const issued = sim.state.tokens().map((t) => `Bearer ${t.token}`);
	expect(issued).toContain(request.headers.authorization);
	expect(request.headers['content-type']).toMatch(/^application\/json/);
	return request.body as IDataObject;
}

/** A UI action entry as n8n stores it; other types' fields left behind must not be sent. */
const uiAction = (values: IDataObject): IDataObject => ({
	label: '',
	text: '',
	data: '',
	templateId: '',
	workflowId: '',
	status: '',
	url: '',
	linkUri: '',
	...values,
});

const fields = (...message: IDataObject[]): INodeParameters =>
	({ defineMessages: 'fields', messages: { message } }) as unknown as INodeParameters;
const json = (messages: unknown): INodeParameters => ({
	defineMessages: 'json',
	messagesJson: typeof messages === 'string' ? messages : JSON.stringify(messages),
});

// ----------------------------------------------------------------- the same messages, UI and JSON

/** Batch 1: text with quick replies, image, video, audio, imagemap. */
const mediaUi: IDataObject[] = [
	{
		type: 'text',
		text: 'Good morning team',
		quickReply: {
			items: [
				uiAction({ imageUrl: 'https://example.com/icons/yes.png', type: 'message', label: 'Yes', text: 'yes' }),
				uiAction({ type: 'postback', label: 'Later', data: 'snooze=1h', text: 'Remind me later' }),
				uiAction({ type: 'uri', label: 'Agenda', linkUri: 'https://example.com/agenda' }),
			],
		},
	},
	{ type: 'image', originalContentUrl: IMG, previewImageUrl: PREVIEW },
	{ type: 'video', originalContentUrl: 'https://example.com/v/intro.mp4', previewImageUrl: PREVIEW, trackingId: 'intro-1' },
	{ type: 'audio', originalContentUrl: 'https://example.com/a/memo.m4a', duration: 42000 },
	{
		type: 'imagemap',
		baseUrl: 'https://example.com/maps/floor',
		baseWidth: 1040,
		baseHeight: 520,
		altText: 'Floor plan',
		imagemapActions: {
			action: [
				uiAction({ type: 'library', url: 'https://example.com/library/fire-exits', x: 0, y: 0, width: 520, height: 520 }),
				uiAction({ type: 'message', label: 'Kitchen', text: 'Where is the kitchen?', x: 520, y: 0, width: 520, height: 520 }),
			],
		},
	},
];
const mediaWire: IDataObject[] = [
	{
		type: 'text',
		text: 'Good morning team',
		quickReply: {
			items: [
				{ type: 'action', imageUrl: 'https://example.com/icons/yes.png', action: { type: 'message', label: 'Yes', text: 'yes' } },
				{ type: 'action', action: { type: 'postback', label: 'Later', data: 'snooze=1h', text: 'Remind me later' } },
				{ type: 'action', action: { type: 'uri', label: 'Agenda', linkUri: 'https://example.com/agenda' } },
			],
		},
	},
	{ type: 'image', originalContentUrl: IMG, previewImageUrl: PREVIEW },
	{ type: 'video', originalContentUrl: 'https://example.com/v/intro.mp4', previewImageUrl: PREVIEW, trackingId: 'intro-1' },
	{ type: 'audio', originalContentUrl: 'https://example.com/a/memo.m4a', duration: 42000 },
	{
		type: 'imagemap',
		baseUrl: 'https://example.com/maps/floor',
		altText: 'Floor plan',
		baseSize: { width: 1040, height: 520 },
		actions: [
			{ type: 'library', area: { x: 0, y: 0, width: 520, height: 520 }, url: 'https://example.com/library/fire-exits' },
			{ type: 'message', label: 'Kitchen', area: { x: 520, y: 0, width: 520, height: 520 }, text: 'Where is the kitchen?' },
		],
	},
];

/** Batch 2: buttons template with 4 actions, carousel built in the UI, quick replies; all seven action types. */
const buttonsUi: IDataObject = {
	type: 'template',
	templateType: 'buttons',
	altText: 'Expense report',
	thumbnailImageUrl: IMG,
	title: 'Expense report #42',
	templateText: 'Alice submitted 120 EUR',
	templateOptions: { imageAspectRatio: 'square', imageSize: 'contain', imageBackgroundColor: '#EEEEEE' },
	actions: {
		action: [
			uiAction({ type: 'postback', label: 'Approve', data: 'approve=42' }),
			uiAction({ type: 'workflow', label: 'Open workflow', workflowId: 'wf-42' }),
			uiAction({ type: 'workflowTemplate', label: 'New request', templateId: 'tpl-expense' }),
			uiAction({ type: 'workflows', label: 'My pending', status: 'awaiting' }),
		],
	},
	quickReply: { items: [uiAction({ type: 'workflows', label: 'All workflows' })] },
};
const carouselUi = (column: IDataObject[]): IDataObject => ({
	type: 'template',
	templateType: 'carousel',
	altText: 'Pick a room',
	templateOptions: { imageAspectRatio: 'rectangle', imageSize: 'cover' },
	columns: { column },
});
/** Carousel columns built with the buttons' action builder ("Define Actions" at its default), a Default Action (no label). */
const roomColumnsBuilt: IDataObject[] = [
	{
		thumbnailImageUrl: 'https://example.com/rooms/a.jpg',
		imageBackgroundColor: '#FFFFFF',
		title: 'Room A',
		text: '8 seats, projector',
		actions: {
			action: [
				uiAction({ type: 'postback', label: 'Book A', data: 'room=a' }),
				uiAction({ type: 'uri', label: 'Details', linkUri: 'https://example.com/rooms/a' }),
			],
		},
		defaultAction: { action: uiAction({ type: 'uri', linkUri: 'https://example.com/rooms/a' }) },
	},
	{
		text: 'Room B has 4 seats and a whiteboard',
		actions: { action: [uiAction({ type: 'library', label: 'Rules', url: 'https://example.com/library/rooms' })] },
	},
];
/** The same columns with their actions as JSON ("Define Actions: Using JSON"). */
const roomColumnsJson: IDataObject[] = [
	{
		thumbnailImageUrl: 'https://example.com/rooms/a.jpg',
		imageBackgroundColor: '#FFFFFF',
		title: 'Room A',
		text: '8 seats, projector',
		actionsJson: JSON.stringify([
			{ type: 'postback', label: 'Book A', data: 'room=a' },
			{ type: 'uri', label: 'Details', linkUri: 'https://example.com/rooms/a' },
		]),
		defaultActionJson: JSON.stringify({ type: 'uri', linkUri: 'https://example.com/rooms/a' }),
	},
	{
		text: 'Room B has 4 seats and a whiteboard',
		actionsJson: '[{"type": "library", "label": "Rules", "url": "https://example.com/library/rooms"}]',
	},
].map((column) => ({ ...column, defineActions: 'json' }));
const templateUi: IDataObject[] = [buttonsUi, carouselUi(roomColumnsBuilt)];
const templateWire: IDataObject[] = [
	{
		type: 'template',
		altText: 'Expense report',
		template: {
			type: 'buttons',
			thumbnailImageUrl: IMG,
			imageAspectRatio: 'square',
			imageSize: 'contain',
			imageBackgroundColor: '#EEEEEE',
			title: 'Expense report #42',
			text: 'Alice submitted 120 EUR',
			actions: [
				{ type: 'postback', label: 'Approve', data: 'approve=42' },
				{ type: 'workflow', label: 'Open workflow', workflowId: 'wf-42' },
				{ type: 'workflowTemplate', label: 'New request', templateId: 'tpl-expense' },
				{ type: 'workflows', label: 'My pending', status: 'awaiting' },
			],
		},
		quickReply: { items: [{ type: 'action', action: { type: 'workflows', label: 'All workflows' } }] },
	},
	{
		type: 'template',
		altText: 'Pick a room',
		template: {
			type: 'carousel',
			imageAspectRatio: 'rectangle',
			imageSize: 'cover',
			columns: [
				{
					thumbnailImageUrl: 'https://example.com/rooms/a.jpg',
					imageBackgroundColor: '#FFFFFF',
					title: 'Room A',
					text: '8 seats, projector',
					actions: [
						{ type: 'postback', label: 'Book A', data: 'room=a' },
						{ type: 'uri', label: 'Details', linkUri: 'https://example.com/rooms/a' },
					],
					defaultAction: { type: 'uri', linkUri: 'https://example.com/rooms/a' },
				},
				{
					text: 'Room B has 4 seats and a whiteboard',
					actions: [{ type: 'library', label: 'Rules', url: 'https://example.com/library/rooms' }],
				},
			],
		},
	},
];

function actionTypes(messages: IDataObject[]): string[] {
	const types = new Set<string>();
	const visit = (value: unknown, key?: string): void => {
		if (Array.isArray(value)) value.forEach((v) => visit(v, key));
		else if (value !== null && typeof value === 'object') {
			const obj = value as IDataObject;
			if ((key === 'actions' || key === 'action' || key === 'defaultAction') && typeof obj.type === 'string') types.add(obj.type);
			for (const [k, v] of Object.entries(obj)) visit(v, k);
		}
	};
	visit(messages);
	return [...types].sort();
}

describe('Workplace Bot: Send to Thread (v2 push)', () => {
	it('sends a text to a group main chat: exact request, one output item with the results', async () => {
		const { items, error, pushes, log } = await runPush(fields({ type: 'text', text: 'Deploy finished ✅' }));
		expect(error).toBeUndefined();
		expect(log.filter((r) => r.interface === 'oauth')).toHaveLength(1);
		expect(pushBody(only(pushes))).toEqual({
			gid: project._id,
			tid: project.mainThreadId,
			messages: [{ type: 'text', text: 'Deploy finished ✅' }],
		});
		expect(items).toHaveLength(1);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(items[0].json).toEqual({
			gid: project._id,
			tid: project.mainThreadId,
			results: [
				{
					status: 'success',
					message: { id: expect.any(String), type: 'botv2', groupId: project._id, threadId: project.mainThreadId },
				},
			],
		});
		expect(sim.state.sentMessages({ gid: project._id, tid: project.mainThreadId }).map((m) => m.content)).toEqual([
			{ type: 'text', text: 'Deploy finished ✅' },
		]);
	});

	it('sends text with quick replies, image, video, audio and imagemap built in the UI, to a topic', async () => {
		const { items, error, pushes } = await runPush({ ...fields(...mediaUi), threadId: release._id });
		expect(error).toBeUndefined();
		expect(pushBody(only(pushes))).toEqual({ gid: project._id, tid: release._id, messages: mediaWire });
		expect(items[0].json.results).toHaveLength(5);
		expect((items[0].json.results as IDataObject[]).map((r) => (r.message as IDataObject).threadId)).toEqual(
			Array(5).fill(release._id),
		);
		expect(sim.state.sentMessages({ gid: project._id, tid: release._id }).map((m) => m.content)).toEqual(mediaWire);
	});

	it('sends buttons and carousel templates with quick replies to a direct chat; all seven action types occur', async () => {
		expect(actionTypes([...mediaWire, ...templateWire])).toEqual(
			['library', 'message', 'postback', 'uri', 'workflow', 'workflowTemplate', 'workflows'].sort(),
		);
		const { items, error, pushes } = await runPush({ ...fields(...templateUi), groupId: aliceChat.gid, threadId: aliceChat.tid });
		expect(error).toBeUndefined();
		expect(pushBody(only(pushes))).toEqual({ gid: aliceChat.gid, tid: aliceChat.tid, messages: templateWire });
		expect(items[0].json).toMatchObject({ gid: aliceChat.gid, tid: aliceChat.tid });
		expect(sim.state.sentMessages({ uid: SEED.users.alice._id }).map((m) => m.content)).toEqual(templateWire);
	});

	it('sends the same request body for the same messages given as JSON (text or an expression value)', async () => {
		for (const [ui, wire] of [
			[mediaUi, mediaWire],
			[templateUi, templateWire],
		] as const) {
			const fromUi = await runPush(fields(...ui));
			const fromJsonText = await runPush(json(wire));
			const fromExpression = await runPush(
				{ defineMessages: 'json', messagesJson: '={{ $json.messages }}' },
				{ inputItems: [{ json: { messages: wire } }] },
			);
			const bodies = [fromUi, fromJsonText, fromExpression].map((run) => {
				expect(run.error).toBeUndefined();
				return pushBody(only(run.pushes));
			});
			expect(bodies[0]).toEqual({ gid: project._id, tid: project.mainThreadId, messages: wire });
			expect(bodies[1]).toEqual(bodies[0]);
			expect(bodies[2]).toEqual(bodies[0]);
			// Same bytes, not only the same data: the UI builds keys in the order of the JSON.
			expect(JSON.stringify(bodies[0])).toBe(JSON.stringify(bodies[1]));
		}
	});

	it('sends the uri action with `linkUri` (the action table), and refuses the sample spelling `uri`', async () => {
		const good = await runPush(
			json([{ type: 'template', template: { type: 'buttons', text: 'Open', actions: [{ type: 'uri', label: 'Go', linkUri: 'https://example.com' }] } }]),
		);
		expect(good.error).toBeUndefined();
		expect(((pushBody(only(good.pushes)).messages as IDataObject[])[0].template as IDataObject).actions).toEqual([
			{ type: 'uri', label: 'Go', linkUri: 'https://example.com' },
		]);
		const bad = await runPush(
			json([{ type: 'template', template: { type: 'buttons', text: 'Open', actions: [{ type: 'uri', label: 'Go', uri: 'https://example.com' }] } }]),
		);
		expect(bad.error?.message).toBe(
			'Item 0: "Messages (JSON) > Template > Actions > Link URI" (message 1 of 1, action 1 of 1) is required (the field is "linkUri", not "uri"), got nothing',
		);
		expect(bad.pushes).toEqual([]);
	});

	it('uses expressions per item, one push per item, items to one thread in item order', async () => {
		const inputItems: TestInputItem[] = ['first', 'second', 'third'].map((text) => ({ json: { text } }));
		const { items, error, pushes } = await runPush(fields({ type: 'text', text: '={{ $json.text }}' }), { inputItems });
		expect(error).toBeUndefined();
		expect(pushes.map((r) => (r.body as { messages: IDataObject[] }).messages[0].text)).toEqual(['first', 'second', 'third']);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('sends to different threads concurrently, each thread in item order (conversation key gid + tid)', async () => {
		sim.faults.add({ path: PUSH, latencyMs: 150, times: Infinity });
		const threads = [project.mainThreadId, release._id];
		const inputItems: TestInputItem[] = Array.from({ length: 6 }, (_, n) => ({ json: { n, tid: threads[n % 2] } }));
		const { items, error, pushes } = await runPush(
			{ ...fields({ type: 'text', text: '={{ "item " + $json.n }}' }), threadId: '={{ $json.tid }}', requestOptions: { concurrency: 5 } },
			{ inputItems },
		);
		expect(error).toBeUndefined();
		const textsTo = (tid: string) =>
			pushes.filter((r) => (r.body as IDataObject).tid === tid).map((r) => (r.body as { messages: IDataObject[] }).messages[0].text);
		expect(textsTo(project.mainThreadId)).toEqual(['item 0', 'item 2', 'item 4']);
		expect(textsTo(release._id)).toEqual(['item 1', 'item 3', 'item 5']);
		// Pushes to the two threads overlapped: one left while the other (150 ms) was still unanswered.
		const overlapped = pushes.some(
			(r, k) => k > 0 && (r.body as IDataObject).tid !== (pushes[k - 1].body as IDataObject).tid && r.time - pushes[k - 1].time < 100,
		);
		expect(overlapped).toBe(true);
		expect(items.map((i) => [i.pairedItem, i.json.tid])).toEqual(
			inputItems.map((item, n) => [{ item: n }, item.json.tid]),
		);
	});
});

// ----------------------------------------------------------------- the main chat

const fromList = (value: string, cachedResultName?: string) => ({ __rl: true, mode: 'list', value, ...(cachedResultName ? { cachedResultName } : {}) });
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

describe("Workplace Bot: Send to Thread, the group's main chat", () => {
	const hello = fields({ type: 'text', text: 'Hello main chat' });
	const mainChatBody = { gid: project._id, tid: '', messages: [{ type: 'text', text: 'Hello main chat' }] };

	it('"Main Chat" from the list sends `tid: ""` and the platform posts to the main chat', async () => {
		const { items, error, pushes } = await runPush({ ...hello, threadId: fromList('', 'Main Chat') });
		expect(error).toBeUndefined();
		expect(pushBody(only(pushes))).toEqual(mainChatBody);
		expect(items.map((i) => i.json)).toEqual([
			{
				gid: project._id,
				tid: '',
				results: [{ status: 'success', message: { id: expect.any(String), type: 'botv2', groupId: project._id, threadId: project.mainThreadId } }],
			},
		]);
		expect(sim.state.sentMessages({ gid: project._id, tid: '' }).map((m) => m.content)).toEqual([{ type: 'text', text: 'Hello main chat' }]);
	});

	it('a Thread left at its default, or given By ID as empty or blank, is the main chat', async () => {
		// Thread not set at all: the node's default (From List, empty).
		sim.log.clear();
		const unset = await runNode({
			nodeType: 'workplaceBot',
			parameters: { resource: 'message', operation: 'push', groupId: project._id, ...hello },
			credentials: { workplaceBotOAuth2Api: { baseUrl: sim.url, clientId: sim.credentials.botClientId, clientSecret: sim.credentials.botClientSecret } },
		});
		expect(unset.error).toBeUndefined();
		expect(pushBody(only(sim.log.all().filter((r) => r.path === PUSH)))).toEqual(mainChatBody);
		// A blank ID only comes from an expression: n8n refuses a typed one by the By ID pattern.
		for (const threadId of [byId(''), byId('={{ "  " }}')]) {
			const { error, pushes } = await runPush({ ...hello, threadId });
			expect(error).toBeUndefined();
			expect(pushBody(only(pushes))).toEqual(mainChatBody);
		}
	});

	it('a topic picked from the list or given By ID is sent as its tid', async () => {
		for (const threadId of [fromList(release._id, release.name), byId(release._id)]) {
			const { error, pushes } = await runPush({ ...hello, threadId });
			expect(error).toBeUndefined();
			expect(pushBody(only(pushes))).toEqual({ ...mainChatBody, tid: release._id });
		}
		expect(sim.state.sentMessages({ gid: project._id, tid: release._id })).toHaveLength(2);
	});

	it('a thread ID with spaces is refused before sending, naming the field "Thread"', async () => {
		// From an expression: n8n refuses a typed one by the By ID pattern before the run.
		const { error, pushes } = await runPush({ ...hello, threadId: byId('={{ "64f0 d000" }}') });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message).toBe('Item 0: "Thread" must be an ID without spaces, got "64f0 d000"');
		expect(pushes).toEqual([]);
	});

	it('one version, 1; the Thread is a picker (main chat first), optional', () => {
		const { description } = new WorkplaceBot();
		expect(description.version).toBe(1);
		expect(description.defaultVersion).toBeUndefined();
		const threads = description.properties.filter((p) => p.name === 'threadId');
		expect(threads).toHaveLength(1);
		const [thread] = threads;
		expect(thread).toMatchObject({ displayName: 'Thread', type: 'resourceLocator', default: { mode: 'list', value: '' }, typeOptions: { loadOptionsDependsOn: ['groupId'] } });
		expect(thread.required).toBeUndefined();
		expect(thread.modes?.[0]).toMatchObject({ name: 'list', typeOptions: { searchListMethod: 'searchThreads' } });
		expect(JSON.stringify(description.properties)).not.toContain('@version');
	});
});

// ----------------------------------------------------------------- limits: nothing is sent

const tooLongLabel = 'A label that is far too long';
const buttonsWith = (template: IDataObject): IDataObject => ({
	type: 'template',
	template: { type: 'buttons', text: 'Choose', actions: [{ type: 'message', label: 'Ok', text: 'ok' }], ...template },
});
const column = (over: IDataObject = {}): IDataObject => ({ text: 'Col', actions: [{ type: 'message', label: 'Ok', text: 'ok' }], ...over });
const url = (length: number) => `https://example.com/${'u'.repeat(length - 20)}`;
const area = { x: 0, y: 0, width: 10, height: 10 };

describe('Workplace Bot: Send to Thread refuses invalid messages before sending', () => {
	const cases: Array<[string, unknown[], string]> = [
		[
			'action label over 20 characters',
			[{ type: 'text', text: 'hi' }, buttonsWith({ actions: [{ type: 'message', label: tooLongLabel, text: 'x' }] })],
			`"Messages (JSON) > Template > Actions > Label" (message 2 of 2, action 1 of 1) must be at most 20 characters, got "${tooLongLabel}" (28 characters)`,
		],
		[
			'quick reply action without label',
			[{ type: 'text', text: 'hi', quickReply: { items: [{ type: 'action', action: { type: 'message', text: 'x' } }] } }],
			'"Messages (JSON) > Quick Reply > Items > Action > Label" (message 1 of 1, quick reply item 1 of 1) is required, got nothing',
		],
		[
			'URL over 1000 characters',
			[{ type: 'image', originalContentUrl: url(1001), previewImageUrl: PREVIEW }],
			`"Messages (JSON) > Original Content URL" (message 1 of 1) must be at most 1000 characters, got "${url(1001).slice(0, 115)}..." (1001 characters)`,
		],
		[
			'quick reply image URL over 1000 characters',
			[{ type: 'text', text: 'hi', quickReply: { items: [{ type: 'action', imageUrl: url(1001) }] } }],
			'"Messages (JSON) > Quick Reply > Items > Image URL" (message 1 of 1, quick reply item 1 of 1) must be at most 1000 characters',
		],
		[
			'buttons title over 40 characters',
			[buttonsWith({ title: 'T'.repeat(41), text: 'ok' })],
			`"Messages (JSON) > Template > Title" (message 1 of 1) must be at most 40 characters, got "${'T'.repeat(41)}" (41 characters)`,
		],
		[
			'buttons text over 160 characters',
			[buttonsWith({ text: 'x'.repeat(161) })],
			'"Messages (JSON) > Template > Text" (message 1 of 1) must be at most 160 characters, got',
		],
		[
			'buttons text over 60 characters with an image',
			[buttonsWith({ thumbnailImageUrl: IMG, text: 'x'.repeat(61) })],
			'"Messages (JSON) > Template > Text" (message 1 of 1) must be at most 60 characters with an image, got',
		],
		[
			'carousel column text over 60 characters with a title',
			[{ type: 'template', template: { type: 'carousel', columns: [column({ title: 'A', text: 'y'.repeat(61) })] } }],
			'"Messages (JSON) > Template > Columns > Text" (message 1 of 1, column 1 of 1) must be at most 60 characters with a title, got',
		],
		[
			'5 buttons actions',
			[buttonsWith({ actions: Array.from({ length: 5 }, (_, k) => ({ type: 'message', label: `B${k}`, text: 'x' })) })],
			'"Messages (JSON) > Template > Actions" (message 1 of 1) must have at most 4 actions, got 5 actions',
		],
		[
			'11 carousel columns',
			[{ type: 'template', template: { type: 'carousel', columns: Array.from({ length: 11 }, () => column()) } }],
			'"Messages (JSON) > Template > Columns" (message 1 of 1) must have at most 10 columns, got 11 columns',
		],
		[
			'4 actions in a carousel column',
			[{ type: 'template', template: { type: 'carousel', columns: [column({ actions: Array.from({ length: 4 }, () => ({ type: 'workflows', label: 'W' })) })] } }],
			'"Messages (JSON) > Template > Columns > Actions" (message 1 of 1, column 1 of 1) must have at most 3 actions, got 4 actions',
		],
		[
			'51 imagemap actions',
			[{ type: 'imagemap', baseUrl: IMG, baseSize: { width: 100, height: 100 }, actions: Array.from({ length: 51 }, () => ({ type: 'message', text: 'x', area })) }],
			'"Messages (JSON) > Actions" (message 1 of 1) must have at most 50 actions, got 51 actions',
		],
		[
			'imagemap area with a negative x',
			[{ type: 'imagemap', baseUrl: IMG, baseSize: { width: 100, height: 100 }, actions: [{ type: 'message', text: 'x', area: { ...area, x: -5 } }] }],
			'"Messages (JSON) > Actions > Area > X" (message 1 of 1, action 1 of 1) must be a whole number of at least 0, got -5',
		],
		[
			'audio without duration',
			[{ type: 'audio', originalContentUrl: IMG }],
			'"Messages (JSON) > Duration" (message 1 of 1) is required, got nothing',
		],
		[
			'postback without data',
			[buttonsWith({ actions: [{ type: 'postback', label: 'P' }] })],
			'"Messages (JSON) > Template > Actions > Data" (message 1 of 1, action 1 of 1) is required, got nothing',
		],
		[
			'workflows with an unknown status',
			[buttonsWith({ actions: [{ type: 'workflows', label: 'W', status: 'open' }] })],
			'"Messages (JSON) > Template > Actions > Status" (message 1 of 1, action 1 of 1) must be one of "awaiting", "processing", "completed", "rejected", "canceled", got "open"',
		],
		[
			'image aspect ratio not rectangle or square',
			[buttonsWith({ imageAspectRatio: 'portrait' })],
			'"Messages (JSON) > Template > Image Aspect Ratio" (message 1 of 1) must be one of "rectangle", "square", got "portrait"',
		],
		['an empty list', [], '"Messages (JSON)" must have at least 1 message, got an empty list'],
	];

	it.each(cases)('%s', async (_name, messages, expected) => {
		const { error, pushes, items } = await runPush(json(messages));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message.slice(0, `Item 0: ${expected}`.length)).toBe(`Item 0: ${expected}`);
		expect(pushes).toEqual([]);
		expect(items).toEqual([]);
		expect(sim.state.sentMessages()).toEqual([]);
	});

	it('names the item and the UI field of a bad entry and sends nothing for that item (earlier items went out)', async () => {
		const inputItems: TestInputItem[] = ['Yes', 'No', 'Maybe', tooLongLabel].map((label) => ({ json: { label } }));
		const { error, pushes } = await runPush(
			fields(
				{ type: 'text', text: 'Vote' },
				{
					type: 'template',
					templateType: 'buttons',
					templateText: 'Your vote?',
					actions: { action: [uiAction({ type: 'postback', label: '={{ $json.label }}', data: 'vote' })] },
				},
			),
			{ inputItems },
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message).toBe(
			`Item 3: "Messages > Template > Actions > Label" (message 2 of 2, action 1 of 1) must be at most 20 characters, got "${tooLongLabel}" (28 characters)`,
		);
		expect((error as NodeOperationError).description).toContain('[messages[1].template.actions[0].label]');
		expect(pushes.map((r) => ((r.body as { messages: Array<{ template?: { actions: IDataObject[] } }> }).messages[1].template?.actions[0].label))).toEqual([
			'Yes',
			'No',
			'Maybe',
		]);
	});

	it('lists every problem of an item: the first in the message, all of them in the description', async () => {
		const { error, pushes } = await runPush(
			fields(
				// An expression: n8n itself refuses to run a node whose required field is left empty.
				{ type: 'image', originalContentUrl: '={{ "" }}', previewImageUrl: url(1001) },
				{ type: 'audio', originalContentUrl: IMG, duration: 0 },
				{
					type: 'template',
					templateType: 'carousel',
					columns: {
						column: [{ title: 'Room', text: 'r'.repeat(61), defineActions: 'json', actionsJson: '[{"type": "uri", "label": "Open"}]' }],
					},
				},
			),
		);
		expect(error?.message).toBe('Item 0: "Messages > Original Content URL" (message 1 of 3) must not be empty, got an empty string (and 4 more problems)');
		const description = (error as NodeOperationError).description ?? '';
		expect(description.split('\n')).toEqual([
			'Nothing was sent for this item. 5 problems:',
			'1. "Messages > Original Content URL" (message 1 of 3) must not be empty, got an empty string [messages[0].originalContentUrl]',
			`2. "Messages > Preview Image URL" (message 1 of 3) must be at most 1000 characters, got "${url(1001).slice(0, 115)}..." (1001 characters) [messages[0].previewImageUrl]`,
			'3. "Messages > Duration" (message 2 of 3) must be a number greater than 0 (milliseconds), got 0 [messages[1].duration]',
			'4. "Messages > Template > Columns > Text" (message 3 of 3, column 1 of 1) must be at most 60 characters with a title, got "' + 'r'.repeat(61) + '" (61 characters) [messages[2].template.columns[0].text]',
			'5. "Messages > Template > Columns > Actions > Link URI" (message 3 of 3, column 1 of 1, action 1 of 1) is required, got nothing [messages[2].template.columns[0].actions[0].linkUri]',
			'The part in brackets is the place in the request body.',
		]);
		expect(pushes).toEqual([]);
	});

	it('reports Messages (JSON) that is not JSON, and an empty Group ID, without sending', async () => {
		const broken = await runPush(json('[{"type": "text", "text": "hi"'));
		expect(broken.error?.message).toMatch(/^Item 0: "Messages \(JSON\)" must be valid JSON \(.+\), got "\[\{\\"type\\": \\"text\\", \\"text\\": \\"hi\\""$/);
		const noGroup = await runPush({ ...fields({ type: 'text', text: 'hi' }), groupId: '={{ "" }}' });
		expect(noGroup.error?.message).toBe('Item 0: "Group ID" must not be empty, got an empty string');
		expect([...broken.pushes, ...noGroup.pushes]).toEqual([]);
	});

	it('with Continue On Fail, an invalid item becomes an error item and the valid items are sent', async () => {
		const inputItems: TestInputItem[] = [{ json: { n: 1 } }, { json: { n: 250 } }, { json: { n: 3 } }];
		const { items, error, pushes } = await runPush(fields({ type: 'template', templateType: 'buttons', templateText: `={{ 'x'.repeat($json.n) }}`, actions: { action: [uiAction({ type: 'message', label: 'Ok', text: 'ok' })] } }), {
			inputItems,
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(pushes.map((r) => (((r.body as { messages: IDataObject[] }).messages[0].template as IDataObject).text as string).length)).toEqual([1, 3]);
		expect(items).toHaveLength(3);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json.results).toHaveLength(1);
		expect(items[2].json.results).toHaveLength(1);
		expect(items[1].json.error).toBe(
			`Item 1: "Messages > Template > Text" (message 1 of 1) must be at most 160 characters, got "${'x'.repeat(115)}..." (250 characters)`,
		);
		expect(items[1].json.description).toMatch(/^Nothing was sent for this item\. Problem:\n1\. /);
		expect(items[1].json.results).toBeUndefined();
	});

	it('passes a platform refusal on as a NodeApiError (bot not in the group)', async () => {
		const leadership = SEED.groups.leadership;
		const { error, pushes } = await runPush({ ...fields({ type: 'text', text: 'hi' }), groupId: leadership._id, threadId: leadership.mainThreadId });
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).httpCode).toBe('403');
		expect(only(pushes).status).toBe(403);
	});
});

// ----------------------------------------------------------------- carousel columns: builder and JSON

describe('Workplace Bot: Send to Thread, carousel column actions (builder, or Using JSON)', () => {
	const ROOM_A = 'https://example.com/rooms/a';

	it('builds several columns with several action types and default actions into the exact request body', async () => {
		const { items, error, pushes } = await runPush(
			fields(
				carouselUi([
					{
						thumbnailImageUrl: `${ROOM_A}.jpg`,
						imageBackgroundColor: '#F5F5F5',
						title: 'Room A',
						text: '8 seats, projector',
						actions: {
							action: [
								uiAction({ type: 'postback', label: 'Book A', data: 'room=a', text: 'Book room A' }),
								uiAction({ type: 'uri', label: 'Details', linkUri: ROOM_A }),
								uiAction({ type: 'message', label: 'Ask', text: 'Is room A free?' }),
							],
						},
						defaultAction: { action: uiAction({ type: 'uri', linkUri: ROOM_A }) },
					},
					{
						text: 'Room B has 4 seats and a whiteboard',
						actions: {
							action: [
								uiAction({ type: 'workflow', label: 'Booking workflow', workflowId: 'wf-rooms' }),
								uiAction({ type: 'workflowTemplate', label: 'New booking', templateId: 'tpl-booking' }),
							],
						},
						defaultAction: { action: uiAction({ type: 'workflows', label: 'My bookings', status: 'completed' }) },
					},
					{
						title: 'Room C',
						text: 'Quiet room',
						actions: {
							action: [
								uiAction({ type: 'workflows', label: 'All workflows' }),
								uiAction({ type: 'library', label: 'Rules', url: 'https://example.com/library/rooms' }),
							],
						},
					},
				]),
			),
		);
		expect(error).toBeUndefined();
		const carousel = {
			type: 'template',
			altText: 'Pick a room',
			template: {
				type: 'carousel',
				imageAspectRatio: 'rectangle',
				imageSize: 'cover',
				columns: [
					{
						thumbnailImageUrl: `${ROOM_A}.jpg`,
						imageBackgroundColor: '#F5F5F5',
						title: 'Room A',
						text: '8 seats, projector',
						actions: [
							{ type: 'postback', label: 'Book A', data: 'room=a', text: 'Book room A' },
							{ type: 'uri', label: 'Details', linkUri: ROOM_A },
							{ type: 'message', label: 'Ask', text: 'Is room A free?' },
						],
						defaultAction: { type: 'uri', linkUri: ROOM_A },
					},
					{
						text: 'Room B has 4 seats and a whiteboard',
						actions: [
							{ type: 'workflow', label: 'Booking workflow', workflowId: 'wf-rooms' },
							{ type: 'workflowTemplate', label: 'New booking', templateId: 'tpl-booking' },
						],
						defaultAction: { type: 'workflows', label: 'My bookings', status: 'completed' },
					},
					{
						title: 'Room C',
						text: 'Quiet room',
						actions: [
							{ type: 'workflows', label: 'All workflows' },
							{ type: 'library', label: 'Rules', url: 'https://example.com/library/rooms' },
						],
					},
				],
			},
		};
		expect(actionTypes([carousel])).toEqual(['library', 'message', 'postback', 'uri', 'workflow', 'workflowTemplate', 'workflows'].sort());
		expect(pushBody(only(pushes))).toEqual({ gid: project._id, tid: project.mainThreadId, messages: [carousel] });
		expect(items).toHaveLength(1);
		expect(items[0].json.results).toEqual([
			{ status: 'success', message: { id: expect.any(String), type: 'botv2', groupId: project._id, threadId: project.mainThreadId } },
		]);
		expect(sim.state.sentMessages({ gid: project._id, tid: project.mainThreadId }).map((m) => m.content)).toEqual([carousel]);
	});

	it('refuses every limit the built columns break before any request, naming item, field, rule and value', async () => {
		const { error, pushes, items } = await runPush(
			fields(
				carouselUi([
					{
						text: 'Four buttons',
						actions: { action: ['M1', 'M2', 'M3', 'M4'].map((label) => uiAction({ type: 'message', label, text: 'x' })) },
					},
					{
						title: 'Room',
						text: 'Broken actions',
						actions: {
							action: [
								uiAction({ type: 'message', label: tooLongLabel, text: 'x' }),
								uiAction({ type: 'postback', label: 'P', data: '={{ "" }}' }),
								uiAction({ type: 'uri', label: 'Open', linkUri: url(1001) }),
							],
						},
						defaultAction: { action: uiAction({ type: 'workflow', label: tooLongLabel, workflowId: '={{ "" }}' }) },
					},
					{ text: 'No buttons' },
				]),
			),
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message).toBe(
			'Item 0: "Messages > Template > Columns > Actions" (message 1 of 1, column 1 of 3) must have at most 3 actions, got 4 actions (and 6 more problems)',
		);
		expect(((error as NodeOperationError).description ?? '').split('\n')).toEqual([
			'Nothing was sent for this item. 7 problems:',
			'1. "Messages > Template > Columns > Actions" (message 1 of 1, column 1 of 3) must have at most 3 actions, got 4 actions [messages[0].template.columns[0].actions]',
			`2. "Messages > Template > Columns > Actions > Label" (message 1 of 1, column 2 of 3, action 1 of 3) must be at most 20 characters, got "${tooLongLabel}" (28 characters) [messages[0].template.columns[1].actions[0].label]`,
			'3. "Messages > Template > Columns > Actions > Data" (message 1 of 1, column 2 of 3, action 2 of 3) must not be empty, got an empty string [messages[0].template.columns[1].actions[1].data]',
			`4. "Messages > Template > Columns > Actions > Link URI" (message 1 of 1, column 2 of 3, action 3 of 3) must be at most 1000 characters, got "${url(1001).slice(0, 115)}..." (1001 characters) [messages[0].template.columns[1].actions[2].linkUri]`,
			`5. "Messages > Template > Columns > Default Action > Label" (message 1 of 1, column 2 of 3) must be at most 20 characters, got "${tooLongLabel}" (28 characters) [messages[0].template.columns[1].defaultAction.label]`,
			'6. "Messages > Template > Columns > Default Action > Workflow ID" (message 1 of 1, column 2 of 3) must not be empty, got an empty string [messages[0].template.columns[1].defaultAction.workflowId]',
			'7. "Messages > Template > Columns > Actions" (message 1 of 1, column 3 of 3) must have at least 1 action, got 0 actions [messages[0].template.columns[2].actions]',
			'The part in brackets is the place in the request body.',
		]);
		expect(pushes).toEqual([]);
		expect(items).toEqual([]);
		expect(sim.state.sentMessages()).toEqual([]);
	});

	it('sends column actions given with Using JSON unchanged, the same bytes as from the builder', async () => {
		const usingJson = await runPush(fields(buttonsUi, carouselUi(roomColumnsJson)));
		const builder = await runPush(fields(...templateUi));
		const bodies = [usingJson, builder].map((run) => {
			expect(run.error).toBeUndefined();
			return pushBody(only(run.pushes));
		});
		expect(bodies[0]).toEqual({ gid: project._id, tid: project.mainThreadId, messages: templateWire });
		// Same bytes: the builder writes the keys in the order of the JSON.
		expect(JSON.stringify(bodies[1])).toBe(JSON.stringify(bodies[0]));
	});

	it('a column without "Define Actions" uses the builder: JSON fields left in it are not sent', async () => {
		const withoutChoice: IDataObject = { ...roomColumnsJson[0] };
		delete withoutChoice.defineActions;
		const { error, pushes } = await runPush(fields(carouselUi([{ ...withoutChoice, actions: roomColumnsBuilt[0].actions }])));
		expect(error).toBeUndefined();
		const column = ((pushBody(only(pushes)).messages as IDataObject[])[0].template as { columns: IDataObject[] }).columns[0];
		expect(column).toEqual({
			thumbnailImageUrl: 'https://example.com/rooms/a.jpg',
			imageBackgroundColor: '#FFFFFF',
			title: 'Room A',
			text: '8 seats, projector',
			actions: [
				{ type: 'postback', label: 'Book A', data: 'room=a' },
				{ type: 'uri', label: 'Details', linkUri: 'https://example.com/rooms/a' },
			],
		});
	});

	it('Using JSON refuses a column limit in the JSON before any request', async () => {
		const tooMany = JSON.stringify(['A', 'B', 'C', 'D'].map((label) => ({ type: 'message', label, text: 'x' })));
		const { error, pushes } = await runPush(fields(carouselUi([{ text: 'Col', defineActions: 'json', actionsJson: tooMany }])));
		expect(error?.message).toBe(
			'Item 0: "Messages > Template > Columns > Actions" (message 1 of 1, column 1 of 1) must have at most 3 actions, got 4 actions',
		);
		expect(pushes).toEqual([]);
	});
});
