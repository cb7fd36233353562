// The bot API lives in nodes/shared/botApi.ts (Workplace Trigger uses it too); this re-export
// only serves imports not yet moved there (message operations, the node class).
export { botRequest, testBotCredential } from '../shared/botApi';
