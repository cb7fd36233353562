/**
 * Credentials for the engine test bed: an in-memory credential store and a subclass of
 * n8n-workflow's ICredentialsHelper that behaves like n8n's own CredentialsHelper
 * (packages/cli/src/credentials-helper.ts), minus the database:
 *
 * - getDecrypted: stored data + credential property defaults (incl. parent types),
 *   expressions in credential values resolved.
 * - authenticate: generic (`headers`/`qs`/`body`/`auth` with `={{$credentials.x}}` style
 *   expressions resolved by n8n-workflow's expression engine).
 * - preAuthentication: runs the credential type's `preAuthentication` when the expirable
 *   property is empty or n8n-core reports expiry (after a 401), persists the result, and writes it
 *   into the credential data it was given, as n8n's CredentialsHelper does (`Object.assign`; and
 *   n8n-core's httpRequestWithAuthentication with what it returns). `store.tokenWrittenBack =
 *   false` models an n8n that no longer does: the call is still authenticated with the new value,
 *   but the caller's data keeps the old one.
 *
 * Only what the package's credentials use: a function-style `authenticate` or n8n's OAuth2
 * token handling (credentials extending oAuth2Api) fail loudly here.
 */
import 'reflect-metadata';
import './engine-env';

import { Credentials, getAdditionalKeys } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsExpressionResolveValues,
	ICredentialTypes,
	IDataObject,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	Workflow,
	deepCopy,
	isExpression,
} from 'n8n-workflow';

/** Counters kept per credential type name. */
export interface CredentialStoreCounters {
	/** Times a credential type's `preAuthentication` ran and returned the expirable property. */
	preAuthentication: Record<string, number>;
	/** updateCredentials calls (preAuthentication results are saved through it). */
	updates: Record<string, number>;
	/** getDecrypted calls (one per `this.getCredentials()` in a node or helper). */
	reads: Record<string, number>;
}

/**
 * Credential data per credential type name, as n8n would keep it in its database
 * (decrypted here). Share one store between `runNode` calls to model one saved
 * credential used by several executions.
 */
export class CredentialStore {
	private readonly data = new Map<string, ICredentialDataDecryptedObject>();

	/** Whether n8n writes a preAuthentication result into the caller's credential data (see above). */
	tokenWrittenBack = true;

	readonly counters: CredentialStoreCounters = {
		preAuthentication: {},
		updates: {},
		reads: {},
	};

	constructor(initial: Record<string, IDataObject> = {}) {
		for (const [type, value] of Object.entries(initial)) this.set(type, value);
	}

	has(type: string): boolean {
		return this.data.has(type);
	}

	types(): string[] {
		return [...this.data.keys()];
	}

	/** A copy of the current data of `type`. */
	get(type: string): ICredentialDataDecryptedObject | undefined {
		const value = this.data.get(type);
		return value === undefined ? undefined : deepCopy(value);
	}

	set(type: string, value: IDataObject): void {
		this.data.set(type, deepCopy(value) as ICredentialDataDecryptedObject);
	}

	/** Removes the credential of `type` (as when it is deleted in n8n while a node still names it). */
	delete(type: string): void {
		this.data.delete(type);
	}

	/** Shallow-merges `patch` into the data of `type`. */
	merge(type: string, patch: IDataObject): void {
		this.set(type, { ...(this.data.get(type) ?? {}), ...deepCopy(patch) });
	}

	/** Adds the entries of `credentials` whose type is not in the store yet. */
	seed(credentials: Record<string, IDataObject> | undefined): void {
		for (const [type, value] of Object.entries(credentials ?? {})) {
			if (!this.has(type)) this.set(type, value);
		}
	}

	snapshot(): Record<string, ICredentialDataDecryptedObject> {
		return Object.fromEntries(this.types().map((type) => [type, this.get(type)!]));
	}

	preAuthenticationCalls(type?: string): number {
		return sumCounter(this.counters.preAuthentication, type);
	}

	/** @internal */
	count(counter: keyof CredentialStoreCounters, type: string): void {
		this.counters[counter][type] = (this.counters[counter][type] ?? 0) + 1;
	}
}

function sumCounter(counter: Record<string, number>, type?: string): number {
	if (type !== undefined) return counter[type] ?? 0;
	return Object.values(counter).reduce((sum, value) => sum + value, 0);
}

/** Stable fake credential id for a type (nodes reference credentials by id + name). */
export function credentialIdFor(type: string): string {
	return `engine-test-${type}`;
}

const mockNode: INode = {
	id: 'engine-test-credentials-mock',
	name: '',
	typeVersion: 1,
	type: 'mock',
	position: [0, 0],
	parameters: {},
};

const mockNodeTypes: INodeTypes = {
	getByName: () => ({ description: { properties: [] } }) as unknown as INodeType,
	getByNameAndVersion: () => ({ description: { properties: [] } }) as unknown as INodeType,
	getKnownTypes: () => ({}),
};

export class EngineCredentialsHelper extends ICredentialsHelper {
	/** preAuthentication results not written into the caller's data (tokenWrittenBack off), for authenticate. */
	private readonly notWrittenBack = new WeakMap<object, ICredentialDataDecryptedObject>();

	constructor(
		private readonly credentialTypes: ICredentialTypes,
		readonly store: CredentialStore,
	) {
		super();
	}

