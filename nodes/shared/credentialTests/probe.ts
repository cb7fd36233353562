import { randomUUID } from 'crypto';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	IDataObject,
	IHttpRequestMethods,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { parsePlatformError } from '../transport/errors';

/**
 * The "Test" button of every API credential (a node's `credentialTest` method, named by
 * `testedBy`; the bot's is in botTest.ts). It sends the request itself, so n8n 1.x and 2.x give the same
 * answer, and it decides by what the spec promises, the HTTP status (401 for a missing or
 * invalid key or token), never by the keys of an error body, which the spec does not show for
 * the form API. The platform's message only enriches the text. A declarative `test` with rules
 * cannot do this on both majors: n8n answers a failed request with its bare status text or
 * network code ("Unauthorized", "ECONNREFUSED"), and n8n 1.x does not apply `responseCode`
 * rules to the errors its routing raises.
 */

/** The request helper of n8n's credential test context (the only one it offers on both majors). */
type TestRequest = ICredentialTestFunctions['helpers']['request'];

export interface CredentialProbe {
	/** "knowledge API", "form API", "task API" */
	api: string;
	method: IHttpRequestMethods;
	/** The address field as entered; trailing slashes are removed as the nodes do. */
	baseUrl: string;
	/** Label of the address field, e.g. `Knowledge URL`. */
	urlField: string;
	/** What the address must look like, one sentence. */
	urlHint: string;
	path: string;
	qs?: IDataObject;
	headers: IDataObject;
	body?: IDataObject;
	/** What the secrets are called in messages ("API key and token"), after a 401 ("API key or the token"), and the fields holding them. */
	secretName: string;
	rejectedSecret: string;
	secretFields: string;
	/** Said after a 401, besides "check the fields". */
	unauthorizedHint?: string;
	/** Said after a 403. */
	forbiddenHint: string;
	/** Credential values that must never appear in a message. */
	secrets: unknown[];
	/**
	 * A read (GET) proves the credential with a 2xx JSON answer. A create call without a harmless
	 * variant proves it with a refusal of its invalid body: `invalidBody` lists those statuses and
	 * `controlHeaders` are made-up credentials for the same request, which must then be refused
	 * with 401 or 403, or the platform checked the body before the credentials.
	 */
	invalidBody?: { statuses: number[]; what: string; controlHeaders: IDataObject };
}

export const TIMEOUT_MS = 15_000;
const PLATFORM_MESSAGE_MAX = 200;

export interface Answer {
	statusCode: number;
	headers: IDataObject;
	body: unknown;
}

/** Request options of a test: JSON, the test's timeout, and every status an answer to judge, not an error. */
export const EVERY_STATUS_ANSWERS = { json: true, timeout: TIMEOUT_MS, simple: false, resolveWithFullResponse: true } as const;

/** Whether an address field holds an http(s) URL. */
export function isWebAddress(base: string): boolean {
	try {
		return /^https?:$/.test(new URL(base).protocol);
	} catch {
		return false;
	}
}

/** A URL as messages show it: a user name or password typed into the address stays out. */
export function displayUrl(url: string): string {
	try {
		const parsed = new URL(url);
		parsed.username = '';
		parsed.password = '';
		return parsed.toString();
	} catch {
		return url;
	}
}

/** The address field as shown in messages: no credentials, no trailing slash. */
export function displayBase(base: string): string {
	return displayUrl(base).replace(/\/+$/, '');
}

export function hostOf(url: string): string {
	try {
		return new URL(url).host;
	} catch {
		return url;
	}
}

/**
 * Why a request got no HTTP answer, in words. Node's error codes (ECONNREFUSED, ...) are left
 * out on purpose: n8n replaces any error message containing one with its own generic sentence,
 * which would drop the address and the advice (the bot credential's token errors go through it).
 */
