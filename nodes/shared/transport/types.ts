import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import type { RetryPolicy } from './retryPolicy';

import type { ExpirableToken } from './token';

/** What a call and its answer look like: the transport's parts import these from here, index.ts re-exports them. */
export type RequestContext = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;

/** One of the platform's interfaces: which credential signs it and where it lives. */
export interface ApiDefinition {
	credentialType: string;
	/** Base address read from the credential, e.g. `{knowledge_url}`. */
	baseUrl(credentials: ICredentialDataDecryptedObject): string;
	/** For credentials whose token n8n fetches with preAuthentication: shared per process (see token.ts). */
	expirableToken?: ExpirableToken;
	/**
	 * Why this interface may answer 403, in the user's words: a 403's description lists them all,
	 * as the platform's answer does not say which one applies.
	 */
	forbiddenCauses?: readonly string[];
}

export interface WorkplaceRequest {
	method: IHttpRequestMethods;
	/** Path below the interface's base address, already URL-encoded. */
	path: string;
	qs?: IDataObject;
	/**
	 * A JSON body, or a factory for a multipart body (called again for each attempt, so a retried
	 * upload gets a fresh stream). A multipart body is a transfer (timeLimit.ts: limited by progress).
	 */
	body?: IDataObject | IDataObject[] | (() => Promise<FormData>);
	headers?: IDataObject;
	/** Return the response body as a stream (downloads; a transfer, limited by progress). */
	stream?: boolean;
	/** Sent as the `Idempotency-Key` header. */
	idempotencyKey?: string;
	/**
	 * The user says the platform honours the Idempotency-Key (answers a repeat of a key with the
	 * first result): this POST is then retried after a 5xx or a lost connection like a GET. The
	 * spec does not promise it, so no call sets this by default.
	 */
	retryWithKey?: boolean;
	/**
	 * A 404 to an attempt sent again after a 5xx, a lost connection or a timeout is the answer
	 * (returned with statusCode 404), not an error: for a DELETE, an earlier attempt may have
	 * deleted the record before its answer was lost. A 404 to the first attempt, or after a 429
	 * (not processed), still throws.
	 */
	notFoundAfterRetrySucceeds?: boolean;
	/**
	 * The time limit and retries of this call, when its caller decides them (the trigger's replies
	 * and pictures, which no item's options govern); else the item's Request Options
	 * (itemRetryPolicy in retryPolicy.ts).
	 */
	policy?: RetryPolicy;
}

export interface WorkplaceResponse<T = unknown> {
	statusCode: number;
	headers: IDataObject;
	body: T;
}
