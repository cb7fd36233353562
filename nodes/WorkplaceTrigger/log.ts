import type { IWebhookFunctions } from 'n8n-workflow';

import type { Reliance } from '../shared/reliance';
import { warnOnce } from '../shared/reliance';

/** What a log line needs of a node context: the webhook's, or the hook's at activation. */
type LogContext = Pick<IWebhookFunctions, 'getWorkflow' | 'getNode' | 'logger'>;

/** `Workplace Trigger "<node>" of workflow "<name>" (ID <id>)`, and the metadata naming them. */
function named(ctx: LogContext): { prefix: string; metadata: { workflowId?: string; node: string } } {
	const workflow = ctx.getWorkflow();
	const node = ctx.getNode();
	const name = workflow.name ? `"${workflow.name}" (ID ${workflow.id ?? '?'})` : `ID ${workflow.id ?? '?'}`;
	return { prefix: `Workplace Trigger "${node.name}" of workflow ${name}`, metadata: { workflowId: workflow.id, node: node.name } };
}

/**
 * A line in n8n's log for the admin of a trigger that refuses deliveries or whose secret changed.
 * n8n's console shows the message alone, so it names the workflow and the node; the metadata
 * repeats them for JSON logs. It never holds a secret, a signature or a delivery's body.
 */
export function logTrigger(ctx: LogContext, level: 'error' | 'warn' | 'info', message: string): void {
	const { prefix, metadata } = named(ctx);
	ctx.logger[level](`${prefix}: ${message}`, metadata);
}

/**
 * A warning that n8n no longer offers something the trigger relies on, and what it does instead:
 * once per n8n process and reliance (../shared/reliance.ts), naming the trigger that met it first.
 */
export function logTriggerOnce(ctx: LogContext, reliance: Reliance, message: string): void {
	const { prefix, metadata } = named(ctx);
	warnOnce(ctx.logger, reliance, `${prefix}: ${message}`, metadata);
}

/** The webhook credential as the node names it, for log lines: `"My secret"` or `selected`. */
export function webhookCredentialName(ctx: IWebhookFunctions): string {
	const name = ctx.getNode().credentials?.workplaceWebhookApi?.name;
	return name ? `"${name}"` : 'selected';
}