export function networkReason(error: unknown): string {
	const e = error as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
	const code = [e.code, e.cause?.code].find((c): c is string => typeof c === 'string' && c !== '');
	switch (code) {
		case 'ECONNREFUSED':
			return 'the connection was refused, nothing listens at that address and port';
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return 'the host name could not be resolved';
		case 'ETIMEDOUT':
		case 'ECONNABORTED':
		case 'ESOCKETTIMEDOUT':
			return `there was no answer within ${TIMEOUT_MS / 1000} seconds`;
		case 'ECONNRESET':
		case 'EPIPE':
			return 'the connection was closed without an answer';
		case 'EHOSTUNREACH':
		case 'ENETUNREACH':
			return 'the host is unreachable from n8n';
		default:
			if (code !== undefined && /CERT|SSL|TLS|SELF_SIGNED/i.test(code)) return 'its TLS certificate was not accepted';
			// Another failure (n8n's SSRF protection, a proxy): its own words, unless they hold a code.
			if (typeof e.message === 'string' && e.message !== '' && !/\bE[A-Z_]{3,}\b/.test(e.message) && !/getaddrinfo/i.test(e.message)) {
				return `the request failed: ${e.message.slice(0, PLATFORM_MESSAGE_MAX)}`;
			}
			return 'the request got no answer';
	}
}

/** The text with every secret value (and its trimmed form) replaced by `***`. */
export function redactSecrets(text: string, secrets: unknown[]): string {
	let out = text;
	for (const secret of secrets) {
		if (typeof secret !== 'string' || secret.trim().length < 4) continue;
		out = out.split(secret).join('***');
		const trimmed = secret.trim();
		if (trimmed !== secret) out = out.split(trimmed).join('***');
	}
	return out;
}

/** ` Platform message: "…".` when an answer's body carries one (any of the platform's error shapes). */
export function platformMessage(status: number, body: unknown): string {
	const parsed = parsePlatformError(status, body);
	let text = parsed.message ?? (typeof parsed.name === 'string' ? parsed.name : undefined);
	if (text === undefined) return '';
	text = text.replace(/\s+/g, ' ').trim();
	if (text === '' || text.startsWith('<')) return ''; // an HTML error page says nothing useful here
	if (text.length > PLATFORM_MESSAGE_MAX) text = `${text.slice(0, PLATFORM_MESSAGE_MAX - 3)}...`;
	return ` Platform message: "${text}".`;
}

export function retryAfterText(answer: Answer): string {
	const value = answer.headers['retry-after'];
	const seconds = Number(value);
	return value !== undefined && value !== '' && Number.isFinite(seconds) && seconds >= 0 ? `in ${seconds} s` : 'later';
}

async function send(request: TestRequest, probe: CredentialProbe, url: string, headers: IDataObject): Promise<Answer> {
	return (await request({
		method: probe.method,
		uri: url,
		qs: probe.qs,
		headers,
		body: probe.body,
		...EVERY_STATUS_ANSWERS,
	})) as Answer;
}

function verdict(status: INodeCredentialTestResult['status'], message: string, probe: CredentialProbe): INodeCredentialTestResult {
	return { status, message: redactSecrets(message, probe.secrets) };
}

/** What an answer the platform gives to any request means: an error message for the Test button, or undefined. */
function statusProblem(probe: CredentialProbe, answer: Answer, shown: string): string | undefined {
	const status = answer.statusCode;
	const platform = platformMessage(answer.statusCode, answer.body);
	const secret = probe.secretName;
	if (status === 401) {
		return `The ${probe.api} rejected the ${probe.rejectedSecret} (HTTP 401 from ${shown}): check ${probe.secretFields}.${probe.unauthorizedHint ? ` ${probe.unauthorizedHint}` : ''}${platform}`;
	}
	if (status === 403) return `The ${probe.api} refused access (HTTP 403 from ${shown}): ${probe.forbiddenHint}.${platform}`;
	if (status === 404 || status === 405) {
		return `There is no ${probe.api} at this address (HTTP ${status} from ${shown}): check the "${probe.urlField}" field. ${probe.urlHint}${platform}`;
	}
	if (status === 429) {
		return `The ${probe.api} is limiting requests (HTTP 429 from ${shown}): the ${secret} could not be checked, try again ${retryAfterText(answer)}.${platform}`;
	}
	if (status >= 500) return `The ${probe.api} failed to answer (HTTP ${status} from ${shown}): the ${secret} could not be checked, try again later.${platform}`;
	return undefined;
}

