/**
 * The platform's webhook signature: X-Service-Signature = HMAC-SHA256 of the raw body with the
 * webhook secret. Checked by the Workplace Trigger on every delivery, and by Send and Wait on the
 * deliveries of in-chat answers the trigger hands on.
 */
import { createHmac, timingSafeEqual } from 'crypto';

export type SignatureCheck = 'valid' | 'missing' | 'invalid';

const HEX_DIGEST = /^[0-9a-f]{64}$/i;
const BASE64_DIGEST = /^[A-Za-z0-9+/_-]{43}=?$/;

/**
 * The 32 digest bytes an X-Service-Signature value names: hex (64 digits) or base64
 * (standard or URL-safe, padding optional), each optionally prefixed `sha256=`.
 */
export function decodeSignature(value: string): Buffer | undefined {
	const text = value.trim().replace(/^sha256=/i, '');
	if (HEX_DIGEST.test(text)) return Buffer.from(text, 'hex');
	if (BASE64_DIGEST.test(text)) {
		const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
		return bytes.length === 32 ? bytes : undefined;
	}
	return undefined;
}

/** HMAC-SHA256 of the raw body with the secret, compared in constant time after a length check. */
export function checkSignature(secret: string, rawBody: Buffer, header: unknown): SignatureCheck {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' || value.trim() === '') return 'missing';
	const given = decodeSignature(value);
	const expected = createHmac('sha256', secret).update(rawBody).digest();
	if (!given || given.length !== expected.length) return 'invalid';
	return timingSafeEqual(given, expected) ? 'valid' : 'invalid';
}
