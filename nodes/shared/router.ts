import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Simplifier } from './simplify';
import { shouldSimplify } from './simplify';
import { runsAsTool } from './tool';
import { AdaptiveLimiter, handLimiter } from './transport/limiter';
import { nodeParameter } from './parameters';

/** What an operation returns for one input item: records, or ready-made items (binary). */
export type OperationResult = IDataObject | IDataObject[] | INodeExecutionData[];

/** One `actions/<resource>/<operation>.operation.ts` module. */
export interface OperationModule {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult>;
	/**
	 * The conversation an item writes to (e.g. `user:<uid>`, `thread:<gid>:<tid>`). Items of
	 * one conversation are sent one after another in item order; others may run concurrently.
	 */
	conversationKey?(this: IExecuteFunctions, itemIndex: number): string;
	/** At most this many items of the operation at once (e.g. file uploads, for memory). */
	maxAtOnce?: number;
	/**
	 * An operation that returns platform records: keeps the fields an agent needs of one record,
	 * applied to each output item when "Simplify Output" (`simplify`, shown by the operation) says so.
	 */
	simplify?: Simplifier;
}

export interface RouteOptions {
	/**
	 * "Max Concurrency": the most conversations worked on at once (1 = every item in order). The
	 * calls in flight adapt below it (transport/limiter.ts).
	 */
	maxConcurrency?: number;
}

/** "Request Options > Max Concurrency" when the node does not set it. */
export const DEFAULT_MAX_CONCURRENCY = 50;

/** The node's "Max Concurrency" (saved as `concurrency`; a value saved before it adapted becomes the maximum). */
export function readMaxConcurrency(ctx: IExecuteFunctions): number {
	const { concurrency } = nodeParameter(ctx, 'requestOptions', 0, {}) as { concurrency?: number };
	return concurrency ?? DEFAULT_MAX_CONCURRENCY;
}

/** Counts the items of each capped operation under way (OperationModule.maxAtOnce). */
class OperationCaps {
	private readonly running = new Map<OperationModule, number>();
	private readonly waiting = new Map<OperationModule, Array<() => void>>();

	async enter(module: OperationModule): Promise<void> {
		const cap = module.maxAtOnce;
		if (cap === undefined) return;
		const running = this.running.get(module) ?? 0;
		if (running < cap) {
			this.running.set(module, running + 1);
			return;
		}
		// the slot is handed over by leave()
		await new Promise<void>((resolve) => {
			const queue = this.waiting.get(module) ?? [];
			queue.push(resolve);
			this.waiting.set(module, queue);
		});
	}

	leave(module: OperationModule): void {
		if (module.maxAtOnce === undefined) return;
		const next = this.waiting.get(module)?.shift();
		if (next) next();
		else this.running.set(module, (this.running.get(module) ?? 1) - 1);
	}
}

export type ResourceMap = Record<string, Record<string, OperationModule>>;

function isExecutionData(value: unknown): value is INodeExecutionData {
	return (
		value !== null &&
		typeof value === 'object' &&
		'json' in value &&
		typeof (value as INodeExecutionData).json === 'object'
	);
}

function toItems(result: OperationResult, itemIndex: number): INodeExecutionData[] {
	const list = Array.isArray(result) ? result : [result];
	return list.map((entry) =>
		isExecutionData(entry)
			? { ...entry, pairedItem: { item: itemIndex } }
			: { json: entry, pairedItem: { item: itemIndex } },
	);
}

/** The error item of continueOnFail: message plus what the platform said, never request details. */
function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.description) json.description = error.description;
	}
	if (error instanceof NodeApiError) {
		if (error.httpCode) json.httpCode = error.httpCode;
		if (error.context.platformError) json.platformError = error.context.platformError as IDataObject;
	}
	// A text sent in parts that stopped midway (WorkplaceBot/actions/textParts.ts): what was sent.
	if ((error instanceof NodeApiError || error instanceof NodeOperationError) && error.context.partial) {
		json.partial = error.context.partial as IDataObject;
	}
	return { json, pairedItem: { item: itemIndex } };
}

