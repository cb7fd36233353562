import 'reflect-metadata';
import './engine-env';

import { Container } from '@n8n/di';
import { ExternalSecretsProxy } from 'n8n-core';
import type { ExecutionLifecycleHooks } from 'n8n-core';
import type { ICredentialsHelper, IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { UnexpectedError } from 'n8n-workflow';

/** Base URL the engine pretends to be served from (only used to build resume/webhook URLs). */
export const ENGINE_INSTANCE_BASE_URL = 'http://localhost:5678';

/**
 * IWorkflowExecuteAdditionalData for one execution, shaped like what n8n's
 * `WorkflowExecuteAdditionalData.getBase()` returns, minus the server-only features
 * (sub-workflows, task runners) which throw if a node tries to use them.
 */
export function createAdditionalData(options: {
	credentialsHelper: ICredentialsHelper;
	executionId?: string;
	hooks?: ExecutionLifecycleHooks;
}): IWorkflowExecuteAdditionalData {
	const base = ENGINE_INSTANCE_BASE_URL;
	return {
		credentialsHelper: options.credentialsHelper,
		hooks: options.hooks,
		executionId: options.executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: `${base}/`,
		formWaitingBaseUrl: `${base}/form-waiting`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		userId: 'engine-test-user',
		variables: {},
		externalSecretsProxy: Container.get(ExternalSecretsProxy),
		executeWorkflow: async () => {
			throw new UnexpectedError('Engine test bed: executing sub-workflows is not supported');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new UnexpectedError('Engine test bed: task runners (Code node) are not supported');
		},
	};
}
