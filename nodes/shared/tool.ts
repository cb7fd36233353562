import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Whether the node runs as n8n's "<node> Tool" variant, called by an AI agent: n8n registers that
 * variant of a node under its type name with `Tool` appended.
 */
export function runsAsTool(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return ctx.getNode().type.endsWith('Tool');
}
