/**
 * The Workplace Trigger event an item answers (Reply To: Event From Workplace Trigger), as n8n's
 * Chat node finds the Chat Trigger of its run: the Workplace Triggers upstream of this node (of
 * the AI agent calling it, when it runs as a tool), and the trigger's item paired with the
 * current item, read by n8n as `$('<trigger>').item.json` would read it.
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { isPlainObject } from '../../../../shared/validation';

/** The type of the Workplace Trigger ends so (`n8n-nodes-workplace.workplaceTrigger`, or a scoped package's). */
const TRIGGER_TYPE_SUFFIX = '.workplaceTrigger';

/**
 * The nodes to look upstream of: this node, and when it runs as an AI agent's tool the agent
 * (n8n-core's tool context keeps it as `parentNode`; a tool has no main input of its own).
 */
function startingNodes(ctx: IExecuteFunctions): string[] {
	const names = [ctx.getNode().name];
	const agent = (ctx as unknown as { parentNode?: Partial<INode> }).parentNode;
	if (agent && typeof agent.name === 'string') names.push(agent.name);
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

/** What the search found: the event, or the triggers looked at (none, or none with an item for this one). */
export type TriggerEvent = { event: IDataObject; trigger: string } | { triggers: string[] };

/**
 * The event of the Workplace Trigger that started this run, paired with the item: the first
 * upstream trigger n8n resolves an item of (a trigger that did not run, or whose item is not
 * paired with this one, is passed over).
 */
export function triggerEvent(ctx: IExecuteFunctions, itemIndex: number): TriggerEvent {
	const triggers = upstreamTriggers(ctx);
	for (const trigger of triggers) {
		let value: unknown;
		try {
			value = ctx.evaluateExpression(`{{ $(${JSON.stringify(trigger)}).item.json }}`, itemIndex);
		} catch {
			continue;
		}
		if (isPlainObject(value)) return { event: value, trigger };
	}
	return { triggers };
}
