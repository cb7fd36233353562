/**
 * (b) Knowledge file upload and download of a 256 MiB file in a real `n8n start`, in each binary
 * data mode of BENCH_BINARY_MODES (default `filesystem,database`): Workplace Knowledge vs n8n's
 * HTTP Request node.
 *
 * Each measured run gets a freshly started n8n (same user folder, so credentials and active
 * workflows persist): a warm-up run with a 1 MiB file loads the code paths, then n8n's main
 * process is left alone for a moment, its RSS read ("idle"), its peak RSS reset
 * (/proc/<pid>/clear_refs) and the 256 MiB run made through a webhook that answers when the
 * workflow has finished. Peak above idle = VmHWM after the run − RSS before it. The time is the
 * transfer node's own execution time as n8n records it. A download counts as intact when the
 * bytes n8n serves for the stored binary (GET /rest/binary-data, as the editor fetches it, on any
 * major and mode) have the file's sha256; an upload when the simulator received that sha256.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import {
	fetchWebhook,
	importCredentials,
	importWorkflows,
	startN8nServer,
	type N8nInstall,
	type N8nServer,
} from '../scripts/lib/n8n';
import { sleep } from '../scripts/lib/proc';
import type { Simulator } from '../simulator';
import { byId, chain, credentialId, node, stableId, workflowId } from '../test/e2e/workflow';
import { log, memoryOf, MiB, nodeRun, resetPeak, stat } from './lib';

const PACKAGE = 'n8n-nodes-workplace';
export const BIG_FILE_BYTES = 256 * MiB;
const WARMUP_BYTES = 1 * MiB;

type Side = 'workplaceKnowledge' | 'httpRequest';
type Operation = 'upload' | 'download';
export type BinaryMode = 'filesystem' | 'database';

export const BINARY_MODES = (process.env.BENCH_BINARY_MODES ?? 'filesystem,database')
	.split(',')
	.map((m) => m.trim())
	.filter((m): m is BinaryMode => m === 'filesystem' || m === 'database');

export interface FileRound {
	mode: BinaryMode;
	operation: Operation;
	side: Side;
	idleRss: number;
	peakRss: number;
	aboveIdle: number;
	nodeMs: number;
	/** The bytes arrived intact (sha256 at the simulator for uploads, of the binary n8n serves back for downloads). */
	intact: boolean;
}

const knowledgeCred = { id: credentialId('bench/workplaceKnowledgeApi'), name: 'Workplace Knowledge (bench)', type: 'workplaceKnowledgeApi' };
const apiKeyCred = { id: credentialId('bench/httpHeaderAuth-x-api-key'), name: 'x-api-key (bench)', type: 'httpHeaderAuth' };
const noData = () => ({});

function sha256File(file: string): string {
	const hash = createHash('sha256');
	const fd = fs.openSync(file, 'r');
	const chunk = Buffer.alloc(4 * MiB);
	try {
		for (;;) {
			const n = fs.readSync(fd, chunk, 0, chunk.length, null);
			if (!n) break;
			hash.update(chunk.subarray(0, n));
		}
	} finally {
		fs.closeSync(fd);
	}
	return hash.digest('hex');
}

/** sha256 of what n8n serves for a stored binary (the editor's download of an output item's file). */
async function sha256Served(server: N8nServer, binaryId: string): Promise<{ sha256: string; bytes: number }> {
	const res = await server.fetch(`/rest/binary-data?id=${encodeURIComponent(binaryId)}&action=download`);
	if (res.status !== 200 || !res.body) throw new Error(`GET /rest/binary-data answered ${res.status}`);
	const hash = createHash('sha256');
	let bytes = 0;
	for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
		hash.update(chunk);
		bytes += chunk.length;
	}
	return { sha256: hash.digest('hex'), bytes };
}

/** A file of random-looking bytes (one random 1 MiB block repeated): content does not matter, only size. */
function writeFile(file: string, bytes: number): string {
	const block = randomBytes(MiB);
	const fd = fs.openSync(file, 'w');
	try {
		for (let written = 0; written < bytes; written += MiB) fs.writeSync(fd, block, 0, Math.min(MiB, bytes - written));
	} finally {
		fs.closeSync(fd);
	}
	return sha256File(file);
}

