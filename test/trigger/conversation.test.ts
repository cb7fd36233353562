/**
 * One Run per Conversation at a Time (WorkplaceTrigger/conversationTurns.ts), through n8n-core: two
 * messages a person sends quickly start two runs of Workplace Trigger → "Memory Agent", a test node
 * standing for n8n's AI Agent with a memory keyed by the conversation: it reads the conversation's
 * memory when it starts, thinks AGENT_MS, and writes its answer into the memory when it ends.
 *
 * In real n8n on both majors (and the compatibility suite's releases) the e2e scenario *trigger
 * conversation turns* (test/e2e/scenarios/trigger-conversation-turns.ts) guards the same reliance
 * (docs/ARCHITECTURE.md reliance 14): this n8n-core is 1.x, whose n8n-workflow has sleepWithAbort;
 * n8n 2.41.1's has not, which only the scenario exercises.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription, IRun } from 'n8n-workflow';
import { ExecutionLifecycleHooks } from 'n8n-core';
import { sleep } from 'n8n-workflow';

import { messageEvent, signBody } from '../../simulator';
import { registerTestTypes } from '../helpers/engine-types';
import { TriggerBed } from './trigger-bed';

const SECRET = 'conversation-test-secret';
const AGENT_MS = 400;

/** The agents' memory: the answers given so far, by conversation. */
const memory = new Map<string, string[]>();

class MemoryAgent implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Memory Agent',
		name: 'memoryAgent',
		group: ['transform'],
		version: 1,
		description: 'Answers with what its memory of the conversation held when it started',
		defaults: { name: 'Memory Agent' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		for (const item of this.getInputData()) {
			const message = item.json.message as { groupId: string; topicId: string; text: string };
			const key = message.topicId ? `${message.groupId}_${message.topicId}` : message.groupId;
			const knew = [...(memory.get(key) ?? [])];
			await sleep(AGENT_MS);
			memory.set(key, [...(memory.get(key) ?? []), `answer to ${message.text}`]);
			out.push({ json: { text: message.text, knew } });
		}
		return [out];
	}
}

let agentType = '';

beforeAll(async () => {
	await TriggerBed.init();
	[agentType] = registerTestTypes({ nodes: [new MemoryAgent()] }).nodes;
});

beforeEach(() => memory.clear());

function delivery(text: string, chat: { groupId: string; topicId?: string } = { groupId: 'g1', topicId: 't1' }) {
	const raw = JSON.stringify({ events: [messageEvent({ text, groupId: chat.groupId, topicId: chat.topicId ?? '' })] });
	return { rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, raw, 'hex') } };
}

function bed(options: Record<string, unknown>): TriggerBed {
	return new TriggerBed({
		parameters: { verification: 'secret', events: ['message'], options },
		credentials: { workplaceWebhookApi: { secret: SECRET } },
		next: agentType,
	});
}

/** What the agent of a run answered: the message and what its memory held. */
function agentOutput(run: IRun | undefined): unknown {
	return run?.data.resultData.runData['Next']?.[0]?.data?.main[0]?.map((item) => item.json);
}

/** Two deliveries `gapMs` apart, the second sent while the first's run is still thinking. */
async function twoQuickMessages(trigger: TriggerBed, gapMs = 50, chats: Array<{ groupId: string; topicId?: string }> = []) {
	const first = trigger.deliver(delivery('first', chats[0]));
	await sleep(gapMs);
	const second = trigger.deliver(delivery('second', chats[1]));
	return await Promise.all([first, second]);
}

test('without the option (the default) the second run reads the memory before the first wrote it', async () => {
	const [first, second] = await twoQuickMessages(bed({}));
	expect(agentOutput(first.run)).toEqual([{ text: 'first', knew: [] }]);
	expect(agentOutput(second.run)).toEqual([{ text: 'second', knew: [] }]);
});

