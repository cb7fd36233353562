/**
 * Every time rule of in-chat approvals (Send and Wait with Answer In: Chat, several approvers,
 * reminders and escalation), each named once beside the rule it serves. The trigger keeps what it
 * counted in its static data, which n8n loads when a request starts and saves whole when it ends
 * (last writer wins, docs/ARCHITECTURE.md reliance 11): most rules below are about outliving a
 * request that still holds an older copy.
 */

/** The longest Image Download Timeout the trigger offers: the pictures of one delivery share it. */
export const MAX_PICTURE_TIMEOUT_S = 300;

/** How long the waiting node may take to answer a tap handed on (or a recount). */
export const FORWARD_TIMEOUT_MS = 15_000;

/** The time limit of a reply the bot posts after a tap; a reply is never sent twice. */
export const REPLY_TIMEOUT_S = 10;

/**
 * No tap of a delivery is handed on later than this after the delivery arrived: the rest are
 * answered 503 and come again, so a delivery of many taps still ends in time.
 */
export const TAPS_START_WITHIN_MS = 60_000;

/**
 * The longest a request to the trigger holds its copy of the static data: its pictures, then
 * hand-offs started within TAPS_START_WITHIN_MS, each with its forward and its reply.
 */
export const LONGEST_DELIVERY_MS = MAX_PICTURE_TIMEOUT_S * 1000 + TAPS_START_WITHIN_MS + FORWARD_TIMEOUT_MS + REPLY_TIMEOUT_S * 1000;

/**
 * After a counted tap (or a changed reminder) the process posts it to the trigger's own URL again:
 * soon (another process may count at the same moment), and once more after any request that
 * loaded an older copy has saved it (LONGEST_DELIVERY_MS), so that copy cannot drop it for good.
 */
export const RECHECK_DELAYS_MS = [3_000, 45_000, LONGEST_DELIVERY_MS + 15_000];

/** How often a recount may lead to another one. */
export const MAX_RECOUNT_ROUNDS = 5;

/** The time limit of a post to the trigger's own URL (a recount, a kept question). */
export const OWN_URL_TIMEOUT_MS = 30_000;

/**
 * How long a process writes back what it counted (with every request it serves): beyond the last
 * recheck, so the stored copy has it by then whatever older copy was saved in between.
 */
export const HOLD_MS = RECHECK_DELAYS_MS[RECHECK_DELAYS_MS.length - 1] + OWN_URL_TIMEOUT_MS;

/**
 * A decided or ended question is kept as done (no votes) this long: a request that loaded it
 * before cannot bring it back, since every request ends within LONGEST_DELIVERY_MS.
 */
export const DONE_KEPT_MS = 10 * 60_000;

/** A question whose votes changed nothing this long is asked whether it still waits, at the clock's next tick. */
export const CHECK_IDLE_QUESTION_AFTER_MS = 10 * 60_000;

/** The clock's tick (n8n's cron takes seconds as a sixth field): reminders come within this of their time. */
export const CLOCK_TICK = '*/30 * * * * *';

/** No hand-over starts later than this into a tick, so a tick ends (about 45 s) before the next one. */
export const TICK_START_WITHIN_MS = 5_000;

/** How long the waiting node may take to answer a tick: its posts have their own limits (15 s each, two at most). */
export const TICK_FORWARD_TIMEOUT_MS = 40_000;

/** How long the clock waits for a tick's answer: beyond the longest tick, so that two ticks never run at once. */
export const TICK_ANSWER_TIMEOUT_MS = 120_000;

/** How often an idle clock asks when other n8n processes answer its ticks (queue mode): a question registered there is seen within this. */
export const IDLE_TICK_MS = 60_000;

/**
 * An idle clock whose ticks its own process answered this many times (every IDLE_TICK_MS after a
 * start) takes itself for the only n8n process and posts nothing until something is due: behind a
 * proxy choosing among two processes, ten answers of its own come by chance once in 1,024 starts.
 */
export const ALONE_AFTER_OWN_ANSWERS = 10;

/** After GIVE_UP_UNREACHABLE_AFTER_MS of ticks that did not get through, the clock tries this seldom (one process; queue mode polls every IDLE_TICK_MS anyway). */
export const CLOCK_RETRY_SLOW_MS = 10 * 60_000;

/** How late a stored action may be before the clock is taken for stopped. */
export const CLOCK_STOPPED_AFTER_MS = 20 * 60_000;

/** A question its waiting node does not answer (refused, gone, failing) this long is given up, with one line. */
export const GIVE_UP_UNREACHABLE_AFTER_MS = 60 * 60_000;

/** The time limit of the registration of a question with the trigger's clock. */
export const REGISTER_TIMEOUT_MS = 15_000;

/** The time limit of one post of a reminder or an escalation; neither is ever sent twice. */
export const CLOCK_POST_TIMEOUT_S = 15;
