/**
 * Webhook sender: delivers bot events and user events like the platform does
 * (JSON POST; X-Service-Signature = HMAC-SHA256(secret, raw body bytes); user events carry
 * X-Service-Event: user). Uses undici's `request`.
 */
import { createHmac } from 'crypto';
import { request } from 'undici';

export * from './events';

export type WebhookDelivery =
	| { kind: 'bot'; events: object[] }
	| { kind: 'user'; action: 'created' | 'updated' | 'deleted'; user: object }
	| { raw: string | Buffer; headers?: Record<string, string> };

export type SignatureMode = 'hex' | 'base64' | 'none' | 'wrong' | 'truncated' | { value: string };

export interface WebhookOptions {
	/** HMAC key; without it no signature header is sent (unless `signature: {value}`). */
	secret?: string;
	/** default 'hex' when a secret is given */
	signature?: SignatureMode;
	/** extra headers (override the defaults) */
	headers?: Record<string, string>;
	/** request timeout, default 10000 ms */
	timeoutMs?: number;
}

export interface WebhookResult {
	status: number;
	body: string;
	headers: Record<string, string | string[] | undefined>;
	/** the X-Service-Signature value sent (undefined when none) */
	signature?: string;
	/** the exact bytes sent */
	rawBody: Buffer;
}

export function signBody(secret: string, body: string | Buffer, encoding: 'hex' | 'base64' = 'hex'): string {
	return createHmac('sha256', secret).update(body).digest(encoding);
}

/** Verifies an X-Service-Signature value (hex or base64) against the raw body; timing-safe enough for tests. */
export function verifySignature(secret: string, body: string | Buffer, signature: string | undefined): boolean {
	if (!signature) return false;
	const s = signature.trim();
	return s === signBody(secret, body, 'hex') || s === signBody(secret, body, 'base64');
}

export function deliveryBody(delivery: WebhookDelivery): { body: Buffer; headers: Record<string, string> } {
	if ('raw' in delivery) {
		return { body: Buffer.isBuffer(delivery.raw) ? delivery.raw : Buffer.from(delivery.raw), headers: { 'content-type': 'application/json', ...lower(delivery.headers) } };
	}
	if (delivery.kind === 'bot') {
		return { body: Buffer.from(JSON.stringify({ events: delivery.events })), headers: { 'content-type': 'application/json' } };
	}
	return {
		body: Buffer.from(JSON.stringify({ action: delivery.action, user: delivery.user })),
		headers: { 'content-type': 'application/json', 'x-service-event': 'user' },
	};
}

function lower(h: Record<string, string> | undefined): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(h ?? {})) out[k.toLowerCase()] = v;
	return out;
}

export function signatureFor(body: Buffer, opts: WebhookOptions): string | undefined {
	const mode = opts.signature ?? (opts.secret !== undefined ? 'hex' : 'none');
	if (typeof mode === 'object') return mode.value;
	if (mode === 'none') return undefined;
	if (opts.secret === undefined) throw new Error(`signature mode "${mode}" needs a secret`);
	switch (mode) {
		case 'hex':
			return signBody(opts.secret, body, 'hex');
		case 'base64':
			return signBody(opts.secret, body, 'base64');
		case 'wrong':
			return signBody(opts.secret + '-wrong', body, 'hex');
		case 'truncated': {
			const full = signBody(opts.secret, body, 'hex');
			return full.slice(0, full.length / 2);
		}
		default:
			return undefined;
	}
}

export async function sendWebhook(targetUrl: string, delivery: WebhookDelivery, opts: WebhookOptions = {}): Promise<WebhookResult> {
	const { body, headers } = deliveryBody(delivery);
	const signature = signatureFor(body, opts);
	const h: Record<string, string> = { 'user-agent': 'Workplace-Webhook/1.0 (simulator)', ...headers };
	if (signature !== undefined) h['x-service-signature'] = signature;
	Object.assign(h, lower(opts.headers));
	const timeout = opts.timeoutMs ?? 10000;
	const res = await request(targetUrl, { method: 'POST', headers: h, body, headersTimeout: timeout, bodyTimeout: timeout });
	const text = await res.body.text();
	return { status: res.statusCode, body: text, headers: res.headers, signature, rawBody: body };
}