/** A probe that reads something: a 2xx JSON answer is the only success. */
function judgeRead(probe: CredentialProbe, answer: Answer, shown: string, base: string): INodeCredentialTestResult {
	const status = answer.statusCode;
	if (status < 200 || status >= 300) {
		const platform = platformMessage(answer.statusCode, answer.body);
		return verdict('Error', `Unexpected answer from the ${probe.api} (HTTP ${status} from ${shown}): the ${probe.secretName} could not be checked.${platform}`, probe);
	}
	if (answer.body === null || typeof answer.body !== 'object') {
		return verdict('Error', `${shown} answered HTTP ${status}, but not with the ${probe.api}'s JSON: check the "${probe.urlField}" field. ${probe.urlHint}`, probe);
	}
	return verdict('OK', `Connection successful: the ${probe.api} at ${displayBase(base)} accepted the ${probe.secretName}.`, probe);
}

/**
 * A probe that sends an invalid body: its refusal counts only if the same request with made-up
 * credentials is refused as unauthorized (then nothing was created and the secret was accepted).
 */
async function judgeRefusal(
	helpers: ICredentialTestFunctions['helpers'],
	probe: CredentialProbe,
	invalid: NonNullable<CredentialProbe['invalidBody']>,
	request: { answer: Answer; url: string; shown: string; base: string },
): Promise<INodeCredentialTestResult> {
	const { answer, url, shown, base } = request;
	const status = answer.statusCode;
	const secret = probe.secretName;
	const fail = (message: string) => verdict('Error', message, probe);
	if (status >= 200 && status < 300) {
		return fail(
			`${shown} answered HTTP ${status} to ${invalid.what}: the ${probe.api} of the spec refuses such a request, so this address does not behave like it. Check the "${probe.urlField}" field, and look on the platform for an empty record from this test.`,
		);
	}
	if (!invalid.statuses.includes(status)) {
		return fail(`Unexpected answer from the ${probe.api} (HTTP ${status} from ${shown}): the ${secret} could not be checked.${platformMessage(status, answer.body)}`);
	}
	let control: Answer;
	try {
		control = await send(helpers.request, probe, url, { ...probe.headers, ...invalid.controlHeaders });
	} catch (error) {
		return fail(
			`The ${probe.api} answered HTTP ${status} to ${invalid.what}, but the same request with a made-up ${secret} got no answer (${networkReason(error)}): the ${secret} could not be verified, try again.`,
		);
	}
	if (control.statusCode !== 401 && control.statusCode !== 403) {
		return fail(
			`The ${probe.api} answered HTTP ${status} to ${invalid.what}, and HTTP ${control.statusCode} to the same request with a made-up ${secret}: it does not check the ${secret} before the body, so the ${secret} could not be verified. A workflow's first call will tell.`,
		);
	}
	return verdict(
		'OK',
		`Connection successful: the ${probe.api} at ${displayBase(base)} accepted the ${secret}. It answered HTTP ${status} to ${invalid.what}, and HTTP ${control.statusCode} to a made-up ${secret}: nothing was created.`,
		probe,
	);
}

/** Sends the probe and turns the answer (or its absence) into the Test button's result. */
export async function runCredentialProbe(
	helpers: ICredentialTestFunctions['helpers'],
	probe: CredentialProbe,
): Promise<INodeCredentialTestResult> {
	const base = probe.baseUrl.replace(/\/+$/, '');
	const fail = (message: string) => verdict('Error', message, probe);
	if (!isWebAddress(base)) {
		return fail(`"${probe.urlField}" is not a web address: "${displayBase(base)}". ${probe.urlHint}`);
	}
	const url = `${base}${probe.path}`;
	const shown = `${probe.method} ${displayUrl(url)}`;
	let answer: Answer;
	try {
		answer = await send(helpers.request, probe, url, probe.headers);
	} catch (error) {
		return fail(
			`Could not reach ${displayUrl(url)}: ${networkReason(error)}. Check the "${probe.urlField}" field: ${hostOf(url)} must be reachable from n8n.`,
		);
	}
	const problem = statusProblem(probe, answer, shown);
	if (problem) return fail(problem);
	const invalid = probe.invalidBody;
	if (invalid === undefined) return judgeRead(probe, answer, shown, base);
	return await judgeRefusal(helpers, probe, invalid, { answer, url, shown, base });
}

/** A credential value as text ("" when missing). */
export function credentialText(data: ICredentialDataDecryptedObject | undefined, name: string): string {
	const value = data?.[name];
	return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

/** A key or token no platform issued: new for every test, so it cannot be one that exists. */
export function madeUpCredential(): string {
	return `n8n-credential-test-${randomUUID()}`;
}
