import type { INodeProperties } from 'n8n-workflow';

import { requiredTextField } from '../nodes/shared/descriptions/fields';

/**
 * The property definitions the Workplace credentials share; each credential keeps its own wording.
 * Class fields (name, icon, documentationUrl) stay written out in each credential: n8n's lint rules
 * read them there.
 */

/** A required address; `description` says what the credential reaches below it. */
export const addressProperty = requiredTextField;

/** The platform's own address, as the bot, form and task credentials ask for it. */
export function baseUrlProperty(description: string): INodeProperties {
	return addressProperty('Base URL', 'baseUrl', 'https://workplace.example.com', description);
}

/** A required key, token or secret, hidden like a password. */
export function secretProperty(displayName: string, name: string, description: string): INodeProperties {
	return { displayName, name, type: 'string', typeOptions: { password: true }, default: '', required: true, description };
}

/** The notice above the fields of a credential whose "Test" sends a request that must be refused. */
export function testNotice(text: string): INodeProperties {
	return { displayName: text, name: 'testNotice', type: 'notice', default: '' };
}
