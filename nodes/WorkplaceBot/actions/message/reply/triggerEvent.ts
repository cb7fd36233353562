/**
 * The Workplace Trigger event an item answers (Reply To: Event From Workplace Trigger), as n8n's
 * Chat node finds the Chat Trigger of its run: the Workplace Triggers upstream of this node (of
 * the AI agent calling it, when it runs as a tool), and the trigger's item paired with the
 * current item, read by n8n as `$('<trigger>').item.json` would read it.
 *
 * As an AI agent's tool the paired item is not the agent's item (docs/ARCHITECTURE.md, "What we
 * rely on in n8n", item 15): n8n pairs a tool call with the agent's first input item (AI Agent 2.x:
 * the tool context's items are the agent's; AI Agent 3: the engine pairs the tool's input with item
 * `previousNodeRun`, `requests-response.ts`). A tool therefore takes the event whose conversation
 * its input names (AI Agent 3 gives the tool the fields of the agent's item), else the paired one
 * when every event of the run is of one conversation, and refuses otherwise.
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { warnOnce } from '../../../../shared/reliance';
import { runsAsTool } from '../../../../shared/tool';
import { isPlainObject } from '../../../../shared/validation';
import { replyTargetOf } from './conversation';

/** The type of the Workplace Trigger ends so (`n8n-nodes-workplace.workplaceTrigger`, or a scoped package's). */
const TRIGGER_TYPE_SUFFIX = '.workplaceTrigger';

/**
 * The AI agent a tool runs for. AI Agent 2.x (and an agent's sub-agents) run the tool in their own
 * step, through n8n-core's tool context, which keeps the agent as `parentNode`. AI Agent 3 hands the
 * tool call to the engine, which runs the tool as a node of its own with the agent as its input's
 * source (`getInputSourceData()`); a tool has no main input of its own otherwise.
 */
function agentOf(ctx: IExecuteFunctions): string | undefined {
	const self = ctx.getNode().name;
	const parent = (ctx as unknown as { parentNode?: Partial<INode> }).parentNode;
	if (parent && typeof parent.name === 'string' && parent.name !== self) return parent.name;
	try {
		const source = ctx.getInputSourceData(0) as { previousNode?: unknown } | undefined;
		if (source && typeof source.previousNode === 'string' && source.previousNode !== self) return source.previousNode;
	} catch {
		// no source data: the fallback below
	}
	return undefined;
}

/** The nodes to look upstream of: this node, and when it runs as an AI agent's tool the agent. */
function startingNodes(ctx: IExecuteFunctions): string[] {
	const names = [ctx.getNode().name];
	if (!runsAsTool(ctx)) return names;
	const agent = agentOf(ctx);
	if (agent) names.push(agent);
	else {
		warnOnce(
			ctx.logger,
			'toolAgent',
			"Reply to Event runs as an AI agent's tool, but n8n names no agent in its context (no `parentNode` in n8n-core's tool context, no source of its input): it looks for the Workplace Trigger before the tool only, and refuses the item when none is there (Reply To: Event Below is the way).",
			{ node: ctx.getNode().name },
		);
	}
	return names;
}

/** The enabled Workplace Triggers upstream, nearest first. */
export function upstreamTriggers(ctx: IExecuteFunctions): string[] {
	const found: string[] = [];
	for (const start of startingNodes(ctx)) {
		for (const node of ctx.getParentNodes(start)) {
			if (node.type.endsWith(TRIGGER_TYPE_SUFFIX) && !node.disabled && !found.includes(node.name)) found.push(node.name);
		}
	}
	return found;
}

/**
 * What the search found: the event; or the triggers looked at (none, or none with an item for this
 * one); or, for a tool, a trigger whose run holds events of several conversations none of which the
 * tool's input names.
 */
export type TriggerEvent = { event: IDataObject; trigger: string } | { triggers: string[]; ambiguous?: { trigger: string; conversations: number } };

function evaluate(ctx: IExecuteFunctions, expression: string, itemIndex: number): unknown {
	try {
		return ctx.evaluateExpression(`{{ ${expression} }}`, itemIndex);
	} catch {
		return undefined;
	}
}

/** A conversation as text, to compare (undefined: the event names none). */
function conversationOf(event: unknown): string | undefined {
	const target = isPlainObject(event) ? replyTargetOf(event) : undefined;
	return target ? JSON.stringify(target) : undefined;
}

/** A tool's event among the trigger's (see the top of the file); a number: the conversations when it cannot tell. */
function eventForTool(ctx: IExecuteFunctions, itemIndex: number, paired: IDataObject | undefined, events: IDataObject[]): IDataObject | number | undefined {
	const input = ctx.getInputData()[itemIndex]?.json;
	const named = conversationOf(input);
	if (named !== undefined) {
		if (paired && conversationOf(paired) === named) return paired;
		const match = events.find((e) => conversationOf(e) === named);
		if (match) return match;
	}
	const conversations = new Set(events.map(conversationOf));
	if (conversations.size <= 1) return paired ?? events[0];
	return conversations.size;
}

/**
 * The event of the Workplace Trigger that started this run, paired with the item: the first
 * upstream trigger n8n resolves an item of (a trigger that did not run, or whose item is not
 * paired with this one, is passed over).
 */
export function triggerEvent(ctx: IExecuteFunctions, itemIndex: number): TriggerEvent {
	const triggers = upstreamTriggers(ctx);
	const tool = runsAsTool(ctx);
	let ambiguous: { trigger: string; conversations: number } | undefined;
	for (const trigger of triggers) {
		const ref = `$(${JSON.stringify(trigger)})`;
		const value = evaluate(ctx, `${ref}.item.json`, itemIndex);
		const paired = isPlainObject(value) ? value : undefined;
		if (!tool) {
			if (paired) return { event: paired, trigger };
			continue;
		}
		const all = evaluate(ctx, `${ref}.all().map((item) => item.json)`, itemIndex);
		const events = Array.isArray(all) ? all.filter(isPlainObject) : [];
		if (events.length === 0) continue;
		const chosen = eventForTool(ctx, itemIndex, paired, events);
		if (typeof chosen === 'number') ambiguous ??= { trigger, conversations: chosen };
		else if (chosen) return { event: chosen, trigger };
	}
	return ambiguous ? { triggers, ambiguous } : { triggers };
}
