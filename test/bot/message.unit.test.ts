/**
 * The v2 push message builder and validator as plain functions: every limit and required
 * field of the spec, error texts, and UI entries vs JSON giving the same wire objects.
 * (End-to-end behaviour through n8n-core and the simulator: message.test.ts.)
 */
import type { IDataObject } from 'n8n-workflow';

import { buildMessagesFromFields, buildMessagesFromJson } from '../../nodes/WorkplaceBot/actions/message/build';
import { collectViolations } from '../../nodes/WorkplaceBot/actions/message/messages';
import { LIMITS, displayPath, wirePath } from '../../nodes/WorkplaceBot/actions/message/spec';
import { validateMessages } from '../../nodes/WorkplaceBot/actions/message/validate';
import type { Violation } from '../../nodes/shared/validation';
import { charLength } from '../../nodes/shared/validation';

const URL_OK = 'https://example.com/a.png';
const longUrl = (length: number) => `https://example.com/${'x'.repeat(length - 'https://example.com/'.length)}`;

/** The violations of one message as `path: rule, got ...` lines. */
function problems(messages: unknown): string[] {
	return validateMessages(messages).map((v) => `${displayPath('Messages', v.path, messages)}: ${v.rule}, got ${v.got}`);
}

const buttons = (template: IDataObject): IDataObject => ({
	type: 'template',
	template: { type: 'buttons', text: 'Pick one', actions: [{ type: 'message', label: 'A', text: 'a' }], ...template },
});
const column = (over: IDataObject = {}): IDataObject => ({
	text: 'Column',
	actions: [{ type: 'postback', label: 'Go', data: 'go' }],
	...over,
});
const carousel = (columns: IDataObject[], extra: IDataObject = {}): IDataObject => ({
	type: 'template',
	template: { type: 'carousel', columns, ...extra },
});
const area = { x: 0, y: 0, width: 100, height: 50 };
const imagemap = (actions: unknown[], extra: IDataObject = {}): IDataObject => ({
	type: 'imagemap',
	baseUrl: URL_OK,
	baseSize: { width: 1040, height: 520 },
	actions,
	...extra,
});

describe('validateMessages: valid messages pass', () => {
	it('accepts every message type, both templates, quick replies and all seven action types', () => {
		const messages = [
			{ type: 'text', text: 'Hello' },
			{ type: 'image', originalContentUrl: URL_OK, previewImageUrl: URL_OK },
			{ type: 'video', originalContentUrl: URL_OK, previewImageUrl: URL_OK, trackingId: 't1' },
			{ type: 'audio', originalContentUrl: URL_OK, duration: 60000 },
			imagemap([{ type: 'uri', linkUri: URL_OK, area }], { altText: 'Map' }),
			buttons({
				thumbnailImageUrl: longUrl(LIMITS.url),
				imageAspectRatio: 'square',
				imageSize: 'contain',
				imageBackgroundColor: '#000000',
				title: 'T'.repeat(LIMITS.title),
				text: 'x'.repeat(LIMITS.textWithImageOrTitle),
				actions: [
					{ type: 'message', label: 'L'.repeat(LIMITS.label), text: 'm' },
					{ type: 'postback', label: 'P', data: 'd', text: 'shown' },
					{ type: 'workflowTemplate', label: 'WT', templateId: 'tpl1' },
					{ type: 'workflow', label: 'W', workflowId: 'wf1' },
				],
				defaultAction: { type: 'uri', linkUri: URL_OK },
			}),
			carousel(
				[
					column({
						actions: [
							{ type: 'workflows', label: 'All' },
							{ type: 'workflows', label: 'Done', status: 'completed' },
							{ type: 'library', label: 'Doc', url: URL_OK },
						],
					}),
					...Array.from({ length: LIMITS.carouselColumns - 1 }, () => column({ text: 'y'.repeat(LIMITS.text) })),
				],
				{ imageAspectRatio: 'rectangle', imageSize: 'cover' },
			),
			{
				type: 'text',
				text: 'Quick',
				quickReply: {
					items: [
						{ type: 'action', imageUrl: URL_OK, action: { type: 'message', label: 'Yes', text: 'yes' } },
						{ type: 'action' },
					],
				},
			},
		];
		expect(problems(messages)).toEqual([]);
	});

	it('accepts 50 imagemap areas, 4 buttons, 3 column actions and labels counted in characters, not UTF-16 units', () => {
		expect(problems([imagemap(Array.from({ length: 50 }, () => ({ type: 'message', text: 'hi', area })))])).toEqual([]);
		const emojiLabel = '👍'.repeat(LIMITS.label); // 40 UTF-16 units, 20 characters
		expect(charLength(emojiLabel)).toBe(20);
		expect(problems([buttons({ actions: [{ type: 'message', label: emojiLabel, text: 'x' }] })])).toEqual([]);
	});
});

