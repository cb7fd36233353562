/**
 * Fuzzing the Workplace Trigger's webhook(): 1,000 generated deliveries from a seeded PRNG
 * (the same run every time), through n8n-core's WebhookContext (test/trigger/trigger-bed.ts).
 *
 * Each delivery is built with the answer it must get, by construction:
 * - any signature that is not the HMAC of these exact bytes (random, truncated, other secret,
 *   other body, missing) -> 401 and no run, whatever the body;
 * - a correct signature on bytes that are no delivery (random bytes, truncated or malformed
 *   JSON, JSON that is not an object, wrong shapes, empty) -> 400 and no run;
 * - a correct signature on a well-formed delivery, however large, odd or with whatever
 *   content type -> 200, and a run with one item per event (none for an empty events list or
 *   for an exact redelivery).
 * Nothing may throw (a throw is a 500 in n8n).
 *
 *   npx tsc -p tsconfig.json && npx gulp build:icons && npx tsc -p tsconfig.tools.json &&
 *   npx jest build/test/fuzz
 */
import { createHmac } from 'crypto';

import { joinEvent, messageEvent, postbackEvent, userEvent } from '../../simulator';
import { TriggerBed, type DeliveryOutcome, type DeliveryRequest } from '../trigger/trigger-bed';

const SEED = 0x5eed_7;
const COUNT = 1000;
const SECRET = 'fuzz-webhook-secret-7f3a';

/** mulberry32: small, fast, deterministic. */
function prng(seed: number) {
	let a = seed >>> 0;
	const next = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const int = (n: number) => Math.floor(next() * n);
	const pick = <T>(list: readonly T[]): T => list[int(list.length)];
	const bytes = (n: number) => {
		const b = Buffer.alloc(n);
		for (let i = 0; i < n; i++) b[i] = int(256);
		return b;
	};
	const text = (n: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789 äöü✓😀"\\\n\t{}[]:,') => {
		const chars = [...alphabet];
		return Array.from({ length: n }, () => pick(chars)).join('');
	};
	return { next, int, pick, bytes, text };
}

type Rng = ReturnType<typeof prng>;

interface Case {
	kind: string;
	request: DeliveryRequest;
	expect: { status: 200 | 400 | 401; events?: number };
}

const hmac = (body: Buffer, secret = SECRET) => createHmac('sha256', secret).update(body).digest();

const CONTENT_TYPES = [
	'application/json',
	'application/json; charset=utf-8',
	'APPLICATION/JSON',
	'text/plain',
	'application/x-www-form-urlencoded',
	'multipart/form-data; boundary=xyz',
	'application/octet-stream',
	'',
];

/** A correct signature in one of the accepted spellings. */
function goodSignature(rng: Rng, body: Buffer): string {
	const digest = hmac(body);
	switch (rng.int(5)) {
		case 0:
			return digest.toString('hex');
		case 1:
			return digest.toString('hex').toUpperCase();
		case 2:
			return `sha256=${digest.toString('hex')}`;
		case 3:
			return digest.toString('base64');
		default:
			return digest.toString('base64url');
	}
}

/** A signature that must be refused, or undefined for a missing header. */
function badSignature(rng: Rng, body: Buffer): { kind: string; value?: string } {
	const digest = hmac(body);
	switch (rng.int(9)) {
		case 0:
			return { kind: 'missing' };
		case 1:
			return { kind: 'random hex', value: rng.bytes(32).toString('hex') };
		case 2:
			return { kind: 'random base64', value: rng.bytes(32).toString('base64') };
		case 3:
			// Shorter than any accepted spelling (base64 without padding is 43 characters).
			return { kind: 'truncated hex', value: digest.toString('hex').slice(0, 1 + rng.int(63)) };
		case 4:
			return { kind: 'truncated base64', value: digest.toString('base64').slice(0, 1 + rng.int(42)) };
		case 5:
			return { kind: 'other secret', value: hmac(body, `${SECRET}x`).toString('hex') };
		case 6: {
			const other = Buffer.concat([body, Buffer.from(' ')]);
			return { kind: 'signature of other bytes', value: hmac(other).toString('hex') };
		}
		case 7: {
			const hex = digest.toString('hex');
			const i = rng.int(64);
			const flipped = hex.slice(0, i) + ((parseInt(hex[i], 16) ^ (1 + rng.int(15))).toString(16)) + hex.slice(i + 1);
			return { kind: 'one digit flipped', value: flipped };
		}
		default:
			return { kind: 'garbage', value: rng.text(1 + rng.int(120), 'abcXYZ=+/-_ 0123456789sha256=!@#') || 'x' };
	}
}