function webhook(name: string, hookPath: string) {
	return node(name, 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: hookPath, responseMode: 'lastNode', responseData: 'firstEntryJson', options: {} }, {
		after: [],
		settings: { webhookId: stableId('hook', hookPath) },
	});
}

/** The four measured workflows on a file; `variant` names another set (the warm-up) with its own webhook paths. */
function workflows(kbId: string, fileId: string, knowledgeUrl: string, variant = '') {
	const headerAuth = { authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' };
	type Transfer = { operation: Operation; side: Side; node: ReturnType<typeof node> };
	/** Our Knowledge node on the file resource. */
	const ours = (operation: Operation, parameters: Record<string, unknown>): Transfer => ({
		operation,
		side: 'workplaceKnowledge',
		node: node('Transfer', `${PACKAGE}.workplaceKnowledge`, 1, {
			resource: 'file',
			operation,
			knowledgeBaseId: byId(kbId),
			...parameters,
		}, { credentials: { ...knowledgeCred, data: noData } }),
	});
	/** n8n's HTTP Request node with the API key as a header credential. */
	const httpRequest = (operation: Operation, parameters: Record<string, unknown>): Transfer => ({
		operation,
		side: 'httpRequest',
		node: node('Transfer', 'n8n-nodes-base.httpRequest', 4.2, parameters, { credentials: { ...apiKeyCred, data: noData } }),
	});
	const transfers: Transfer[] = [
		ours('upload', { binaryPropertyName: 'data' }),
		httpRequest('upload', {
			method: 'POST',
			url: `${knowledgeUrl}/knowledge/${kbId}/files`,
			...headerAuth,
			sendBody: true,
			contentType: 'multipart-form-data',
			bodyParameters: { parameters: [{ parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'data' }] },
			options: {},
		}),
		ours('download', { fileId: byId(fileId), binaryPropertyName: 'data' }),
		httpRequest('download', {
			method: 'GET',
			url: `${knowledgeUrl}/knowledge/${kbId}/files/${fileId}/download`,
			...headerAuth,
			options: { response: { response: { responseFormat: 'file', outputPropertyName: 'data' } } },
		}),
	];
	return transfers.map((t) => {
		const name = `bench${variant}: ${t.operation} ${t.side}`;
		const hookPath = `bench-${t.operation}-${t.side === 'workplaceKnowledge' ? 'ours' : 'http'}${variant}`;
		const readFile = node('Read File', 'n8n-nodes-base.readWriteFile', 1, { fileSelector: '={{ $json.body.file }}', options: {} });
		const nodes = [webhook('Webhook', hookPath), ...(t.operation === 'upload' ? [readFile] : []), t.node];
		return { ...t, hookPath, workflow: { ...chain(nodes), id: workflowId(name), name, active: false, settings: { executionOrder: 'v1' } } };
	});
}

export async function benchFiles(inst: N8nInstall, userFolder: string, env: NodeJS.ProcessEnv, sim: Simulator, rounds: number): Promise<FileRound[]> {
	const dataDir = path.join(userFolder, 'bench-files');
	fs.mkdirSync(dataDir, { recursive: true });
	const bigFile = path.join(dataDir, 'bench-256mib.pdf');
	const warmFile = path.join(dataDir, 'bench-warmup.pdf');
	const t = Date.now();
	const bigSha = writeFile(bigFile, BIG_FILE_BYTES);
	writeFile(warmFile, WARMUP_BYTES);
	log(`  wrote ${path.basename(bigFile)} (${BIG_FILE_BYTES / MiB} MiB) in ${Date.now() - t} ms`);

	const kb = sim.state.addKnowledgeBase({ name: 'bench files' });
	const bigStored = sim.state.addKnowledgeFile(kb.id, { name: 'bench-256mib.pdf', content: fs.readFileSync(bigFile), mimeType: 'application/pdf' });
	const warmStored = sim.state.addKnowledgeFile(kb.id, { name: 'bench-warmup.pdf', content: fs.readFileSync(warmFile), mimeType: 'application/pdf' });

	const workDir = path.join(userFolder, 'bench-input-files');
	fs.mkdirSync(workDir, { recursive: true });
	await importCredentials(inst, env, [
		{ ...knowledgeCred, data: { knowledgeUrl: sim.knowledgeUrl, apiKey: sim.credentials.knowledgeApiKey } },
		{ ...apiKeyCred, data: { name: 'x-api-key', value: sim.credentials.knowledgeApiKey } },
	], workDir);
	// Warm-up workflows: the same paths on the 1 MiB file, with their own webhooks.
	const plans = workflows(kb.id, bigStored.id, sim.knowledgeUrl);
	const warmPlans = workflows(kb.id, warmStored.id, sim.knowledgeUrl, '-warmup');
	await importWorkflows(inst, env, [...plans, ...warmPlans].map((p) => p.workflow), workDir);

	// n8n 1 keeps files under .n8n/binaryData, n8n 2 under .n8n/storage.
	const binaryDirs = ['binaryData', 'storage'].map((dir) => path.join(userFolder, '.n8n', dir));
	let ownerReady = false;
	const start = async (mode: BinaryMode): Promise<N8nServer> => {
		const env = {
			EXECUTIONS_DATA_PRUNE: 'false',
			N8N_RESTRICT_FILE_ACCESS_TO: dataDir,
			N8N_DEFAULT_BINARY_DATA_MODE: mode,
			N8N_AVAILABLE_BINARY_DATA_MODES: 'filesystem,database',
		};
		const server = await startN8nServer(inst, { userFolder, logLevel: 'warn', env, startTimeoutMs: 180_000 });
		if (ownerReady) await server.login();
		else {
			await server.setupOwner();
			for (const p of [...plans, ...warmPlans]) {
				const wf = await server.rest<{ versionId?: string }>('GET', `/workflows/${p.workflow.id}`);
				await server.rest('POST', `/workflows/${p.workflow.id}/activate`, { versionId: wf.versionId });
			}
			ownerReady = true;
		}
		return server;
	};
	const call = async (server: N8nServer, hookPath: string, file: string) => {
		const { status, text } = await fetchWebhook(`${server.url}/webhook/${hookPath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ file }),
		});
		if (status !== 200) throw new Error(`webhook ${hookPath} answered ${status}: ${text.slice(0, 500)}`);
	};
	const lastExecution = async (server: N8nServer, workflowIdValue: string) => {
		const id = (await server.executions({ workflowId: workflowIdValue }, 1)).results[0]?.id;
		if (!id) throw new Error(`no execution of ${workflowIdValue}`);
		return await server.rest<{ data?: unknown; status?: string }>('GET', `/executions/${id}`);
	};

	const results: FileRound[] = [];
	for (const mode of BINARY_MODES) for (let round = 1; round <= rounds; round++) {
		for (const [i, plan] of plans.entries()) {
			for (const dir of binaryDirs) fs.rmSync(dir, { recursive: true, force: true });
			const server = await start(mode);
			try {
				// Earlier runs' files kept in the database (database mode) go with their executions.
				await server.rest('POST', '/executions/delete', { deleteBefore: new Date().toISOString() }).catch(() => undefined);
				const pid = server.pid!;
				await call(server, warmPlans[i].hookPath, warmFile);
				await sleep(3000);
				const idle = memoryOf(pid).rss;
				resetPeak(pid);
				sim.log.clear();
				await call(server, plan.hookPath, bigFile);
				await sleep(500);
				const peak = memoryOf(pid).peak;
				const exec = await lastExecution(server, plan.workflow.id);
				const run = nodeRun(inst, exec, 'Transfer');
				if (exec.status && exec.status !== 'success') throw new Error(`${plan.workflow.name}: execution ${exec.status}`);
				let intact = false;
				if (plan.operation === 'upload') {
					const stored = sim.state.knowledgeFiles(kb.id).filter((f) => f.id !== bigStored.id && f.id !== warmStored.id);
					const big = stored.find((f) => f.size === BIG_FILE_BYTES);
					intact = big?.sha256 === bigSha;
					for (const f of stored) sim.state.deleteKnowledgeFile(kb.id, f.id);
				} else {
					const ref = (run as { data?: { main?: Array<Array<{ binary?: Record<string, { id?: string }> }>> } } | undefined)?.data?.main?.[0]?.[0]?.binary?.data;
					const served = ref?.id ? await sha256Served(server, ref.id) : undefined;
					// The id names the store n8n used: `filesystem-v2:…` or `database:…`.
					intact = served?.bytes === BIG_FILE_BYTES && served.sha256 === bigSha && ref!.id!.startsWith(mode === 'filesystem' ? 'filesystem-v2:' : 'database:');
				}
				const r: FileRound = {
					mode,
					operation: plan.operation,
					side: plan.side,
					idleRss: idle,
					peakRss: peak,
					aboveIdle: peak - idle,
					nodeMs: run?.executionTime ?? NaN,
					intact,
				};
				results.push(r);
				log(`  ${mode} round ${round} ${plan.operation} ${plan.side}: ${r.nodeMs} ms, idle ${(idle / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB (+${(r.aboveIdle / MiB).toFixed(0)}), intact ${intact}`);
			} finally {
				await server.stop();
			}
		}
	}
	for (const dir of binaryDirs) fs.rmSync(dir, { recursive: true, force: true });
	fs.rmSync(dataDir, { recursive: true, force: true });
	return results;
}

export function filesSection(rounds: FileRound[], n8nLabel: string): string[] {
	const lines = [`## (b) Knowledge file upload and download, 256 MiB: Workplace Knowledge vs HTTP Request (${n8nLabel})`, ''];
	lines.push(
		'`n8n start` in each binary data mode (`N8N_DEFAULT_BINARY_DATA_MODE`). Upload: Webhook → Read/Write Files from Disk (the 256 MiB file) → the uploading node; download: Webhook → the downloading node (binary into n8n\'s store). HTTP Request (v4.2) sends multipart/form-data with the binary field `file` and a Header Auth `x-api-key` credential; on download its response format is File. A fresh n8n per measured run: a 1 MiB warm-up run of the same path, 3 s idle, then RSS of n8n\'s main process read ("idle"), its peak reset, and the 256 MiB run. "Above idle" = peak RSS during the run − idle RSS. Time = the transfer node\'s execution time as n8n records it. Intact: the simulator received the file\'s sha256 (upload); n8n serves the stored binary with the file\'s sha256 through `GET /rest/binary-data`, as the editor downloads it (download).',
		'',
	);
	lines.push('| mode | operation | node | time (ms) | MiB/s | peak RSS above idle (MiB) | idle RSS (MiB) | intact |');
	lines.push('|---|---|---|---|---|---|---|---|');
	for (const mode of BINARY_MODES) {
		for (const operation of ['upload', 'download'] as const) {
			for (const side of ['workplaceKnowledge', 'httpRequest'] as const) {
				const rs = rounds.filter((r) => r.mode === mode && r.operation === operation && r.side === side);
				if (!rs.length) continue;
				lines.push(
					`| ${mode} | ${operation} | ${side === 'workplaceKnowledge' ? 'Workplace Knowledge' : 'HTTP Request'} | ${stat(rs.map((r) => r.nodeMs), 0)} | ${stat(rs.map((r) => BIG_FILE_BYTES / MiB / (r.nodeMs / 1000)), 0)} | ${stat(rs.map((r) => r.aboveIdle / MiB), 0)} | ${stat(rs.map((r) => r.idleRss / MiB), 0)} | ${rs.map((r) => (r.intact ? 'yes' : 'NO')).join(', ')} |`,
				);
			}
		}
	}
	lines.push('');
	return lines;
}
