import type { ExpirableToken } from './token';

/**
 * The bot's access token: the hidden expirable `accessToken` of the Workplace Bot OAuth2 API
 * credential, fetched by its preAuthentication, one per n8n process and bot account (the account is
 * named by `identityFields`, see token.ts). Used by the credential
 * (credentials/WorkplaceBotOAuth2Api.credentials.ts) and the bot API (botApi.ts); it lives here
 * because the credentials import from nodes/shared and nodes/ import nothing from credentials/
 * (n8n loads the two folders apart).
 */
export const BOT_TOKEN: ExpirableToken = { property: 'accessToken', identityFields: ['baseUrl', 'clientId', 'scope'] };