	getParentTypes(name: string): string[] {
		return this.credentialTypes.getParentTypes(name);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions as IHttpRequestOptions & Record<string, unknown>;
		const kept = this.notWrittenBack.get(credentials);
		if (kept) credentials = { ...credentials, ...kept };
		const credentialType = this.credentialTypes.getByName(typeName);
		const { authenticate } = credentialType;
		if (!authenticate) return requestOptions;

		if (typeof authenticate === 'function') {
			throw new UnexpectedError(`Engine test bed: "${typeName}" authenticates with a function, which no credential of the package does`);
		}

		if (authenticate.type === 'generic') {
			requestOptions.headers ??= {};
			const additionalKeys = { $credentials: credentials } as IWorkflowDataProxyAdditionalKeys;
			for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
				if (outerValue !== null && typeof outerValue === 'object') {
					const target = (requestOptions[outerKey] ??= {}) as Record<string, unknown>;
					for (const [key, value] of Object.entries(outerValue as Record<string, unknown>)) {
						const keyResolved = this.resolveValue(key, additionalKeys, workflow, node);
						target[keyResolved] = this.resolveValue(value, additionalKeys, workflow, node);
					}
				} else {
					// Scalar properties (`url`, `skipSslCertificateValidation`) are set directly.
					requestOptions[outerKey] = this.resolveValue(outerValue, additionalKeys, workflow, node);
				}
			}
		}
		return requestOptions;
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.credentialTypes.getByName(typeName);
		const expirableProperty = this.getCredentialsProperties(typeName).find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (expirableProperty?.name === undefined) return undefined;
		if (typeof credentialType.preAuthentication !== 'function') return undefined;

		if (credentials[expirableProperty.name] !== '' && !credentialsExpired) return undefined;

		const output = (await credentialType.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
		// Without the expirable property the result would never be saved.
		if (output?.[expirableProperty.name] === undefined) return undefined;
		this.store.count('preAuthentication', typeName);

		if (node.credentials) {
			const nodeCredentials = node.credentials[credentialType.name];
			// Save onto the stored (raw) data, never replacing a stored expression with the
			// value it resolved to in this run, except for the expirable property itself.
			const storedData = this.store.get(typeName) ?? {};
			const dataToPersist: ICredentialDataDecryptedObject = { ...storedData };
			for (const [key, value] of Object.entries(output)) {
				if (key === expirableProperty.name || !isExpression(storedData[key])) {
					dataToPersist[key] = value;
				}
			}
			await this.updateCredentials(nodeCredentials, credentialType.name, dataToPersist);
			if (!this.store.tokenWrittenBack) {
				this.notWrittenBack.set(credentials, output);
				return undefined;
			}
			return Object.assign(credentials, output);
		}
		return undefined;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<Credentials> {
		const credentials = new Credentials(
			{ id: nodeCredentials.id ?? credentialIdFor(type), name: nodeCredentials.name },
			type,
		);
		credentials.setData(this.getStored(type));
		return credentials;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		this.store.count('reads', type);
		const stored = this.getStored(type);
		if (raw === true) return stored;
		return this.applyDefaultsAndResolveExpressions(
			additionalData,
			stored,
			type,
			mode,
			executeData,
			expressionResolveValues,
		);
	}

	/** Like n8n's `applyDefaultsAndOverwrites` (there are no credential overwrites here). */
	applyDefaultsAndResolveExpressions(
		additionalData: IWorkflowExecuteAdditionalData,
		stored: ICredentialDataDecryptedObject,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): ICredentialDataDecryptedObject {
		const properties = this.getCredentialsProperties(type);
		let decrypted = (NodeHelpers.getNodeParameters(
			properties,
			stored as INodeParameters,
			true,
			false,
			null,
			null,
		) ?? {}) as ICredentialDataDecryptedObject;

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { secretsEnabled: false });
		if (expressionResolveValues) {
			try {
				decrypted = expressionResolveValues.workflow.expression.getParameterValue(
					decrypted as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					decrypted,
				) as ICredentialDataDecryptedObject;
			} catch (e) {
				e.message += ' [Error resolving credentials]';
				throw e;
			}
		} else {
			const workflow = new Workflow({
				nodes: [mockNode],
				connections: {},
				active: false,
				nodeTypes: mockNodeTypes,
			});
			decrypted = workflow.expression.getComplexParameterValue(
				mockNode,
				decrypted as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				decrypted,
			) as ICredentialDataDecryptedObject;
		}
		return decrypted;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store.set(type, data);
		this.store.count('updates', type);
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		_data: ICredentialDataDecryptedObject,
	): Promise<void> {
		throw new UnexpectedError(`Engine test bed: "${type}" uses n8n's OAuth2 token handling, which no credential of the package does`);
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = this.credentialTypes.getByName(type);
		if (credentialType.extends === undefined) return credentialType.properties;
		const combined: INodeProperties[] = [];
		for (const parent of credentialType.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, credentialType.properties);
		return combined;
	}

	private getStored(type: string): ICredentialDataDecryptedObject {
		const stored = this.store.get(type);
		if (stored === undefined) {
			throw new UnexpectedError(
				`Engine test bed: no data for credential type "${type}" (pass it in runNode's "credentials" or "credentialStore")`,
			);
		}
		return stored;
	}

	private resolveValue(
		value: unknown,
		additionalKeys: IWorkflowDataProxyAdditionalKeys,
		workflow: Workflow,
		node: INode,
	): string {
		if (typeof value !== 'string') return value as string;
		if (!isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			additionalKeys,
			undefined,
			'',
		);
		if (!resolved) return '';
		return resolved.toString();
	}
}