describe('validateMessages: each limit and required field', () => {
	const cases: Array<[string, unknown[], string[]]> = [
		[
			'action label over 20 characters (buttons)',
			[{ type: 'text', text: 'x' }, buttons({ actions: [{ type: 'message', label: 'A label that is far too long', text: 'x' }] })],
			['Messages > Template > Actions > Label (message 2 of 2, action 1 of 1): must be at most 20 characters, got "A label that is far too long" (28 characters)'],
		],
		[
			'label missing in buttons, carousel and quick reply actions',
			[
				buttons({ actions: [{ type: 'message', text: 'x' }] }),
				carousel([column({ actions: [{ type: 'postback', data: 'd', label: '' }] })]),
				{ type: 'text', text: 'x', quickReply: { items: [{ type: 'action', action: { type: 'message', text: 'x' } }] } },
			],
			[
				'Messages > Template > Actions > Label (message 1 of 3, action 1 of 1): is required, got nothing',
				'Messages > Template > Columns > Actions > Label (message 2 of 3, column 1 of 1, action 1 of 1): must not be empty, got an empty string',
				'Messages > Quick Reply > Items > Action > Label (message 3 of 3, quick reply item 1 of 1): is required, got nothing',
			],
		],
		[
			'every URL field over 1000 characters',
			[
				{ type: 'image', originalContentUrl: longUrl(1001), previewImageUrl: longUrl(1001) },
				{ type: 'audio', originalContentUrl: URL_OK, duration: 1 },
				imagemap([{ type: 'library', url: longUrl(1001), area }], { baseUrl: longUrl(1001) }),
				buttons({ thumbnailImageUrl: longUrl(1001), text: 'x', actions: [{ type: 'uri', label: 'u', linkUri: longUrl(1001) }] }),
				{ type: 'text', text: 'x', quickReply: { items: [{ type: 'action', imageUrl: longUrl(1001) }] } },
			],
			[
				'Messages > Original Content URL (message 1 of 5): must be at most 1000 characters',
				'Messages > Preview Image URL (message 1 of 5): must be at most 1000 characters',
				'Messages > Base URL (message 3 of 5): must be at most 1000 characters',
				'Messages > Actions > URL (message 3 of 5, action 1 of 1): must be at most 1000 characters',
				'Messages > Template > Thumbnail Image URL (message 4 of 5): must be at most 1000 characters',
				'Messages > Template > Actions > Link URI (message 4 of 5, action 1 of 1): must be at most 1000 characters',
				'Messages > Quick Reply > Items > Image URL (message 5 of 5, quick reply item 1 of 1): must be at most 1000 characters',
			],
		],
		[
			'buttons title over 40, text over 160, over 60 with a title or image',
			[
				buttons({ title: 'T'.repeat(41), text: 'ok' }),
				buttons({ text: 'x'.repeat(161) }),
				buttons({ title: 'Title', text: 'x'.repeat(61) }),
				buttons({ thumbnailImageUrl: URL_OK, text: 'x'.repeat(61) }),
				carousel([column({ title: 'Title', text: 'x'.repeat(61) }), column({ text: 'x'.repeat(161) })]),
			],
			[
				'Messages > Template > Title (message 1 of 5): must be at most 40 characters',
				'Messages > Template > Text (message 2 of 5): must be at most 160 characters',
				'Messages > Template > Text (message 3 of 5): must be at most 60 characters with a title',
				'Messages > Template > Text (message 4 of 5): must be at most 60 characters with an image',
				'Messages > Template > Columns > Text (message 5 of 5, column 1 of 2): must be at most 60 characters with a title',
				'Messages > Template > Columns > Text (message 5 of 5, column 2 of 2): must be at most 160 characters',
			],
		],
		[
			'buttons actions 1..4, carousel columns 1..10 with 1..3 actions, imagemap actions 1..50',
			[
				buttons({ actions: Array.from({ length: 5 }, () => ({ type: 'message', label: 'l', text: 't' })) }),
				buttons({ actions: [] }),
				carousel(Array.from({ length: 11 }, () => column())),
				carousel([]),
				carousel([column({ actions: Array.from({ length: 4 }, () => ({ type: 'workflows', label: 'w' })) })]),
				imagemap(Array.from({ length: 51 }, () => ({ type: 'message', text: 'hi', area }))),
			],
			[
				'Messages > Template > Actions (message 1 of 6): must have at most 4 actions, got 5 actions',
				'Messages > Template > Actions (message 2 of 6): must have at least 1 action, got 0 actions',
				'Messages > Template > Columns (message 3 of 6): must have at most 10 columns, got 11 columns',
				'Messages > Template > Columns (message 4 of 6): must have at least 1 column, got 0 columns',
				'Messages > Template > Columns > Actions (message 5 of 6, column 1 of 1): must have at most 3 actions, got 4 actions',
				'Messages > Actions (message 6 of 6): must have at most 50 actions, got 51 actions',
			],
		],
		[
			'imagemap area: x, y whole numbers >= 0, width and height > 0, area required',
			[
				imagemap([
					{ type: 'message', text: 'a', area: { x: -1, y: 1.5, width: 0, height: '10' } },
					{ type: 'message', text: 'b' },
				]),
			],
			[
				'Messages > Actions > Area > X (message 1 of 1, action 1 of 2): must be a whole number of at least 0, got -1',
				'Messages > Actions > Area > Y (message 1 of 1, action 1 of 2): must be a whole number, got 1.5',
				'Messages > Actions > Area > Width (message 1 of 1, action 1 of 2): must be a whole number greater than 0, got 0',
				'Messages > Actions > Area > Height (message 1 of 1, action 1 of 2): must be a whole number, got "10"',
				'Messages > Actions > Area (message 1 of 1, action 2 of 2): is required, got nothing',
			],
		],
		[
			'required fields of each message type',
			[
				{ type: 'text' },
				{ type: 'text', text: '   ' },
				{ type: 'image', originalContentUrl: URL_OK },
				{ type: 'video', previewImageUrl: URL_OK },
				{ type: 'audio', originalContentUrl: URL_OK },
				{ type: 'audio', originalContentUrl: URL_OK, duration: '1000' },
				{ type: 'imagemap', baseSize: { width: 0 } },
				{ type: 'template' },
				{ type: 'template', template: { type: 'list' } },
				{ type: 'sticker' },
				{},
				'hello',
			],
			[
				'Messages > Text (message 1 of 12): is required, got nothing',
				'Messages > Text (message 2 of 12): must not be empty, got "   "',
				'Messages > Preview Image URL (message 3 of 12): is required, got nothing',
				'Messages > Original Content URL (message 4 of 12): is required, got nothing',
				'Messages > Duration (message 5 of 12): is required, got nothing',
				'Messages > Duration (message 6 of 12): must be a number (milliseconds), got "1000"',
				'Messages > Base URL (message 7 of 12): is required, got nothing',
				'Messages > Base Size > Width (message 7 of 12): must be a number greater than 0 (pixels), got 0',
				'Messages > Base Size > Height (message 7 of 12): is required, got nothing',
				'Messages > Actions (message 7 of 12): is required, got nothing',
				'Messages > Template (message 8 of 12): is required, got nothing',
				'Messages > Template > Type (message 9 of 12): must be one of "buttons", "carousel", got "list"',
				'Messages > Type (message 10 of 12): must be one of "text", "image", "video", "audio", "imagemap", "template", got "sticker"',
				'Messages > Type (message 11 of 12): is required, got nothing',
				'Messages (message 12 of 12): must be a message object like {"type": "text", "text": "Hello"}, got "hello"',
			],
		],
		[
			'required fields of each action type, workflows status, uri written as `uri`',
			[
				buttons({
					actions: [
						{ type: 'message', label: 'm' },
						{ type: 'postback', label: 'p', text: 'no data' },
						{ type: 'workflowTemplate', label: 'wt' },
						{ type: 'workflow', label: 'w', workflowId: 42 },
					],
				}),
				carousel([
					column({
						actions: [
							{ type: 'workflows', label: 'ws', status: 'done' },
							{ type: 'uri', label: 'u', uri: URL_OK },
							{ type: 'uri', label: 'u2' },
						],
					}),
					column({ actions: [{ label: 'none' }, { type: 'call', label: 'c' }] }),
				]),
			],
			[
				'Messages > Template > Actions > Text (message 1 of 2, action 1 of 4): is required, got nothing',
				'Messages > Template > Actions > Data (message 1 of 2, action 2 of 4): is required, got nothing',
				'Messages > Template > Actions > Template ID (message 1 of 2, action 3 of 4): is required, got nothing',
				'Messages > Template > Actions > Workflow ID (message 1 of 2, action 4 of 4): must be text, got 42',
				'Messages > Template > Columns > Actions > Status (message 2 of 2, column 1 of 2, action 1 of 3): must be one of "awaiting", "processing", "completed", "rejected", "canceled", got "done"',
				'Messages > Template > Columns > Actions > Link URI (message 2 of 2, column 1 of 2, action 2 of 3): is required (the field is "linkUri", not "uri"), got nothing',
				'Messages > Template > Columns > Actions > Link URI (message 2 of 2, column 1 of 2, action 3 of 3): is required, got nothing',
				'Messages > Template > Columns > Actions > Type (message 2 of 2, column 2 of 2, action 1 of 2): is required, got nothing',
				'Messages > Template > Columns > Actions > Type (message 2 of 2, column 2 of 2, action 2 of 2): must be one of "message", "postback", "workflowTemplate", "workflow", "workflows", "library", "uri", got "call"',
			],
		],
		[
			'imageAspectRatio, imageSize and quick reply item type',
			[
				buttons({ imageAspectRatio: 'wide', imageSize: 'fill' }),
				{ type: 'text', text: 'x', quickReply: { items: [{ type: 'button' }, {}] } },
				{ type: 'text', text: 'x', quickReply: { items: [] } },
			],
			[
				'Messages > Template > Image Aspect Ratio (message 1 of 3): must be one of "rectangle", "square", got "wide"',
				'Messages > Template > Image Size (message 1 of 3): must be one of "cover", "contain", got "fill"',
				'Messages > Quick Reply > Items > Type (message 2 of 3, quick reply item 1 of 2): must be "action", got "button"',
				'Messages > Quick Reply > Items > Type (message 2 of 3, quick reply item 2 of 2): is required, got nothing',
				'Messages > Quick Reply > Items (message 3 of 3): must have at least 1 item, got 0 items',
			],
		],
	];

	it.each(cases)('%s', (_name, messages, expected) => {
		const found = problems(messages);
		expect(found).toHaveLength(expected.length);
		expect(found.map((line, k) => line.slice(0, expected[k]?.length))).toEqual(expected);
	});

	it('reports an empty list and a non-list', () => {
		expect(problems([])).toEqual(['Messages: must have at least 1 message, got an empty list']);
		expect(problems({ type: 'text' })).toEqual(['Messages: must be a list of messages, got an object']);
	});

	it('names each problem by display path and by request-body path', () => {
		const [violation] = validateMessages([
			{ type: 'text', text: 'x' },
			buttons({ actions: [{ type: 'message', label: 'A label that is far too long', text: 'x' }] }),
		]);
		expect(displayPath('Messages', violation.path)).toBe('Messages > Template > Actions > Label (message 2, action 1)');
		expect(wirePath(violation.path)).toBe('messages[1].template.actions[0].label');
		expect(violation.got).toBe('"A label that is far too long" (28 characters)');
	});

	it('shortens long values in the message but keeps their real length', () => {
		const [violation] = validateMessages([{ type: 'image', originalContentUrl: longUrl(1500), previewImageUrl: URL_OK }]);
		expect(violation.got).toMatch(/^"https:\/\/example\.com\/x+\.\.\." \(1500 characters\)$/);
		expect(violation.got.length).toBeLessThan(150);
	});
});

