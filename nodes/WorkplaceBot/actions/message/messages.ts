/**
 * The `messages` of an item: built from the "Messages" fields or "Messages (JSON)", checked,
 * and every problem reported in one error before anything is sent.
 */
import type { IDataObject, IExecuteFunctions, NodeOperationError } from 'n8n-workflow';

import type { Violation } from '../../../shared/validation';
import { violationsError } from '../../../shared/validation';
import type { BuildResult } from './build';
import { buildMessagesFromFields, buildMessagesFromJson } from './build';
import { messageFieldName, wirePath } from './spec';
import { validateMessages } from './validate';
import { nodeParameter } from '../../../shared/parameters';

/** Every problem of the built messages: JSON that did not parse, then the spec's limits and required fields. */
export function collectViolations(built: BuildResult): Violation[] {
	if (built.messages === undefined) return built.violations;
	const reported = new Set(built.violations.map((v) => wirePath(v.path)));
	const checked = validateMessages(built.messages).filter((v) => !reported.has(wirePath(v.path)));
	return [...built.violations, ...checked];
}

/**
 * One error for all problems of an item: the first in the message, all of them in the
 * description with their place in the request body, e.g. `Item 3: "Messages > Template >
 * Actions > Label" (message 2 of 3, action 1 of 4) must be at most 20 characters, got "A label
 * that is far too long" (28 characters)`. `messages` (the built list, when there is one) gives the totals.
 */
export function messagesError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	root: string,
	violations: Violation[],
	messages?: unknown,
): NodeOperationError {
	return violationsError(ctx, itemIndex, violations, {
		name: (path) => messageFieldName(root, path, messages),
		place: wirePath,
		note: 'The part in brackets is the place in the request body.',
	});
}

/** The `messages` array of the item, checked; throws before anything is sent. */
export function getMessages(ctx: IExecuteFunctions, itemIndex: number): IDataObject[] {
	const mode = nodeParameter(ctx, 'defineMessages', itemIndex, 'fields') as string;
	const json = mode === 'json';
	const built = json
		? buildMessagesFromJson(nodeParameter(ctx, 'messagesJson', itemIndex, '') as unknown)
		: buildMessagesFromFields(nodeParameter(ctx, 'messages', itemIndex, {}) as unknown);
	const violations = collectViolations(built);
	if (violations.length > 0) {
		throw messagesError(ctx, itemIndex, json ? 'Messages (JSON)' : 'Messages', violations, built.messages);
	}
	return built.messages as IDataObject[];
}