function oddValue(rng: Rng, depth = 0): unknown {
	switch (rng.int(depth > 3 ? 4 : 7)) {
		case 0:
			return rng.text(rng.int(40));
		case 1:
			return rng.next() * 1e12 - 5e11;
		case 2:
			return rng.pick([true, false, null]);
		case 3:
			return rng.pick(['__proto__', 'constructor', '', '\u0000', '\ud800', '{{ $json }}', '={{ 1 + 1 }}']);
		case 4:
			return Array.from({ length: rng.int(4) }, () => oddValue(rng, depth + 1));
		default: {
			const obj: Record<string, unknown> = {};
			for (let i = rng.int(4); i > 0; i--) obj[rng.pick(['a', 'text', '__proto__', 'constructor', 'toString', rng.text(5)])] = oddValue(rng, depth + 1);
			return obj;
		}
	}
}

/** A well-formed delivery: its JSON text and how many events a run gets. */
function validDelivery(rng: Rng, n: number): { json: string; events: number; headers: Record<string, string>; kind: string } {
	const variant = rng.int(10);
	if (variant === 0) {
		const raw = JSON.stringify(userEvent(rng.pick(['created', 'updated', 'deleted'] as const), { username: `fuzz${n}`, note: oddValue(rng) }));
		return { json: raw, events: 1, headers: { 'x-service-event': 'user' }, kind: 'user event' };
	}
	if (variant === 1) return { json: '{"events":[]}', events: 0, headers: {}, kind: 'empty events' };
	const count = variant === 2 ? 20 + rng.int(30) : 1 + rng.int(3);
	const events = Array.from({ length: count }, (_, i) => {
		const factory = rng.int(3);
		const base = (
			factory === 0
				? messageEvent({ text: rng.text(rng.int(200)), messageId: `fuzz-${n}-${i}` })
				: factory === 1
					? joinEvent({})
					: postbackEvent({ data: rng.text(30) })
		) as unknown as Record<string, unknown>;
		if (rng.int(3) === 0) base.extra = oddValue(rng);
		if (rng.int(5) === 0) base.type = rng.pick(['sticker', 'unfollow', 'x'.repeat(300), 'ünïcödé']);
		return base;
	});
	let json = JSON.stringify({ events });
	let kind = variant === 2 ? 'many events' : 'bot events';
	if (variant === 3) {
		// Huge: one event carrying 1-4 MiB of text.
		const text = 'ä✓ '.repeat((1 + rng.int(4)) * 200_000);
		json = JSON.stringify({ events: [messageEvent({ text, messageId: `fuzz-huge-${n}` })] });
		return { json, events: 1, headers: {}, kind: 'huge body' };
	}
	if (variant === 4) {
		json = `\ufeff${JSON.stringify({ events }, null, rng.int(4))}\n`;
		kind = 'BOM and whitespace';
	}
	if (variant === 5) {
		// Deep nesting inside an event.
		const depth = 200 + rng.int(800);
		const nested = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
		json = `{"events":[${JSON.stringify(events[0]).slice(0, -1)},"deep":${nested}}]}`;
		return { json, events: 1, headers: {}, kind: 'deep nesting' };
	}
	return { json, events: count, headers: {}, kind };
}