/** A UI action entry with every field an n8n user could have left behind; only the type's own fields are sent. */
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

describe('build: UI entries and JSON give the same wire messages', () => {
	const wire: IDataObject[] = [
		{ type: 'text', text: 'Hello', quickReply: { items: [{ type: 'action', imageUrl: URL_OK, action: { type: 'message', label: 'Hi', text: 'hi' } }] } },
		{ type: 'image', originalContentUrl: URL_OK, previewImageUrl: 'https://example.com/p.png' },
		{ type: 'video', originalContentUrl: 'https://example.com/v.mp4', previewImageUrl: URL_OK, trackingId: 'trk' },
		{ type: 'audio', originalContentUrl: 'https://example.com/a.m4a', duration: 1500 },
		{
			type: 'imagemap',
			baseUrl: URL_OK,
			altText: 'Floor plan',
			baseSize: { width: 1040, height: 700 },
			actions: [
				{ type: 'uri', area: { x: 0, y: 0, width: 520, height: 700 }, linkUri: 'https://example.com/left' },
				{ type: 'message', label: 'Right', area: { x: 520, y: 0, width: 520, height: 700 }, text: 'right' },
			],
		},
		{
			type: 'template',
			altText: 'Choose',
			template: {
				type: 'buttons',
				imageAspectRatio: 'square',
				imageSize: 'contain',
				thumbnailImageUrl: URL_OK,
				imageBackgroundColor: '#112233',
				title: 'Request',
				text: 'Approve?',
				actions: [
					{ type: 'postback', label: 'Yes', data: 'yes', text: 'Yes please' },
					{ type: 'workflowTemplate', label: 'Template', templateId: 'tpl-1' },
					{ type: 'workflow', label: 'Workflow', workflowId: 'wf-1' },
					{ type: 'workflows', label: 'Pending', status: 'awaiting' },
				],
				defaultAction: { type: 'uri', linkUri: URL_OK },
			},
			quickReply: { items: [{ type: 'action', action: { type: 'library', label: 'Docs', url: URL_OK } }] },
		},
		{
			type: 'template',
			template: {
				type: 'carousel',
				imageSize: 'cover',
				columns: [
					{
						thumbnailImageUrl: URL_OK,
						imageBackgroundColor: '#FFFFFF',
						title: 'One',
						text: 'First',
						actions: [{ type: 'uri', label: 'Open', linkUri: URL_OK }],
						defaultAction: { type: 'message', text: 'one' },
					},
					{ text: 'Second', actions: [{ type: 'workflows', label: 'All' }] },
				],
			},
		},
	];

	const ui = {
		message: [
			{
				type: 'text',
				text: 'Hello',
				originalContentUrl: '',
				quickReply: { items: [uiAction({ imageUrl: URL_OK, type: 'message', label: 'Hi', text: 'hi' })] },
			},
			{ type: 'image', originalContentUrl: URL_OK, previewImageUrl: 'https://example.com/p.png', text: 'stale' },
			{ type: 'video', originalContentUrl: 'https://example.com/v.mp4', previewImageUrl: URL_OK, trackingId: 'trk' },
			{ type: 'audio', originalContentUrl: 'https://example.com/a.m4a', duration: 1500, quickReply: {} },
			{
				type: 'imagemap',
				baseUrl: URL_OK,
				baseWidth: 1040,
				baseHeight: 700,
				altText: 'Floor plan',
				imagemapActions: {
					action: [
						uiAction({ type: 'uri', linkUri: 'https://example.com/left', x: 0, y: 0, width: 520, height: 700 }),
						uiAction({ type: 'message', label: 'Right', text: 'right', x: 520, y: 0, width: 520, height: 700 }),
					],
				},
			},
			{
				type: 'template',
				templateType: 'buttons',
				altText: 'Choose',
				thumbnailImageUrl: URL_OK,
				title: 'Request',
				templateText: 'Approve?',
				templateOptions: {
					imageAspectRatio: 'square',
					imageSize: 'contain',
					imageBackgroundColor: '#112233',
					defaultActionJson: '{"type": "uri", "linkUri": "https://example.com/a.png"}',
				},
				actions: {
					action: [
						uiAction({ type: 'postback', label: 'Yes', data: 'yes', text: 'Yes please' }),
						uiAction({ type: 'workflowTemplate', label: 'Template', templateId: 'tpl-1' }),
						uiAction({ type: 'workflow', label: 'Workflow', workflowId: 'wf-1' }),
						uiAction({ type: 'workflows', label: 'Pending', status: 'awaiting' }),
					],
				},
				columns: { column: [{ text: 'stale carousel column' }] },
				quickReply: { items: [uiAction({ type: 'library', label: 'Docs', url: URL_OK })] },
			},
			{
				type: 'template',
				templateType: 'carousel',
				title: 'stale buttons title',
				templateOptions: { imageSize: 'cover' },
				columns: {
					column: [
						{
							thumbnailImageUrl: URL_OK,
							imageBackgroundColor: '#FFFFFF',
							title: 'One',
							text: 'First',
							defineActions: 'json',
							actionsJson: '[{"type": "uri", "label": "Open", "linkUri": "https://example.com/a.png"}]',
							defaultActionJson: { type: 'message', text: 'one' },
						},
						{
							thumbnailImageUrl: '',
							imageBackgroundColor: '',
							title: '',
							text: 'Second',
							defineActions: 'json',
							actionsJson: { type: 'workflows', label: 'All' },
							defaultActionJson: '',
						},
					],
				},
			},
		],
	};

	it('builds each UI entry into the wire object of the spec, leaving out empty and other-type fields', () => {
		const built = buildMessagesFromFields(ui);
		expect(built.violations).toEqual([]);
		expect(built.messages).toEqual(wire);
		expect(collectViolations(built)).toEqual([]);
	});

	it('takes the same messages as JSON text, as a value from an expression, and a single object as a list of one', () => {
		expect(buildMessagesFromJson(JSON.stringify(wire))).toEqual({ messages: wire, violations: [] });
		expect(buildMessagesFromJson(wire)).toEqual({ messages: wire, violations: [] });
		expect(buildMessagesFromJson(JSON.stringify(wire[0])).messages).toEqual([wire[0]]);
	});

	it('reports JSON that does not parse once, where it was given', () => {
		const fromJson = collectViolations(buildMessagesFromJson('[{"type": "text",'));
		expect(fromJson).toHaveLength(1);
		expect(displayPath('Messages (JSON)', fromJson[0].path)).toBe('Messages (JSON)');
		expect(fromJson[0].rule).toMatch(/^must be valid JSON \(/);

		const fromColumn = collectViolations(
			buildMessagesFromFields({
				message: [
					{
						type: 'template',
						templateType: 'carousel',
						columns: { column: [{ text: 'x', defineActions: 'json', actionsJson: '[{oops}]', defaultActionJson: 'nope' }] },
					},
				],
			}),
		);
		expect(fromColumn.map((v: Violation) => [displayPath('Messages', v.path), v.rule.slice(0, 20)])).toEqual([
			['Messages > Template > Columns > Actions (message 1, column 1)', 'must be valid JSON ('],
			['Messages > Template > Columns > Default Action (message 1, column 1)', 'must be valid JSON ('],
		]);
	});

	it('keeps required UI fields even when empty so the gap is reported, and refuses buttons-only options on a carousel', () => {
		const built = buildMessagesFromFields({
			message: [
				{ type: 'template', templateType: 'buttons', templateText: '', actions: { action: [uiAction({ type: 'message' })] } },
				{
					type: 'template',
					templateType: 'carousel',
					templateOptions: { imageBackgroundColor: '#000000' },
					columns: { column: [{ text: 'x', defineActions: 'json', actionsJson: '[{"type":"message","label":"a","text":"a"}]' }] },
				},
			],
		});
		expect(built.messages).toEqual([
			{ type: 'template', template: { type: 'buttons', text: '', actions: [{ type: 'message', text: '' }] } },
			{ type: 'template', template: { type: 'carousel', columns: [{ text: 'x', actions: [{ type: 'message', label: 'a', text: 'a' }] }] } },
		]);
		expect(collectViolations(built).map((v) => `${displayPath('Messages', v.path, built.messages)}: ${v.rule}`)).toEqual([
			'Messages > Template > Image Background Color (message 2 of 2): applies to the Buttons template only; for a carousel, set it on each column',
			'Messages > Template > Text (message 1 of 2): must not be empty',
			'Messages > Template > Actions > Label (message 1 of 2, action 1 of 1): is required',
			'Messages > Template > Actions > Text (message 1 of 2, action 1 of 1): must not be empty',
		]);
	});

	it('needs at least one message entry', () => {
		expect(collectViolations(buildMessagesFromFields({})).map((v) => v.rule)).toEqual(['must have at least 1 message']);
	});
});
