import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * A line in n8n's log for the admin of a trigger that refuses deliveries or whose secret changed.
 * n8n's console shows the message alone, so it names the workflow and the node; the metadata
 * repeats them for JSON logs. It never holds a secret, a signature or a delivery's body.
 */
export function logTrigger(ctx: IWebhookFunctions, level: 'error' | 'warn' | 'info', message: string): void {
	const workflow = ctx.getWorkflow();
	const node = ctx.getNode();
	const named = workflow.name ? `"${workflow.name}" (ID ${workflow.id ?? '?'})` : `ID ${workflow.id ?? '?'}`;
	ctx.logger[level](`Workplace Trigger "${node.name}" of workflow ${named}: ${message}`, {
		workflowId: workflow.id,
		node: node.name,
	});
}

/** The webhook credential as the node names it, for log lines: `"My secret"` or `selected`. */
export function webhookCredentialName(ctx: IWebhookFunctions): string {
	const name = ctx.getNode().credentials?.workplaceWebhookApi?.name;
	return name ? `"${name}"` : 'selected';
}