test('with One Run per Conversation at a Time the second run waits for the first, and its agent sees the first answer', async () => {
	const trigger = bed({ oneRunPerConversation: true });
	const started = Date.now();
	const [first, second] = await twoQuickMessages(trigger);
	expect([first.status, second.status]).toEqual([200, 200]);
	expect(agentOutput(first.run)).toEqual([{ text: 'first', knew: [] }]);
	expect(agentOutput(second.run)).toEqual([{ text: 'second', knew: ['answer to first'] }]);
	// One after the other: about two agent times.
	expect(Date.now() - started).toBeGreaterThanOrEqual(2 * AGENT_MS);
	expect(trigger.logs).toEqual([]);
});

test('the platform is answered when the run starts, not when the wait ends', async () => {
	const trigger = bed({ oneRunPerConversation: true });
	const [first, second] = await twoQuickMessages(trigger);
	const secondRunEnded = new Date(second.run?.stoppedAt ?? 0).getTime();
	expect(second.answeredAtReturn).toBe(false);
	// Answered about when the first run ended and the second's agent had not begun.
	expect(second.answeredAt).toBeLessThan(new Date(first.run?.stoppedAt ?? 0).getTime());
	expect(secondRunEnded - (second.answeredAt ?? 0)).toBeGreaterThanOrEqual(2 * AGENT_MS - 100);
});

test('other conversations do not wait', async () => {
	const trigger = bed({ oneRunPerConversation: true });
	const started = Date.now();
	const [first, second] = await twoQuickMessages(trigger, 50, [{ groupId: 'g1', topicId: 't1' }, { groupId: 'g1', topicId: 't2' }]);
	expect(agentOutput(first.run)).toEqual([{ text: 'first', knew: [] }]);
	expect(agentOutput(second.run)).toEqual([{ text: 'second', knew: [] }]);
	expect(Date.now() - started).toBeLessThan(2 * AGENT_MS);
});

test('three quick messages run in the order their runs started, each seeing the answers before it', async () => {
	const trigger = bed({ oneRunPerConversation: true });
	const runs = [];
	for (const text of ['one', 'two', 'three']) {
		runs.push(trigger.deliver(delivery(text, { groupId: 'g2' })));
		await sleep(30);
	}
	const outcomes = await Promise.all(runs);
	expect(outcomes.map((o) => agentOutput(o.run))).toEqual([
		[{ text: 'one', knew: [] }],
		[{ text: 'two', knew: ['answer to one'] }],
		[{ text: 'three', knew: ['answer to one', 'answer to two'] }],
	]);
});

test('Max Wait bounds the wait: the second run goes ahead with one log line', async () => {
	const trigger = bed({ oneRunPerConversation: true, conversationMaxWait: 1 });
	// The run's node contexts log through n8n's Logger.
	const warn = jest.spyOn(Container.get(Logger), 'warn');
	// The first run thinks longer than Max Wait: three messages in one delivery, AGENT_MS each.
	const raw = JSON.stringify({ events: ['a', 'b', 'c'].map((text) => messageEvent({ text, groupId: 'g3', topicId: '' })) });
	const first = trigger.deliver({ rawBody: raw, headers: { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, raw, 'hex') } });
	await sleep(50);
	const second = await trigger.deliver(delivery('second', { groupId: 'g3' }));
	// It ran before the first run ended (after 1 s of the first's 1.2 s).
	expect(agentOutput(second.run)).toEqual([{ text: 'second', knew: ['answer to a', 'answer to b'] }]);
	const lines = warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('One Run per Conversation'));
	expect(lines).toHaveLength(1);
	expect(lines[0]).toMatch(/^Workplace Trigger "Workplace Trigger" of workflow .*: a run of conversation g3 waited 1 s /);
	await first;
	warn.mockRestore();
});

test('Stop of the first run passes the turn on at once', async () => {
	const trigger = bed({ oneRunPerConversation: true });
	let cancel = () => {};
	const first = trigger.deliver({
		...delivery('first'),
		onRun: (run) => {
			cancel = () => run.cancel();
		},
	});
	await sleep(50);
	const started = Date.now();
	const second = trigger.deliver(delivery('second'));
	await sleep(50);
	cancel();
	const outcome = await second;
	// The second run did not wait for the stopped run's agent to end.
	expect(Date.now() - started).toBeLessThan(AGENT_MS + 100 + AGENT_MS);
	expect(agentOutput(outcome.run)).toEqual([{ text: 'second', knew: [] }]);
	await first.catch(() => undefined);
	expect(trigger.logs).toEqual([]);
});

