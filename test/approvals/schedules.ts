/**
 * Generated schedules for the model of n8n (n8n-model.ts): questions needing several approvers,
 * taps of allowed people and strangers (some several in one delivery, on one or two questions),
 * duplicate deliveries, messages whose pictures download slowly (their delivery holds an old copy
 * of the static data), restarts, Stop and wait times running out. Each comes from a seed.
 */
import type { IDataObject } from 'n8n-workflow';

import { signedAnswerToken } from '../../nodes/shared/approvals/tapProtocol';
import type { Delivery, Major } from './n8n-model';
import { signedResumeUrl } from './n8n-model';
import type { Rng } from './virtual-world';

export interface Person {
	userId: string;
	username: string;
}

export const PEOPLE: Record<string, Person> = {
	alice: { userId: 'u-alice', username: 'alice' },
	bob: { userId: 'u-bob', username: 'bob' },
	carol: { userId: 'u-carol', username: 'carol' },
	dave: { userId: 'u-dave', username: 'dave' },
	mallory: { userId: 'u-mallory', username: 'mallory' },
};

export const GROUP = 'g-release';
export const TOPIC = 't-release';

export interface QuestionPlan {
	executionId: string;
	nodeId: string;
	nonce: string;
	approvers: string[];
	required: number;
	declineRule: 'oneDeclines' | 'countDeclines';
	tokens: { a: string; d: string };
	/** When it stops waiting without an answer (ms from the start), if it does. */
	endsAt?: { ms: number; how: 'stop' | 'timeout' };
}

export interface TapPlan {
	question: number;
	who: string;
	approve: boolean;
	ms: number;
}

export interface Plan {
	seed: number;
	major: Major;
	processes: number;
	questions: QuestionPlan[];
	taps: TapPlan[];
	/** Deliveries: the taps (indexes into taps) and message events with pictures, when they are sent. */
	deliveries: Array<{ taps: number[]; pictures: number; ms: number; duplicateAfterMs?: number }>;
	/** Picture download times (ms), by picture. */
	pictureMs: number[];
	restarts: Array<{ process: number; ms: number }>;
}

const NODE_ID = '3c1f7d52-9a4e-4b8e-9d0a-5b7e2f1c0a11';

function question(rng: Rng, index: number): QuestionPlan {
	const executionId = String(1000 + index);
	const nonce = rng.hex(8);
	const approvers = rng.chance(0.5) ? ['alice', 'bob', 'carol'] : ['alice', 'bob', 'carol', 'dave'];
	const required = rng.int(2, approvers.length === 3 ? 2 : 3);
	const sign = (query: Record<string, string>) => signedResumeUrl(executionId, NODE_ID, query);
	const ids = { executionId, nodeId: NODE_ID, nonce };
	return {
		executionId,
		nodeId: NODE_ID,
		nonce,
		approvers,
		required,
		declineRule: rng.chance(0.7) ? 'oneDeclines' : 'countDeclines',
		tokens: { a: signedAnswerToken(sign, ids, 'a'), d: signedAnswerToken(sign, ids, 'd') },
	};
}

/** One schedule from its seed; `shape` narrows it (e.g. no restarts) for the invariants that need it. */
export function planOf(seed: number, rng: Rng, shape: { restarts: boolean; ends: boolean }): Plan {
	const major: Major = rng.chance(0.5) ? 1 : 2;
	const processes = rng.int(1, 3);
	const questions = Array.from({ length: rng.chance(0.7) ? 1 : 2 }, (_, i) => question(rng, i));
	const taps: TapPlan[] = [];
	questions.forEach((q, index) => {
		const voters = [...q.approvers, 'mallory'].filter(() => rng.chance(0.75));
		for (const who of voters) {
			const approve = rng.chance(0.8);
			taps.push({ question: index, who, approve, ms: rng.int(0, 90_000) });
			// Tapping twice: the same answer or the other one.
			if (rng.chance(0.2)) taps.push({ question: index, who, approve: rng.chance(0.5) ? approve : !approve, ms: rng.int(0, 100_000) });
		}
		// A late voter: after a slow delivery that loaded an older copy has saved it.
		if (rng.chance(0.3)) {
			const late = rng.pick(q.approvers);
			if (!voters.includes(late)) taps.push({ question: index, who: late, approve: rng.chance(0.8), ms: rng.int(120_000, 480_000) });
		}
		if (shape.ends && rng.chance(0.3)) q.endsAt = { ms: rng.int(0, 120_000), how: rng.chance(0.5) ? 'stop' : 'timeout' };
	});
	taps.sort((a, b) => a.ms - b.ms);
	const deliveries: Plan['deliveries'] = [];
	taps.forEach((tap, index) => {
		const last = deliveries[deliveries.length - 1];
		// Several taps in one delivery: the platform batches events that come close together.
		if (last && rng.chance(0.35)) {
			last.taps.push(index);
			last.ms = Math.max(last.ms, tap.ms);
		} else deliveries.push({ taps: [index], pictures: 0, ms: tap.ms });
	});
	const pictureMs: number[] = [];
	for (let i = rng.int(0, 2); i > 0; i--) {
		pictureMs.push(rng.chance(0.5) ? rng.int(100, 5_000) : rng.int(20_000, 290_000));
		deliveries.push({ taps: [], pictures: 1, ms: rng.int(0, 90_000) });
	}
	for (const delivery of deliveries) if (rng.chance(0.15)) delivery.duplicateAfterMs = rng.int(0, 20_000);
	deliveries.sort((a, b) => a.ms - b.ms);
	const restarts = shape.restarts && rng.chance(0.4) ? [{ process: rng.int(0, processes - 1), ms: rng.int(0, 150_000) }] : [];
	return { seed, major, processes, questions, taps, deliveries, pictureMs, restarts };
}

/** The Send and Wait node's parameters for a question. */
export function parametersOf(q: QuestionPlan): IDataObject {
	return {
		resource: 'message',
		operation: 'sendAndWait',
		responseType: 'approval',
		answerIn: 'chat',
		sendTo: 'group',
		message: `Release ${q.executionId}?`,
		title: '',
		allowedApprovers: q.approvers.join(', '),
		approvalsRequired: q.required,
		declineRule: q.declineRule,
		approvalOptions: { values: {} },
		options: {},
	};
}

/** The platform's bytes of a delivery holding these events. */
export function deliveryOf(events: IDataObject[]): Delivery {
	return { raw: JSON.stringify({ events }), events, attempts: 0, answers: [] };
}

export function tapEvent(rng: Rng, q: QuestionPlan, tap: TapPlan, at: number): IDataObject {
	const person = PEOPLE[tap.who];
	return {
		type: 'postback',
		replyToken: rng.hex(16),
		postback: { data: tap.approve ? q.tokens.a : q.tokens.d },
		source: { type: 'user', userId: person.userId, username: person.username },
		timestamp: new Date(at).toISOString(),
		sessionId: `${GROUP}_${TOPIC}`,
	};
}

export function pictureEvent(rng: Rng, pictureId: string, at: number): IDataObject {
	return {
		type: 'message',
		replyToken: rng.hex(16),
		message: { id: `m-${pictureId}`, type: 'file', groupId: GROUP, topicId: TOPIC, text: '', pictureId, fileName: `${pictureId}.png` },
		source: { type: 'user', userId: PEOPLE.alice.userId, username: 'alice' },
		timestamp: new Date(at).toISOString(),
		sessionId: `${GROUP}_${TOPIC}`,
	};
}
