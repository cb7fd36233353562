/**
 * Parameters are read once per node run and item (nodes/shared/parameters.ts): on n8n 2 each
 * expression n8n evaluates costs an isolate call. `{{ $json.field }}` is read from the item, and
 * compared once per run with what n8n makes of it. The spy counts the expressions n8n's engine
 * evaluates: resolveSimpleParameterValue gets each value n8n resolves, among them every expression
 * of the node's fields (those starting `={{ $json`).
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { Expression } from 'n8n-workflow';

import { SEED } from '../../simulator/seed';
import { useSimulator } from '../helpers/simulator';
import { runBot } from './bot.fixtures';

const project = SEED.groups.project;
const alice = SEED.users.alice;
const bob = SEED.users.bob;

const sim = useSimulator();

/** Runs the node and counts the expressions n8n evaluated meanwhile. */
async function countingEvaluations(run: () => ReturnType<typeof runBot>) {
	const spy = jest.spyOn(Expression.prototype, 'resolveSimpleParameterValue');
	try {
		const result = await run();
		// the node's own fields (n8n also resolves every other value, and the credential's header, here)
		const expressions = spy.mock.calls.map((call) => call[0]).filter((v): v is string => typeof v === 'string' && v.startsWith('={{ $json'));
		return { ...result, expressions };
	} finally {
		spy.mockRestore();
	}
}

const send = (text: string) => ({ type: 'text', data: text });