/** Bytes that are no delivery (400 once signed correctly). */
function malformedBody(rng: Rng, n: number): { body: Buffer; kind: string } {
	const valid = JSON.stringify({ events: [messageEvent({ messageId: `bad-${n}` })] });
	switch (rng.int(12)) {
		case 0:
			return { body: rng.bytes(1 + rng.int(2000)), kind: 'random bytes' };
		case 1:
			return { body: Buffer.from(valid.slice(0, 1 + rng.int(valid.length - 2))), kind: 'truncated JSON' };
		case 2:
			return { body: Buffer.from(rng.text(1 + rng.int(300))), kind: 'random text' };
		case 3:
			return { body: Buffer.from(JSON.stringify(rng.pick([[], [1, 2], 'events', 42, null, true]))), kind: 'JSON, not an object' };
		case 4:
			return { body: Buffer.from(JSON.stringify({ events: rng.pick([{}, 'x', 1, null]) })), kind: 'events not an array' };
		case 5:
			return { body: Buffer.from(JSON.stringify({ events: [rng.pick([1, 'message', null, [], {}, { type: '' }, { type: 7 }])] })), kind: 'bad event' };
		case 6:
			return { body: Buffer.from(JSON.stringify({ hello: 'world', n })), kind: 'neither shape' };
		case 7:
			return { body: Buffer.from(`{"events":[${'{"type":"message"},'.repeat(1 + rng.int(50))}`), kind: 'unterminated' };
		case 8:
			return { body: Buffer.from(valid.replace(/"/g, "'")), kind: 'single quotes' };
		case 9:
			return { body: Buffer.from(`${valid}${rng.pick([',', '}', 'x', '{}'])}`), kind: 'trailing garbage' };
		case 10:
			return { body: Buffer.alloc(0), kind: 'empty body' };
		default:
			// Huge and broken: a few MiB of an unterminated string.
			return { body: Buffer.from(`{"events":[{"type":"message","text":"${'x'.repeat((1 + rng.int(3)) * 1_000_000)}`), kind: 'huge unterminated' };
	}
}

function generate(): Case[] {
	const rng = prng(SEED);
	const cases: Case[] = [];
	const accepted: Case[] = [];
	for (let n = 0; n < COUNT; n++) {
		const contentType = rng.pick(CONTENT_TYPES);
		const roll = rng.next();
		if (roll < 0.05 && accepted.length > 0) {
			// An exact redelivery of an accepted delivery: 200, no second run.
			const earlier = rng.pick(accepted);
			cases.push({ kind: 'redelivery', request: earlier.request, expect: { status: 200, events: 0 } });
			continue;
		}
		if (roll < 0.4) {
			// Bad signature on anything, valid or not.
			const body = rng.int(2) === 0 ? Buffer.from(validDelivery(rng, n).json) : malformedBody(rng, n).body;
			const signature = badSignature(rng, body);
			const headers: Record<string, string> = { 'content-type': contentType };
			if (signature.value !== undefined) headers['x-service-signature'] = signature.value;
			cases.push({ kind: `signature: ${signature.kind}`, request: { rawBody: body, headers }, expect: { status: 401 } });
			continue;
		}
		if (roll < 0.7) {
			const { body, kind } = malformedBody(rng, n);
			const headers: Record<string, string> = { 'content-type': contentType, 'x-service-signature': goodSignature(rng, body) };
			if (rng.int(4) === 0) headers['x-service-event'] = 'user';
			cases.push({ kind: `malformed: ${kind}`, request: { rawBody: body, headers }, expect: { status: 400 } });
			continue;
		}
		const delivery = validDelivery(rng, n);
		const body = Buffer.from(delivery.json);
		const headers = { 'content-type': contentType, ...delivery.headers, 'x-service-signature': goodSignature(rng, body) };
		const c: Case = { kind: `valid: ${delivery.kind}`, request: { rawBody: body, headers }, expect: { status: 200, events: delivery.events } };
		cases.push(c);
		if (delivery.events > 0) accepted.push(c);
	}
	return cases;
}

function describeOutcome(c: Case, index: number, outcome: DeliveryOutcome): string {
	return `#${index} ${c.kind}: status ${outcome.status}, run ${outcome.runStarted} (${outcome.items.length} items)` +
		(outcome.error ? `, threw ${outcome.error.message}` : '') +
		`, body ${JSON.stringify(outcome.body).slice(0, 200)}`;
}

beforeAll(async () => {
	await TriggerBed.init();
});

describe('Workplace Trigger fuzz: 1,000 seeded deliveries', () => {
	const cases = generate();

	it('generates every kind of delivery (the corpus is what it claims)', () => {
		expect(cases).toHaveLength(COUNT);
		const kinds = new Set(cases.map((c) => c.kind));
		for (const kind of [
			'signature: missing',
			'signature: truncated hex',
			'signature: truncated base64',
			'signature: random hex',
			'malformed: random bytes',
			'malformed: truncated JSON',
			'malformed: empty body',
			'malformed: huge unterminated',
			'valid: huge body',
			'valid: deep nesting',
			'valid: user event',
			'redelivery',
		]) {
			expect(kinds).toContain(kind);
		}
		expect(cases.filter((c) => c.expect.status === 401).length).toBeGreaterThan(300);
	});

	it('no crash, the right status, and a run only for a correctly signed well-formed new delivery', async () => {
		const bed = new TriggerBed({
			parameters: { verification: 'secret', events: ['*'] },
			credentials: { workplaceWebhookApi: { secret: SECRET } },
		});
		const failures: string[] = [];
		const tally: Record<string, number> = {};
		let runs = 0;
		for (const [index, c] of cases.entries()) {
			const outcome = await bed.deliver(c.request);
			tally[outcome.status] = (tally[outcome.status] ?? 0) + 1;
			if (outcome.runStarted) runs++;
			const wantRun = c.expect.status === 200 && (c.expect.events ?? 0) > 0;
			const ok =
				outcome.error === undefined &&
				outcome.status === c.expect.status &&
				outcome.runStarted === wantRun &&
				(!wantRun || outcome.items.length === c.expect.events) &&
				(c.expect.status === 200 || (outcome.result?.workflowData === undefined && outcome.result?.noWebhookResponse === true));
			if (!ok) failures.push(describeOutcome(c, index, outcome));
		}
		expect(failures.slice(0, 20)).toEqual([]);
		// Every 401 and 400 answer came without a run.
		expect(runs).toBe(cases.filter((c) => c.expect.status === 200 && (c.expect.events ?? 0) > 0).length);
		expect(tally[401] + tally[400] + tally[200]).toBe(COUNT);
		expect(tally[401]).toBe(cases.filter((c) => c.expect.status === 401).length);
		expect(tally[400]).toBe(cases.filter((c) => c.expect.status === 400).length);
		if (process.env.FUZZ_VERBOSE) console.log(tally, runs, Object.entries(cases.reduce<Record<string, number>>((m, c) => ({ ...m, [c.kind]: (m[c.kind] ?? 0) + 1 }), {})));
	});

	it('with verification "None", the same corpus minus signatures: 400 for malformed, 200 otherwise, no crash', async () => {
		const bed = new TriggerBed({ parameters: { verification: 'none', events: ['*'] } });
		const failures: string[] = [];
		for (const [index, c] of cases.entries()) {
			if (c.expect.status === 401 || c.kind === 'redelivery') continue;
			const outcome = await bed.deliver(c.request);
			const wantRun = c.expect.status === 200 && (c.expect.events ?? 0) > 0;
			if (outcome.error !== undefined || outcome.status !== c.expect.status || outcome.runStarted !== wantRun) {
				failures.push(describeOutcome(c, index, outcome));
			}
		}
		expect(failures.slice(0, 20)).toEqual([]);
	});
});