test('Stop of a waiting run ends its wait', async () => {
	const trigger = bed({ oneRunPerConversation: true, conversationMaxWait: 30 });
	const first = trigger.deliver(delivery('first'));
	await sleep(50);
	let cancel = () => {};
	const second = trigger.deliver({
		...delivery('second'),
		onRun: (run) => {
			cancel = () => run.cancel();
		},
	});
	await sleep(50);
	const stoppedAt = Date.now();
	cancel();
	await second.catch(() => undefined);
	expect(Date.now() - stoppedAt).toBeLessThan(AGENT_MS);
	await first;
	expect(trigger.logs).toEqual([]);
});

test('idle, nothing is held', async () => {
	const trigger = bed({ oneRunPerConversation: true });
	await twoQuickMessages(trigger);
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const turns = require('../../../dist/nodes/WorkplaceTrigger/conversationTurns.js') as { conversationsHeldForTests: () => number };
	expect(turns.conversationsHeldForTests()).toBe(0);
});

test('manual runs (the Test URL) do not wait', async () => {
	const trigger = bed({ oneRunPerConversation: true });
	const first = trigger.deliver({ ...delivery('first'), mode: 'manual' });
	await sleep(50);
	const second = await trigger.deliver({ ...delivery('second'), mode: 'manual' });
	expect(agentOutput(second.run)).toEqual([{ text: 'second', knew: [] }]);
	await first;
});

test('an n8n whose runs hand the node no lifecycle hooks: runs do not wait, and the admin is told once', async () => {
	const proto = ExecutionLifecycleHooks.prototype as unknown as { addHandler?: unknown };
	const addHandler = proto.addHandler;
	proto.addHandler = undefined;
	const warn = jest.spyOn(Container.get(Logger), 'warn');
	try {
		const trigger = bed({ oneRunPerConversation: true });
		const [, second] = await twoQuickMessages(trigger);
		expect(agentOutput(second.run)).toEqual([{ text: 'second', knew: [] }]);
		await twoQuickMessages(trigger);
		const lines = warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('lifecycle hooks'));
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatch(/cannot learn when a run ends: runs of one conversation are not held.*\(a fallback of n8n-nodes-workplace, logged once per n8n process\)$/);
	} finally {
		proto.addHandler = addHandler;
		warn.mockRestore();
	}
});

test('runs whose end n8n never reports: at most MAX_CONVERSATIONS_HELD conversations held, the bound said once', async () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const turns = require('../../../dist/nodes/WorkplaceTrigger/conversationTurns.js') as {
		MAX_CONVERSATIONS_HELD: number;
		conversationsHeldForTests: () => number;
		waitForConversationTurn: (ctx: IExecuteFunctions, items: INodeExecutionData[], limitS: number) => Promise<void>;
	};
	const lines: string[] = [];
	const ctx = {
		additionalData: { hooks: { addHandler: () => undefined } },
		getNode: () => ({ id: 'never-ended', name: 'Workplace Trigger' }),
		getWorkflow: () => ({ id: 'wf-bound', name: 'bound' }),
		getExecutionCancelSignal: () => undefined,
		logger: { warn: (m: string) => lines.push(m), info: () => undefined, error: () => undefined, debug: () => undefined },
	} as unknown as IExecuteFunctions;
	const before = turns.conversationsHeldForTests();
	for (let i = 0; i <= turns.MAX_CONVERSATIONS_HELD + 1; i++) await turns.waitForConversationTurn(ctx, [{ json: { conversationKey: `g${i}` } }], 1);
	expect(turns.conversationsHeldForTests()).toBe(turns.MAX_CONVERSATIONS_HELD);
	expect(lines.filter((line) => line.includes(`more than ${turns.MAX_CONVERSATIONS_HELD} conversations`))).toHaveLength(1);
	expect(before).toBe(0);
});
