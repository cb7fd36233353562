/**
 * When the trigger is activated (published on n8n 2), it checks that its process reaches n8n's
 * waiting route, where it hands on taps on in-chat answer buttons (approvals/handOn.ts). Taps can come to
 * any Workplace Trigger of the bot, whatever its Events, so every trigger checks.
 *
 * The request is OPTIONS to `<waiting base>/0/<node ID>`: n8n's webhook request handler
 * (packages/cli/src/webhooks/webhook-request-handler.ts, 1.x and 2.x) answers OPTIONS 204 before
 * it looks anything up, so nothing is run, stored or logged. (A POST for an unknown execution gets
 * a 404 JSON, but n8n logs it as an error.) No answer (connection refused, a time-out, a name that
 * does not resolve), n8n's SSRF protection refusing the address, or another status is a warning
 * naming the fix, once per process and address (the fix is a restart or another address).
 * Activation never fails because of it and waits at most PROBE_LIMIT_MS.
 */
import type { IHookFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { displayUrl } from '../shared/credentialTests/probe';
import { processMap } from '../shared/processMemory';
import { TIMED_OUT, Watchdog, withinLimit } from '../shared/transport/timeLimit';
import { waitingBase } from './approvals/handOn';
import { logTrigger, logTriggerOnce } from './log';

/** The longest an activation waits for the check. */
export const PROBE_LIMIT_MS = 3_000;

/** Addresses that answered in this process: not asked again. */
const answering = processMap<string, true>();
const MAX_ANSWERING = 100;

/** Why the route did not answer as n8n does, or undefined when it did. */
type Problem = { kind: 'blocked' | 'unreachable' | 'status'; detail: string } | undefined;

/** n8n's SSRF protection (n8n 2.12 and later) refuses with SsrfBlockedIpError or SsrfBlockedHostnameError, maybe wrapped. */
function isSsrfRefusal(error: unknown): boolean {
	let e = error as { name?: unknown; message?: unknown; cause?: unknown } | undefined;
	for (let depth = 0; e && depth < 4; depth++) {
		if (typeof e.name === 'string' && e.name.startsWith('SsrfBlocked')) return true;
		if (typeof e.message === 'string' && /request was blocked because/i.test(e.message)) return true;
		e = e.cause as typeof e;
	}
	return false;
}

function reasonOf(error: unknown): string {
	const e = error as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
	const code = [e.code, e.cause?.code].find((c): c is string => typeof c === 'string');
	const message = typeof e.message === 'string' ? e.message : String(error);
	return code && !message.includes(code) ? `${code}: ${message}` : message;
}

async function probe(ctx: IHookFunctions, url: string, host: string | undefined): Promise<Problem> {
	const request: IHttpRequestOptions = {
		// Not in n8n-workflow's method type, but passed to its HTTP client as is (1.x and 2.x).
		method: 'OPTIONS' as IHttpRequestOptions['method'],
		url,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: PROBE_LIMIT_MS,
		headers: { 'user-agent': 'n8n-nodes-workplace (Workplace Trigger)', ...(host ? { host } : {}) },
	};
	const watchdog = new Watchdog(PROBE_LIMIT_MS);
	try {
		const answered = await withinLimit(ctx.helpers.httpRequest(request) as Promise<{ statusCode: number }>, watchdog);
		if (answered === TIMED_OUT) return { kind: 'unreachable', detail: `no answer within ${PROBE_LIMIT_MS / 1000} s` };
		const status = answered.statusCode;
		return status >= 200 && status < 300 ? undefined : { kind: 'status', detail: `it answered ${status}` };
	} catch (error) {
		return { kind: isSsrfRefusal(error) ? 'blocked' : 'unreachable', detail: reasonOf(error) };
	} finally {
		watchdog.stop();
	}
}

const CONSEQUENCE =
	'taps on the in-chat answer buttons of Send and Wait for Response (Answer In: Chat) cannot be handed to their waiting executions: each delivery of a tap is answered 503 and the person asked to tap again. Workflows without in-chat approvals are not affected.';

function warning(base: string, problem: NonNullable<Problem>): string {
	const where = `n8n's waiting route ${base}`;
	switch (problem.kind) {
		case 'blocked':
			return `n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) refuses this process's requests to ${where} (${problem.detail}), so ${CONSEQUENCE} Allow that address with N8N_SSRF_ALLOWED_HOSTNAMES (its host name) or N8N_SSRF_ALLOWED_IP_RANGES (e.g. 127.0.0.1/32) and restart n8n, or set the trigger's Options > Resume Base URL to an address n8n may reach.`;
		case 'status':
			return `${where} did not answer as n8n's webhook routes do (${problem.detail}; n8n answers 204), so ${CONSEQUENCE} If n8n's endpoints are renamed (N8N_ENDPOINT_WEBHOOK_WAIT) or a proxy stands between, set the trigger's Options > Resume Base URL to n8n's waiting route.`;
		default:
			return `this process cannot reach ${where} (${problem.detail}), so ${CONSEQUENCE} Set the trigger's Options > Resume Base URL to an address where this process reaches n8n (e.g. http://localhost:5678/webhook-waiting; the public host is sent as the Host header).`;
	}
}

/** Checks, at activation, that n8n's waiting route answers; warns once per process and address. Never throws. */
export async function checkResumeRoute(ctx: IHookFunctions): Promise<void> {
	try {
		if (ctx.getActivationMode() === 'manual') return;
		const options = ctx.getNodeParameter('options', {}) as { resumeBaseUrl?: unknown };
		const base = waitingBase(ctx, options.resumeBaseUrl);
		if (!base) {
			logTriggerOnce(ctx, 'resumeRoute:', `the trigger has no address of n8n's waiting route (Options > Resume Base URL is not a URL, or n8n gave no webhook URL), so ${CONSEQUENCE}`);
			return;
		}
		if (answering.has(base.url)) return;
		const problem = await probe(ctx, `${base.url}/0/${encodeURIComponent(ctx.getNode().id)}`, base.host);
		if (!problem) {
			answering.set(base.url, true);
			while (answering.size > MAX_ANSWERING) answering.delete(answering.keys().next().value as string);
			return;
		}
		logTriggerOnce(ctx, `resumeRoute:${base.url}`, warning(displayUrl(base.url), problem));
	} catch (error) {
		// The check itself must not refuse the activation; what went wrong is said instead.
		logTrigger(ctx, 'warn', `the check of n8n's waiting route could not run: ${(error as Error).message}`);
	}
}
