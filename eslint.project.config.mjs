// This repository's own ESLint config: `npm run lint` runs it on every folder (eslint -c eslint.project.config.mjs).
// eslint.config.mjs beside it is n8n's default config, byte for byte as `n8n-node new` writes it: n8n's
// `n8n-node cloud-support` requires it for n8n Cloud verification, and `npm run lint:n8n` runs it with
// `n8n-node lint` on the shipped sources (it resolves @n8n/node-cli, installed in the cache, not here).
import eslint from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const packageFiles = ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'];

/** Imports nodes/ refuse: credentials/ code, and the test entries of the process memory. */
const noCredentialsImport = { group: ['**/credentials/*'], message: 'nodes/ import nothing from credentials/: move what both need to nodes/shared.' };
const noProcessMemoryTestEntries = { group: ['**/processMemory'], importNames: ['forgetProcessMemoryForTests', 'runAsProcessForTests'], message: 'The test entries are for the tests; the nodes never forget or swap their process memory.' };

export default tseslint.config(
	{ ignores: ['dist/**', 'build/**', 'node_modules/**', '.cache/**', 'coverage/**', 'docs/**'] },
	{
		files: ['**/*.ts'],
		extends: [eslint.configs.recommended, tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
	// What n8n checks in a community package: its own rule sets, on the shipped code and package.json.
	{
		...n8nCommunityNodesPlugin.configs.recommended,
		files: packageFiles,
	},
	// Shipped code logs nothing: n8n's node-cli config has it too (npm run lint:n8n runs that config unchanged).
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		rules: { 'no-console': 'error' },
	},
	// n8n loads nodes and credentials apart: the credentials may import nodes/shared, never the reverse.
	// The package's one test entry is for the tests only.
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						noProcessMemoryTestEntries,
					],
				},
			],
		},
	},
	{
		files: ['nodes/**/*.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						noCredentialsImport,
						noProcessMemoryTestEntries,
					],
				},
			],
		},
	},
	// The trigger's in-chat questions are read and written through one interface (questionStore.ts).
	{
		files: ['nodes/**/*.ts'],
		ignores: ['nodes/WorkplaceTrigger/approvals/questionStore.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						noCredentialsImport,
						noProcessMemoryTestEntries,
						{ group: ['**/approvals/votesStore', '**/approvals/remindersStore', './votesStore', './remindersStore'], message: "The trigger's questions are read and written through approvals/questionStore.ts." },
					],
				},
			],
		},
	},
	// An item's parameters are read through nodeParameter (nodes/shared/parameters.ts): once per node run
	// and item, `{{ $json.field }}` from the item. Webhook, trigger and picker code reads without an item.
	{
		files: ['nodes/**/*.ts'],
		ignores: ['nodes/shared/parameters.ts'],
		rules: {
			'no-restricted-syntax': [
				'error',
				{
					selector: "CallExpression[callee.property.name='getNodeParameter'][arguments.1.name=/^(itemIndex|index|i)$/], CallExpression[callee.property.name='getNodeParameter'][arguments.1.type='Literal'][arguments.1.raw=/^[0-9]+$/]",
					message: "Read an item's parameter with nodeParameter(ctx, name, itemIndex, ...) from nodes/shared/parameters.ts: once per node run and item.",
				},
			],
		},
	},
	{
		files: ['package.json'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: { ...n8nNodesBase.configs.community.rules },
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		// Off as in n8n's own node-cli config: documentationUrl is a full URL here.
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		// Off as in n8n's own node-cli config: they predate NodeConnectionTypes, which the newer rules require.
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
);
