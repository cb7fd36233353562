/**
 * Workplace platform simulator: module API.
 *
 *   const sim = await startSimulator({ port: 0 });
 *   // sim.url, sim.knowledgeUrl, sim.controlUrl, sim.llmUrl, sim.credentials, sim.log, sim.faults, sim.state, sim.llm
 *   await sim.close();
 *
 * See simulator/README.md.
 */
export type {
	SimulatorCredentials,
	SimulatorOptions,
	LoggedFile,
	LoggedRequest,
	FaultRule,
	BodyPace,
	InterfaceName,
	LogFilter,
	RequestLogApi,
	FaultsApi,
} from './types';
export { startSimulator, SimulatorServer, DEFAULT_PORT, DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_TOKEN_TTL_SECONDS } from './server';
export type { Simulator } from './server';
export { SimulatorState } from './state';
export type { SimUser, SimGroup, SimTopic, SentBotMessage, KnowledgeBase, KnowledgeFile, FormRecord, TaskRecord, TaskTopic, IssuedToken, GroupSettings } from './state';
export { SEED, SEED_FILE_CONTENTS, DEFAULT_CREDENTIALS, TASK_READONLY_JWT_DEFAULT, makeJwt } from './seed';
export { sendWebhook, signBody, verifySignature, signatureFor, deliveryBody } from './webhook-sender';
export type { WebhookDelivery, WebhookOptions, WebhookResult, SignatureMode } from './webhook-sender';
export * from './events';
export { TapError, TAPS_SPACING_MS, prepareTap, prepareTaps, postbackActions, tappableActions, findTapMessage, findPostbackAction, resolveTapUser, tapRequestFromJson, tapsRequestFromJson } from './tap';
export type { TapRequest, TapResult, TapsDelivery, TapsResult } from './tap';
export { LIMITS as BOT_LIMITS } from './handlers/bot-validate';
export { KNOWLEDGE_FILE_TYPES, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './handlers/knowledge';
export { MultipartParser, parsePartHeaders, decodeRfc5987 } from './multipart';
export { checkCsv } from './csv';
export { LlmSimulator, LLM_MODELS, resolveToolName, validateTurns, isLlmPath } from './llm';
export type { LlmTurn, LlmToolCall, LlmScriptInfo, LlmRequestRecord, AssistantMessage } from './llm';
