import type { INodeProperties } from 'n8n-workflow';

/** The values of "Simplify Output"; `asTool` is the default, so existing workflows keep every field. */
export const SIMPLIFY_MODES = ['asTool', 'always', 'never'] as const;
export type SimplifyMode = (typeof SIMPLIFY_MODES)[number];

/**
 * "Simplify Output", on every operation that returns platform records (the operation's module
 * names its record's fields in `simplify`, see ../simplify.ts). An options field, not a boolean:
 * n8n does not save a default value, so a boolean could not keep the full records of workflows
 * saved before it while defaulting to simplified ones for agents.
 */
export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify Output',
	name: 'simplify',
	type: 'options',
	options: [
		{
			name: 'Always',
			value: 'always',
			description: 'Return only the main fields of each record',
		},
		{
			name: 'Never',
			value: 'never',
			description: 'Return every field the platform sends',
		},
		{
			name: 'When Called by an AI Agent',
			value: 'asTool',
			description: 'Return only the main fields when an AI agent calls the node as a tool, every field otherwise',
		},
	],
	default: 'asTool',
	description:
		'Return only the fields needed to use a record (IDs, names, status, dates, counts, parent IDs) instead of everything the platform sends',
};
