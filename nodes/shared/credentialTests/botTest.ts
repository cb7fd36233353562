import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	IDataObject,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import type { Answer } from './probe';
import {
	credentialText,
	displayBase,
	displayUrl,
	EVERY_STATUS_ANSWERS,
	hostOf,
	isWebAddress,
	networkReason,
	platformMessage,
	redactSecrets,
	retryAfterText,
} from './probe';

export const BOT_BASE_URL_HINT = "It is the platform's address without a path, e.g. https://workplace.example.com.";

/** Why the bot's token request failed, decided by its HTTP status (or its absence). */
export function botTokenFailureMessage(status: number | undefined, tokenUrl: string, error: unknown, platform: string): string {
	const shown = `POST ${displayUrl(tokenUrl)}`;
	if (status === undefined) {
		return `Could not reach ${displayUrl(tokenUrl)}: ${networkReason(error)}. Check the "Base URL" field: ${hostOf(tokenUrl)} must be reachable from n8n.`;
	}
	if (status === 401) {
		return `The platform refused the bot's client ID or secret (HTTP 401 from ${shown}): check the "Client ID" and "Client Secret" fields.${platform}`;
	}
	if (status === 400) {
		return `The token endpoint refused the token request (HTTP 400 from ${shown}): check the "Client ID" and "Client Secret" fields.${platform}`;
	}
	if (status === 403) {
		return `The platform refused the bot a token (HTTP 403 from ${shown}): the bot profile may not use the client credentials grant with the scope "bot profile".${platform}`;
	}
	if (status === 404 || status === 405) {
		return `There is no token endpoint at this address (HTTP ${status} from ${shown}): check the "Base URL" field. ${BOT_BASE_URL_HINT}${platform}`;
	}
	if (status === 429) {
		return `The token endpoint is limiting requests (HTTP 429 from ${shown}): try again later.${platform}`;
	}
	if (status >= 500) {
		return `The token endpoint failed to answer (HTTP ${status} from ${shown}): the client ID and secret could not be checked, try again later.${platform}`;
	}
	return `Could not get a bot access token (HTTP ${status} from ${shown}).${platform}`;
}

const LOOKUP = 'GET /bot/v1/users';

/** Why the user lookup made with a freshly issued token failed, by its HTTP status. */
function botLookupFailureMessage(status: number, answer: Answer): string {
	const platform = platformMessage(status, answer.body);
	if (status === 401) {
		return `The platform issued a token but refused it for ${LOOKUP} (HTTP 401): check the "Base URL" field, the token endpoint and the bot API must be the same platform.${platform}`;
	}
	if (status === 403) {
		return `The platform issued a token without the "bot" scope (HTTP 403 from ${LOOKUP}): the bot profile may not look up users, ask the platform admin to grant it the scope "bot profile".${platform}`;
	}
	if (status === 404 || status === 405) {
		return `The token endpoint answered, but there is no bot API at this address (HTTP ${status} from ${LOOKUP}): check the "Base URL" field. ${BOT_BASE_URL_HINT}${platform}`;
	}
	if (status === 429) {
		return `The bot API is limiting requests (HTTP 429 from ${LOOKUP}): the credential could not be checked, try again ${retryAfterText(answer)}.${platform}`;
	}
	if (status >= 500) {
		return `The bot API failed to answer (HTTP ${status} from ${LOOKUP}): the token was issued, the bot API could not be checked, try again later.${platform}`;
	}
	return `Unexpected answer from the bot API (HTTP ${status} from ${LOOKUP}): the credential could not be checked.${platform}`;
}

/** One request of the test: every status comes back as an answer to judge. */
async function ask(
	helpers: ICredentialTestFunctions['helpers'],
	options: Exclude<Parameters<ICredentialTestFunctions['helpers']['request']>[0], string>,
): Promise<Answer> {
	return (await helpers.request({ ...options, ...EVERY_STATUS_ANSWERS })) as Answer;
}

/**
 * The bot credential's "Test" button: the client credentials token request the nodes make, then a
 * user lookup with that token, which changes nothing and proves the token carries the "bot" scope.
 * Every failure of either step is decided by its status, with the same words on both majors.
 */
export async function runBotCredentialTest(
	helpers: ICredentialTestFunctions['helpers'],
	data: ICredentialDataDecryptedObject | undefined,
): Promise<INodeCredentialTestResult> {
	const clientId = credentialText(data, 'clientId');
	const clientSecret = credentialText(data, 'clientSecret');
	const secrets = [clientSecret];
	const fail = (message: string): INodeCredentialTestResult => ({ status: 'Error', message: redactSecrets(message, secrets) });
	if (clientId.trim() === '') return fail('Enter the bot profile\'s client ID in the "Client ID" field');
	if (clientSecret === '') return fail('Enter the bot profile\'s client secret in the "Client Secret" field');
	const base = credentialText(data, 'baseUrl').replace(/\/+$/, '');
	if (!isWebAddress(base)) {
		return fail(`"Base URL" is not a web address: "${displayBase(base)}". ${BOT_BASE_URL_HINT}`);
	}

	const tokenUrl = `${base}/oauth/token`;
	let token: Answer;
	try {
		token = await ask(helpers, {
			method: 'POST',
			uri: tokenUrl,
			auth: { user: clientId, pass: clientSecret },
			headers: { accept: 'application/json' },
			form: { grant_type: 'client_credentials', scope: credentialText(data, 'scope') || 'bot profile' },
		});
	} catch (error) {
		return fail(botTokenFailureMessage(undefined, tokenUrl, error, ''));
	}
	if (token.statusCode < 200 || token.statusCode >= 300) {
		return fail(botTokenFailureMessage(token.statusCode, tokenUrl, undefined, platformMessage(token.statusCode, token.body)));
	}
	const accessToken = (token.body as IDataObject | null)?.access_token;
	if (typeof accessToken !== 'string' || accessToken === '') {
		return fail(`The token endpoint ${displayUrl(tokenUrl)} answered without an access_token: check the "Base URL" field. ${BOT_BASE_URL_HINT}`);
	}
	secrets.push(accessToken);

	const lookupUrl = `${base}/bot/v1/users`;
	let lookup: Answer;
	try {
		lookup = await ask(helpers, {
			method: 'GET',
			uri: lookupUrl,
			qs: { username: 'n8n-credential-test' },
			headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
		});
	} catch (error) {
		return fail(
			`The token was issued, but ${displayUrl(lookupUrl)} could not be reached: ${networkReason(error)}. Check the "Base URL" field. ${BOT_BASE_URL_HINT}`,
		);
	}
	if (lookup.statusCode < 200 || lookup.statusCode >= 300) return fail(botLookupFailureMessage(lookup.statusCode, lookup));
	if (lookup.body === null || typeof lookup.body !== 'object') {
		return fail(
			`${LOOKUP} answered HTTP ${lookup.statusCode}, but not with the bot API's JSON: check the "Base URL" field. ${BOT_BASE_URL_HINT}`,
		);
	}
	return {
		status: 'OK',
		message: `Connection successful: the platform at ${displayBase(base)} issued a bot token, and the bot API accepted it.`,
	};
}
