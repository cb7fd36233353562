/**
 * Sanity of the e2e plumbing itself, with n8n-nodes-base nodes only: a workflow runs headlessly,
 * every node's output is visible, and binary data lives in n8n's filesystem store where the
 * runner can read it back byte for byte.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';

import type { Scenario } from '../types';
import { base64ToFile, chain, manualTrigger, set } from '../workflow';

// all 256 byte values: survives no text conversion
const BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

export const scenario: Scenario = {
	name: 'n8n core: binary data in filesystem mode',
	workflow: () =>
		chain([
			manualTrigger(),
			set('Make Content', { content: BYTES.toString('base64'), label: '={{ "e2e-" + (1 + 1) }}' }),
			base64ToFile('To File', { sourceProperty: 'content', fileName: 'bytes.bin', mimeType: 'application/octet-stream' }),
		]),
	async assert(result) {
		assert.deepEqual(result.executedNodes, ['Start', 'Make Content', 'To File']);
		assert.equal(result.json('Make Content')[0].label, 'e2e-2');
		const [item] = result.items('To File');
		const ref = item.binary?.data;
		assert.ok(ref, 'To File output has binary property "data"');
		assert.equal(ref.fileName, 'bytes.bin');
		assert.equal(ref.mimeType, 'application/octet-stream');
		assert.match(String(ref.id), /^filesystem(-v2)?:/, 'binary data is stored in filesystem mode');
		const bytes = await result.readBinary(ref);
		assert.equal(createHash('sha256').update(bytes).digest('hex'), createHash('sha256').update(BYTES).digest('hex'));
	},
};
