/**
 * The life of an in-chat question as the Workplace Trigger keeps it: the one place its states and
 * moves are named. A question has up to two records in the trigger's store (questionStore.ts),
 * both keyed `execution:node:nonce`: its counted votes (several approvers) and its clock entry
 * (reminders or escalation). Whoever learns something of a question (a tap or
 * recount handed on, a tick, the clock's question to an idle one) tells it here (`learned`), which
 * moves it on and keeps or ends its records:
 *
 *   asked    --voteCounted-->  counting  (the votes kept; the clock asks again if nothing changes)
 *   counting --voteCounted-->  counting
 *   asked, counting --decided--> decided (the waiting node resumed, or already had its answer)
 *   asked, counting --ended-->   ended   (n8n answered instead of the node: stopped, timed out or
 *                                         gone, which n8n answers alike)
 *   asked, counting --givenUp--> ended   (its node did not answer for GIVE_UP_UNREACHABLE_AFTER_MS)
 *   decided, ended: both records are kept as done, without votes, for DONE_KEPT_MS (an older copy
 *   saved meanwhile cannot bring them back), the votes' record saying which, then removed.
 */
import type { IWebhookFunctions } from 'n8n-workflow';

import type { Ballot } from '../../shared/approvals/tapProtocol';
import { CHECK_IDLE_QUESTION_AFTER_MS } from '../../shared/approvals/timing';
import { logTrigger } from '../log';
import type { QuestionStore } from './questionStore';
import { MAX_REQUESTS, MAX_TRIGGERS_HELD, armClock, finishQuestion, finishedAs, heldBallots, keepBallots, triggerBoundToSay } from './questionStore';

export type QuestionState = 'asked' | 'counting' | 'decided' | 'ended';

export type QuestionEvent = 'voteCounted' | 'decided' | 'ended' | 'givenUp';

const MOVES: Record<QuestionState, Partial<Record<QuestionEvent, QuestionState>>> = {
	asked: { voteCounted: 'counting', decided: 'decided', ended: 'ended', givenUp: 'ended' },
	counting: { voteCounted: 'counting', decided: 'decided', ended: 'ended', givenUp: 'ended' },
	decided: {},
	ended: {},
};

/** What the waiting node's outcome (or n8n's answer instead of it) tells of its question; none for a refusal or failure. */
export function eventOf(outcome: string): QuestionEvent | undefined {
	if (outcome === 'counted') return 'voteCounted';
	if (outcome === 'resumed' || outcome === 'alreadyAnswered') return 'decided';
	if (outcome === 'notWaiting') return 'ended';
	return undefined;
}

/** Where a question is, as far as this process and the stored copy know. */
export function stateOf(store: QuestionStore, request: string): QuestionState {
	const finished = finishedAs(store, request);
	if (finished) return finished;
	return heldBallots(store, request).length > 0 ? 'counting' : 'asked';
}

/**
 * A question moves on: its records are kept (a counted vote) or done (decided, ended). `counted`
 * are its votes with the new one. The new state, or undefined when the event changes nothing.
 */
export function learned(ctx: IWebhookFunctions, store: QuestionStore, request: string, event: QuestionEvent | undefined, counted: Ballot[] = []): QuestionState | undefined {
	const to = event && MOVES[stateOf(store, request)][event];
	if (!to) return undefined;
	if (to === 'counting') {
		// The clock asks later whether the question still waits (votesStore.ts, idleQuestions).
		armClock(ctx, store.scope, Date.now() + CHECK_IDLE_QUESTION_AFTER_MS);
		if (keepBallots(store, request, counted) > 0) {
			logTrigger(ctx, 'warn', `more than ${MAX_REQUESTS} in-chat approvals are counting votes: the votes of the oldest were dropped (its approvers must tap again). Questions left unanswered count against this limit until their execution ends.`);
		}
		if (triggerBoundToSay()) {
			logTrigger(ctx, 'warn', `this n8n process holds counted votes of more than ${MAX_TRIGGERS_HELD} triggers: it no longer writes back those of the oldest, whose votes rest on the stored copy alone (a save of an older copy may drop one; its approver taps again).`);
		}
		return to;
	}
	finishQuestion(store, request, to === 'decided' ? 'decided' : 'ended');
	return to;
}