function rethrow(ctx: IExecuteFunctions, error: unknown, itemIndex: number): never {
	if (error instanceof NodeApiError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		throw error;
	}
	if (error instanceof NodeOperationError) throw error;
	throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

function moduleFor(ctx: IExecuteFunctions, resources: ResourceMap, itemIndex: number): OperationModule {
	const resource = nodeParameter(ctx, 'resource', itemIndex) as string;
	const operation = nodeParameter(ctx, 'operation', itemIndex) as string;
	const module = resources[resource]?.[operation];
	if (module === undefined) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The operation "${operation}" is not supported for resource "${resource}"`,
			{ itemIndex },
		);
	}
	return module;
}

/** Runs one item (the transport reads its Request Options): its output items, or its error item under Continue On Fail. */
async function runItem(
	ctx: IExecuteFunctions,
	resources: ResourceMap,
	itemIndex: number,
	caps: OperationCaps,
): Promise<INodeExecutionData[]> {
	try {
		const module = moduleFor(ctx, resources, itemIndex);
		const simplify = module.simplify !== undefined && shouldSimplify(ctx, itemIndex) ? module.simplify : undefined;
		await caps.enter(module);
		try {
			const items = toItems(await module.execute.call(ctx, itemIndex), itemIndex);
			return simplify ? items.map((item) => ({ ...item, json: simplify(item.json) })) : items;
		} finally {
			caps.leave(module);
		}
	} catch (error) {
		// n8n's "<node> Tool" variant, called by an AI agent: a failed call is the tool's answer, which
		// the agent reads and can act on (another id, another value), not the end of the run.
		if (ctx.continueOnFail() || runsAsTool(ctx)) return [errorItem(error as Error, itemIndex)];
		return rethrow(ctx, error, itemIndex);
	}
}

/** Groups item indexes by conversation, keeping item order inside each group. */
function conversations(ctx: IExecuteFunctions, resources: ResourceMap, count: number): number[][] {
	const groups = new Map<string, number[]>();
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		let key = `item:${itemIndex}`;
		try {
			const module = moduleFor(ctx, resources, itemIndex);
			key = module.conversationKey?.call(ctx, itemIndex) ?? key;
		} catch {
			// Reported when the item runs; alone in its group until then.
		}
		const group = groups.get(key);
		if (group) group.push(itemIndex);
		else groups.set(key, [itemIndex]);
	}
	return [...groups.values()];
}

/**
 * Runs the selected operation for every input item. With "Continue On Fail" a failing
 * item becomes an error item and the others go on; every output item is paired with
 * the input item it came from, and outputs keep input order.
 *
 * With `maxConcurrency` > 1, up to that many conversations are worked on at once, each one
 * strictly in item order; the node run's limiter (handed to the transport) decides how many
 * calls are in flight and how fast they leave. Without Continue On Fail the first failure stops
 * new items from starting; calls already under way finish, then the node fails with that error.
 */
export async function routeOperations(
	this: IExecuteFunctions,
	resources: ResourceMap,
	options: RouteOptions = {},
): Promise<INodeExecutionData[][]> {
	const count = this.getInputData().length;
	const results: INodeExecutionData[][] = new Array(count);
	const concurrency = Math.max(1, Math.floor(options.maxConcurrency ?? readMaxConcurrency(this)));
	handLimiter(this, new AdaptiveLimiter(concurrency));
	const caps = new OperationCaps();

	if (concurrency === 1 || count <= 1) {
		for (let itemIndex = 0; itemIndex < count; itemIndex++) {
			results[itemIndex] = await runItem(this, resources, itemIndex, caps);
		}
		return [results.flat()];
	}

	const queue = conversations(this, resources, count);
	let failure: { error: unknown } | undefined;
	const worker = async () => {
		for (let group = queue.shift(); group && !failure; group = queue.shift()) {
			for (const itemIndex of group) {
				if (failure) return;
				try {
					results[itemIndex] = await runItem(this, resources, itemIndex, caps);
				} catch (error) {
					failure ??= { error };
					return;
				}
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
	if (failure) throw failure.error;
	return [results.flat()];
}
