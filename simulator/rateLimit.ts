/**
 * The platform's rate limit: one token bucket per interface. A request takes a token when it
 * arrives; with none left it is answered 429 at once (the platform did not process it), with a
 * Retry-After of the whole seconds until a token is free. The spec gives no thresholds, so a test
 * sets them (control API `/__sim/rate-limit`, CLI `--rate-limit R[/BURST]`); none by default.
 */
import type { InterfaceName } from './types';

/** The interfaces a limit applies to: the platform's APIs, not OAuth nor the control API. */
export const LIMITED_INTERFACES: InterfaceName[] = ['knowledge', 'bot', 'image', 'form', 'task'];

export interface RateLimitRule {
	/** Tokens added per second. */
	rate: number;
	/** Bucket size: how many requests may arrive at once after a quiet spell. Default: `rate`. */
	burst: number;
}

interface Bucket extends RateLimitRule {
	tokens: number;
	updatedAt: number;
}

export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

export class RateLimits {
	private readonly buckets = new Map<InterfaceName, Bucket>();

	constructor(private readonly now: () => number = () => performance.now()) {}

	/** Sets (or with `rate` 0, removes) the limit of one interface, or of every limited one. */
	set(rule: { rate: number; burst?: number }, iface?: InterfaceName): void {
		if (!(rule.rate >= 0) || !Number.isFinite(rule.rate)) throw new Error('rate must be a number >= 0 (requests per second; 0 removes the limit)');
		const burst = rule.burst ?? Math.max(1, rule.rate);
		if (!(burst >= 1) || !Number.isFinite(burst)) throw new Error('burst must be a number >= 1');
		if (iface !== undefined && !LIMITED_INTERFACES.includes(iface)) throw new Error(`interface must be one of ${LIMITED_INTERFACES.join(', ')}`);
		for (const name of iface ? [iface] : LIMITED_INTERFACES) {
			if (rule.rate === 0) this.buckets.delete(name);
			else this.buckets.set(name, { rate: rule.rate, burst, tokens: burst, updatedAt: this.now() });
		}
	}

	clear(): void {
		this.buckets.clear();
	}

	list(): Partial<Record<InterfaceName, RateLimitRule>> {
		const out: Partial<Record<InterfaceName, RateLimitRule>> = {};
		for (const [name, b] of this.buckets) out[name] = { rate: b.rate, burst: b.burst };
		return out;
	}

	/** Takes a token for a request arriving now, or says how long until one is free. */
	admit(iface: InterfaceName): Admission {
		const bucket = this.buckets.get(iface);
		if (!bucket) return { admitted: true };
		const now = this.now();
		bucket.tokens = Math.min(bucket.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * bucket.rate);
		bucket.updatedAt = now;
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return { admitted: true };
		}
		const secondsUntilToken = (1 - bucket.tokens) / bucket.rate;
		return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(secondsUntilToken)) };
	}
}

/** `R` or `R/BURST` as the CLI and the control API take it. */
export function parseRateLimit(text: string): { rate: number; burst?: number } {
	const m = /^(\d+(?:\.\d+)?)(?:\/(\d+(?:\.\d+)?))?$/.exec(text.trim());
	if (!m) throw new Error(`rate limit must be R or R/BURST (requests per second, bucket size), got "${text}"`);
	return { rate: Number(m[1]), ...(m[2] !== undefined ? { burst: Number(m[2]) } : {}) };
}