describe('Workplace Bot: each parameter read once per item', () => {
	it('`{{ $json.field }}` fields are taken from the item: n8n evaluates each once per run (the check), the same requests', async () => {
		const topic = project.topics.release._id;
		const { items, requests, expressions, error } = await countingEvaluations(() =>
			runBot(
				sim,
				{ resource: 'groupMessage', operation: 'sendText', groupId: '={{ $json.gid }}', topicId: '={{ $json.thread.tid }}', text: '={{ $json.text }}' },
				{
					inputItems: [
						{ json: { gid: project._id, thread: { tid: '' }, text: 'one' } },
						{ json: { gid: project._id, thread: { tid: topic }, text: 'two' } },
						{ json: { gid: project._id, thread: { tid: '' }, text: 42 } },
					],
				},
			),
		);
		expect(error).toBeUndefined();
		expect([...expressions].sort()).toEqual(['={{ $json.gid }}', '={{ $json.text }}', '={{ $json.thread.tid }}']);
		expect(requests.map((r) => [r.method, r.path, r.status, r.body])).toEqual([
			['POST', '/bot/v1/group/message', 201, { gid: project._id, tid: '', message: send('one') }],
			['POST', '/bot/v1/group/message', 201, { gid: project._id, tid: topic, message: send('two') }],
			['POST', '/bot/v1/group/message', 201, { gid: project._id, tid: '', message: send('42') }],
		]);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('other expressions are evaluated by n8n once per item, although grouping and sending both read them', async () => {
		const { requests, expressions, error } = await countingEvaluations(() =>
			runBot(
				sim,
				{ resource: 'groupMessage', operation: 'sendText', groupId: '={{ $json["gid"] }}', topicId: '={{ $json.tid || "" }}', text: '={{ $json.text.toUpperCase() }}' },
				{ inputItems: [{ json: { gid: project._id, tid: '', text: 'one' } }, { json: { gid: project._id, tid: '', text: 'two' } }] },
			),
		);
		expect(error).toBeUndefined();
		expect([...expressions].sort()).toEqual(
			['={{ $json["gid"] }}', '={{ $json.tid || "" }}', '={{ $json.text.toUpperCase() }}'].flatMap((e) => [e, e]).sort(),
		);
		expect(requests.map((r) => r.body)).toEqual([
			{ gid: project._id, tid: '', message: send('ONE') },
			{ gid: project._id, tid: '', message: send('TWO') },
		]);
	});

	it('a `{{ $json.field }}` the item lacks, or that holds an object, is left to n8n: the same error as n8n gives, before any request', async () => {
		const missing = await countingEvaluations(() =>
			runBot(sim, { resource: 'directMessage', operation: 'sendText', userId: alice._id, text: '={{ $json.text }}' }, { inputItems: [{ json: { other: 1 } }] }),
		);
		const evaluated = await countingEvaluations(() =>
			runBot(sim, { resource: 'directMessage', operation: 'sendText', userId: alice._id, text: '={{ $json["text"] }}' }, { inputItems: [{ json: { other: 1 } }] }),
		);
		expect(missing.expressions).toEqual(['={{ $json.text }}']);
		expect(missing.requests).toHaveLength(0);
		expect(missing.error?.message).toBe(evaluated.error?.message);
		expect(missing.error?.message).toBe('Item 0: "Text" must be text, got nothing');

		const object = await countingEvaluations(() =>
			runBot(sim, { resource: 'directMessage', operation: 'sendText', userId: alice._id, text: '={{ $json.text }}' }, { inputItems: [{ json: { text: { a: 1 } } }] }),
		);
		expect(object.expressions).toEqual(['={{ $json.text }}']);
		expect(object.requests).toHaveLength(0);
		expect(object.error?.message).toMatch(/^Item 0: "Text" must be text/);
	});

	it('a resource locator By ID holding `{{ $json.uid }}` is read from the item, each item to its own user', async () => {
		const { requests, expressions, error } = await countingEvaluations(() =>
			runBot(
				sim,
				{ resource: 'directMessage', operation: 'sendText', userId: { __rl: true, mode: 'id', value: '={{ $json.uid }}' }, text: 'Hi' },
				{ inputItems: [{ json: { uid: alice._id } }, { json: { uid: bob._id } }] },
			),
		);
		expect(error).toBeUndefined();
		expect(expressions).toEqual(['={{ $json.uid }}']);
		expect(requests.map((r) => [r.path, r.status, r.body])).toEqual([
			['/bot/v1/direct/message', 201, { uid: alice._id, message: send('Hi') }],
			['/bot/v1/direct/message', 201, { uid: bob._id, message: send('Hi') }],
		]);
	});

	// Last in this file: it switches reading from the item off for the rest of the process (this file's module registry).
	it('when n8n makes something else of `{{ $json.field }}`: n8n\'s value is sent, for every item from then on, and the log says so once', async () => {
		const evaluate = Expression.prototype.resolveSimpleParameterValue;
		const spy = jest.spyOn(Expression.prototype, 'resolveSimpleParameterValue').mockImplementation(function (this: Expression, ...args) {
			return args[0] === '={{ $json.text }}' ? 'as n8n evaluates it' : evaluate.apply(this, args);
		});
		const warn = jest.spyOn(Container.get(Logger), 'warn');
		try {
			const run = async () =>
				await runBot(
					sim,
					{ resource: 'directMessage', operation: 'sendText', userId: alice._id, text: '={{ $json.text }}' },
					{ inputItems: [{ json: { text: 'one' } }, { json: { text: 'two' } }] },
				);
			const first = await run();
			const second = await run();
			for (const { requests, error } of [first, second]) {
				expect(error).toBeUndefined();
				expect(requests.map((r) => r.body)).toEqual([
					{ uid: alice._id, message: send('as n8n evaluates it') },
					{ uid: alice._id, message: send('as n8n evaluates it') },
				]);
			}
			expect(spy.mock.calls.filter((call) => call[0] === '={{ $json.text }}')).toHaveLength(4);
			expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([
				'Parameter "text" = {{ $json.… }} evaluated by n8n differs from the input item\'s field: n8n evaluates every such parameter from now on. (a fallback of n8n-nodes-workplace, logged once per n8n process)',
			]);
		} finally {
			spy.mockRestore();
			warn.mockRestore();
		}
	});
});
