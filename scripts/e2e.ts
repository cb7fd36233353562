/**
 * End-to-end tests in real n8n: this package installed as a community package, workflows run
 * headlessly with `n8n execute` against the in-process platform simulator.
 *
 *   npm run test:e2e                          # n8n 1.x (Node 20) and 2.x (Node 24)
 *   E2E_TARGETS=2 npm run test:e2e            # one major
 *   E2E_TARGETS=2.20.12 npm run test:e2e      # any n8n 1.x or 2.x release (installed on first use)
 *   E2E_SCENARIOS=knowledge npm run test:e2e  # scenarios whose name contains a text (comma list)
 *   npm run test:compat                       # --compat: the compatibility suite (below)
 *
 * Compatibility suite (`--compat`, docs/compatibility.md): on each release of COMPAT_VERSIONS
 * (scripts/lib/n8n/targets.ts; E2E_TARGETS=compat-ci for CI's, or any list), the package load
 * (the server check) and the scenarios marked `compat`, each in its short form (ctx.short): one
 * short run of every feature that relies on n8n's internals. The install and secrets checks are
 * off unless E2E_INSTALL=1 / E2E_SECRETS=1.
 *
 * Other switches: E2E_KEEP=1 keeps the user folders (printed), E2E_VERBOSE=1 echoes n8n's output,
 * E2E_NO_INSTALL=1 fails instead of installing a missing n8n, E2E_SIMULATOR_MODULE=<path> loads
 * another simulator module than build/simulator/index.js.
 *
 * Per target: ensure the cached n8n install, install the `npm pack` tarball into a throwaway
 * N8N_USER_FOLDER as n8n's Community Nodes panel does, start the simulator, import all scenarios'
 * credentials and workflows, then `n8n execute --id=<id> --rawOutput` each scenario and assert;
 * then `n8n start` on that user folder (server check, E2E_SERVER=0 skips it), and a fresh n8n that
 * installs the tarball through its own Community Nodes install endpoint from a local npm registry
 * (test/e2e/install-check.ts; E2E_INSTALL=0 skips it).
 * Last line: `N passed, M failed`; exit code 1 on any failure.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	createUserFolder,
	declaredTypes,
	ensureN8n,
	executeWorkflow,
	findInstalled,
	importCredentials,
	importWorkflows,
	installCommunityPackage,
	n8nEnv,
	packPackage,
	parseTargets,
	repoRoot,
	startN8nServer,
	type N8nInstall,
	type N8nTarget,
} from './lib/n8n';
import { formatDuration, getFreePort, tail } from './lib/proc';
import type {
	BinaryRef,
	E2eSimulator,
	NodeRunInfo,
	OutputItem,
	Scenario,
	ScenarioContext,
	ScenarioResult,
} from '../test/e2e/types';
import { assertNoFallback } from '../test/e2e/fallbacks';
import { communityInstallCheck, INSTALL_CHECK_NAME } from '../test/e2e/install-check';
import { workflowId } from '../test/e2e/workflow';
import { collectSecrets, fileHaystacks, scanForSecrets, type Haystack } from '../test/e2e/secret-scan';

const env = process.env;
const COMPAT = process.argv.includes('--compat');
const VERBOSE = env.E2E_VERBOSE === '1' || env.E2E_VERBOSE === 'true';
const KEEP = env.E2E_KEEP === '1' || env.E2E_KEEP === 'true';
const SERVER_CHECK = env.E2E_SERVER !== '0' && env.E2E_SERVER !== 'false';
/** A switch: on unless set to 0/false (off unless set to 1/true in the compatibility suite). */
const checkSwitch = (value: string | undefined) => (COMPAT ? value === '1' || value === 'true' : value !== '0' && value !== 'false');
const INSTALL_CHECK = checkSwitch(env.E2E_INSTALL);
const SECRETS_CHECK = checkSwitch(env.E2E_SECRETS);
const SECRETS_CHECK_NAME = "secrets: no credential value in n8n's logs, printed output items and errors, or database";

interface Outcome {
	/** The n8n version. */
	target: string;
	scenario: string;
	status: 'passed' | 'failed' | 'skipped';
	durationMs: number;
	message?: string;
}

const outcomes: Outcome[] = [];
/** Wall time of each target, install included. */
const targetTimes: Array<{ version: string; ms: number }> = [];

function log(m = ''): void {
	process.stdout.write(`${m}\n`);
}

function indent(text: string, by = '      '): string {
	return text
		.split('\n')
		.map((l) => by + l)
		.join('\n');
}

// ---------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------

function loadScenarios(): Scenario[] {
	const dir = path.join(repoRoot(), 'build', 'test', 'e2e', 'scenarios');
	if (!fs.existsSync(dir)) throw new Error(`${dir} is missing: run \`npm run build:tools\``);
	const files = fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.js'))
		.sort();
	const all: Scenario[] = [];
	for (const f of files) {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const mod = require(path.join(dir, f)) as {
			scenario?: Scenario;
			scenarios?: Scenario[];
			default?: Scenario | Scenario[];
		};
		const found = [mod.scenario, ...(mod.scenarios ?? []), ...[mod.default ?? []].flat()].filter(
			(s): s is Scenario => Boolean(s && typeof s === 'object' && 'name' in s && 'workflow' in s),
		);
		all.push(...found);
	}
	const names = new Set<string>();
	for (const s of all) {
		if (names.has(s.name)) throw new Error(`Two scenarios are named "${s.name}"`);
		names.add(s.name);
	}
	const filter = (env.E2E_SCENARIOS ?? '')
		.split(',')
		.map((s) => s.trim().toLowerCase())
		.filter(Boolean);
	const selected = COMPAT ? all.filter((s) => s.compat) : all;
	return filter.length ? selected.filter((s) => filter.some((f) => s.name.toLowerCase().includes(f))) : selected;
}

type StartSimulator = (options: { port: number }) => Promise<E2eSimulator>;

function loadSimulator(): StartSimulator {
	const file = env.E2E_SIMULATOR_MODULE
		? path.resolve(env.E2E_SIMULATOR_MODULE)
		: path.join(repoRoot(), 'build', 'simulator', 'index.js');
	if (!fs.existsSync(file)) throw new Error(`Simulator module ${file} is missing: run \`npm run build:tools\``);
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const mod = require(file) as { startSimulator?: StartSimulator };
	if (typeof mod.startSimulator !== 'function') throw new Error(`${file} does not export startSimulator()`);
	return mod.startSimulator;
}

// ---------------------------------------------------------------------------
// Execution results
// ---------------------------------------------------------------------------

interface RawTaskData {
	executionStatus?: string;
	executionTime?: number;
	error?: NodeRunInfo['error'];
	data?: { main?: Array<OutputItem[] | null> };
	startTime?: number;
}

interface RawRun {
	status?: string;
	data?: {
		resultData?: {
			error?: ScenarioResult['error'];
			lastNodeExecuted?: string;
			runData?: Record<string, RawTaskData[]>;
		};
	};
}

/** Where n8n keeps filesystem binary data: 1.x `<user folder>/.n8n/binaryData`, 2.x `.n8n/storage`. */
function binaryDataFile(userFolder: string, fileId: string): string {
	const roots = [path.join(userFolder, '.n8n', 'storage'), path.join(userFolder, '.n8n', 'binaryData')];
	const found = roots.map((r) => path.join(r, fileId)).find((f) => fs.existsSync(f));
	if (!found) throw new Error(`Binary data ${fileId} is in none of ${roots.join(', ')}`);
	return found;
}

function buildResult(raw: unknown, durationMs: number, userFolder: string): ScenarioResult {
	const run = (raw ?? {}) as RawRun;
	const resultData = run.data?.resultData ?? {};
	const runData = resultData.runData ?? {};
	const runs: Record<string, NodeRunInfo[]> = {};
	const order: Array<[string, number]> = [];
	for (const [name, tasks] of Object.entries(runData)) {
		runs[name] = tasks.map((t) => ({
			executionStatus: t.executionStatus,
			executionTime: t.executionTime,
			error: t.error,
			outputs: (t.data?.main ?? []).map((o) => o ?? []),
		}));
		order.push([name, tasks[0]?.startTime ?? 0]);
	}
	const items = (nodeName: string, o: { run?: number; output?: number } = {}): OutputItem[] => {
		const r = runs[nodeName];
		if (!r?.length) {
			throw new Error(`Node "${nodeName}" did not run (ran: ${Object.keys(runs).join(', ') || 'nothing'})`);
		}
		const task = r[o.run ?? r.length - 1];
		if (!task) throw new Error(`Node "${nodeName}" has no run ${o.run}`);
		if (task.error) throw new Error(`Node "${nodeName}" failed: ${task.error.message ?? JSON.stringify(task.error)}`);
		return task.outputs[o.output ?? 0] ?? [];
	};
	const error = resultData.error;
	return {
		status: error || run.status === 'error' || raw === undefined ? 'error' : 'success',
		error,
		lastNodeExecuted: resultData.lastNodeExecuted,
		executedNodes: order.sort((a, b) => a[1] - b[1]).map(([n]) => n),
		runs,
		items,
		json: (n, o) => items(n, o).map((i) => i.json),
		readBinary: async (ref: BinaryRef) => {
			if (ref.id) {
				const [mode, ...rest] = ref.id.split(':');
				const fileId = rest.join(':');
				if (mode !== 'filesystem' && mode !== 'filesystem-v2') throw new Error(`Cannot read binary data of mode ${mode}`);
				return fs.promises.readFile(binaryDataFile(userFolder, fileId));
			}
			if (typeof ref.data === 'string') return Buffer.from(ref.data, 'base64');
			throw new Error(`Binary reference has neither id nor data: ${JSON.stringify(ref)}`);
		},
		raw,
		durationMs,
	};
}

function describeFailure(result: ScenarioResult | undefined, stdout: string, stderr: string): string {
	const parts: string[] = [];
	if (result?.error) {
		const e = result.error;
		parts.push(
			`workflow error${e.node?.name ? ` in node "${e.node.name}"` : ''}: ${e.message ?? ''}${e.description ? ` (${e.description})` : ''}`,
		);
	}
	if (result) {
		for (const [name, tasks] of Object.entries(result.runs)) {
			for (const t of tasks) if (t.error) parts.push(`node "${name}" error: ${t.error.message ?? JSON.stringify(t.error)}`);
		}
		parts.push(`nodes run: ${result.executedNodes.join(' -> ') || '(none)'}`);
	}
	if (!result || result.raw === undefined || VERBOSE) {
		parts.push(`--- n8n stdout (tail) ---\n${tail(stdout, 30)}\n--- n8n stderr (tail) ---\n${tail(stderr, 30)}`);
	}
	return parts.join('\n');
}

// ---------------------------------------------------------------------------
// Server check: `n8n start` with the same user folder loads every node and credential
// ---------------------------------------------------------------------------

const SERVER_CHECK_NAME = 'server: n8n start loads every node and credential of the package';

async function serverCheck(inst: N8nInstall, userFolder: string): Promise<string> {
	const expected = declaredTypes();
	if (!expected.nodes.length) throw new Error('package.json declares no nodes');
	const server = await startN8nServer(inst, { userFolder, logLevel: 'warn' });
	try {
		await server.setupOwner();
		const nodeTypes = (await (await server.fetch('/types/nodes.json')).json()) as Array<{ name: string; version: number | number[] }>;
		const credTypes = (await (await server.fetch('/types/credentials.json')).json()) as Array<{ name: string }>;
		const nodeNames = new Set(nodeTypes.map((n) => n.name));
		const credNames = new Set(credTypes.map((c) => c.name));
		const missing = [
			...expected.nodes.filter((n) => !nodeNames.has(n)).map((n) => `node ${n}`),
			...expected.credentials.filter((c) => !credNames.has(c)).map((c) => `credential ${c}`),
		];
		if (missing.length) throw new Error(`n8n start did not load: ${missing.join(', ')}`);
		return `${expected.nodes.length} node(s), ${expected.credentials.length} credential(s) on ${server.url}`;
	} catch (e) {
		throw new Error(`${(e as Error).message}\n--- n8n start output (tail) ---\n${tail(server.output(), 30)}`);
	} finally {
		await server.stop();
	}
}

// ---------------------------------------------------------------------------
// One target
// ---------------------------------------------------------------------------

/** What the steps of one target share once n8n, the package and the simulator are set up. */
interface TargetRun {
	/** The n8n version (what outcomes are recorded under). */
	id: string;
	inst: N8nInstall;
	userFolder: string;
	n8nEnvironment: NodeJS.ProcessEnv;
	ctx: ScenarioContext;
	/** Where the credentials and workflows import files are written. */
	workDir: string;
	/** Where every n8n process of this target logs, for the secrets check. */
	logDir: string;
	/** What `n8n execute` printed, for the secrets check. */
	printed: Haystack[];
}

/** Step 1: the cached n8n install (installed now unless E2E_NO_INSTALL). */
async function installN8n(target: N8nTarget, label: string): Promise<N8nInstall> {
	const t = Date.now();
	const cached = findInstalled(target);
	if (!cached && (env.E2E_NO_INSTALL === '1' || env.E2E_NO_INSTALL === 'true')) {
		throw new Error(`${label} is not installed; run \`npm run n8n:install\``);
	}
	const inst = cached ?? (await ensureN8n(target, { log: (m) => log(`  ${m}`) }));
	log(`  n8n ${target.n8nVersion} under Node ${inst.node.version}${cached ? ' (cached)' : ''}: ${formatDuration(Date.now() - t)}`);
	return inst;
}

/** Step 2: the package installed into the user folder the Community Nodes way. */
async function installPackage(inst: N8nInstall, userFolder: string, tarball: string): Promise<void> {
	const t = Date.now();
	const pkg = await installCommunityPackage(inst, userFolder, tarball);
	log(`  community package ${pkg.name}@${pkg.version} -> ${path.relative(userFolder, pkg.dir)}: ${formatDuration(Date.now() - t)}`);
}

/** Step 4: every scenario's credentials and workflows imported (one n8n process each for all scenarios). */
async function importScenarios(run: TargetRun, applicable: Scenario[]): Promise<void> {
	const { inst, n8nEnvironment, ctx, workDir } = run;
	const t = Date.now();
	const creds = new Map<string, Record<string, unknown>>();
	for (const s of applicable) {
		for (const c of s.credentials ?? []) {
			const entry = { id: c.id, name: c.name, type: c.type, data: c.data(ctx) };
			const prev = creds.get(c.id);
			if (prev && JSON.stringify(prev) !== JSON.stringify(entry)) {
				throw new Error(`Credential id ${c.id} is declared twice with different contents`);
			}
			creds.set(c.id, entry);
		}
	}
	if (creds.size) await importCredentials(inst, n8nEnvironment, [...creds.values()], workDir);
	const workflows = applicable.map((s) => {
		const wf = s.workflow(ctx);
		return {
			...wf,
			id: workflowId(s.name),
			name: `e2e: ${s.name}`,
			active: false,
			settings: { executionOrder: 'v1', ...(wf.settings ?? {}) },
		};
	});
	await importWorkflows(inst, n8nEnvironment, workflows, workDir);
	log(`  imported ${creds.size} credential(s) and ${workflows.length} workflow(s): ${formatDuration(Date.now() - t)}`);
}

/** Step 5, one scenario: `n8n execute` its workflow and run its assertions; records the outcome. */
async function runScenario(run: TargetRun, s: Scenario): Promise<void> {
	const { id, inst, n8nEnvironment, ctx, userFolder, printed } = run;
	const sim = ctx.sim;
	const started = Date.now();
	let result: ScenarioResult | undefined;
	let stdout = '';
	let stderr = '';
	let afterDone = false;
	try {
		sim.log.clear();
		sim.faults?.clear();
		await s.before?.(ctx);
		const exec = await executeWorkflow(inst, n8nEnvironment, workflowId(s.name), s.timeoutMs);
		stdout = exec.run.stdout;
		stderr = exec.run.stderr;
		printed.push({ label: `n8n execute output of "${s.name}"`, text: `${stdout}\n${stderr}` });
		if (VERBOSE) log(indent(`--- n8n output ---\n${stdout}\n${stderr}`));
		if (exec.run.timedOut) throw new Error(`n8n execute timed out after ${formatDuration(exec.run.durationMs)}`);
		result = buildResult(exec.data, exec.run.durationMs, userFolder);
		if (exec.data === undefined) {
			throw new Error(`n8n execute printed no execution data (exit ${exec.run.code ?? exec.run.signal})`);
		}
		if (!s.expectError && result.status !== 'success') throw new Error('the workflow ended with an error');
		if (s.expectError && result.status === 'success') throw new Error('the workflow succeeded but an error was expected');
		await s.assert(result, ctx);
		// No internal of n8n the package relies on is missing (test/e2e/fallbacks.ts).
		assertNoFallback(`${stdout}\n${stderr}`, `n8n execute of "${s.name}"`);
		afterDone = true;
		await s.after?.(ctx);
		const ms = Date.now() - started;
		outcomes.push({ target: id, scenario: s.name, status: 'passed', durationMs: ms });
		log(`  ✓ ${s.name} (${formatDuration(ms)}; n8n execute ${formatDuration(exec.run.durationMs)})`);
	} catch (e) {
		if (!afterDone) await Promise.resolve(s.after?.(ctx)).catch((a: unknown) => log(`      (after() failed too: ${String(a)})`));
		const ms = Date.now() - started;
		const message = `${(e as Error).message ?? String(e)}\n${describeFailure(result, stdout, stderr)}`;
		outcomes.push({ target: id, scenario: s.name, status: 'failed', durationMs: ms, message });
		log(`  ✗ ${s.name} (${formatDuration(ms)})`);
		log(indent(message));
		if ((e as Error).stack && !(e as { code?: string }).code?.startsWith('ERR_ASSERTION')) {
			log(indent(((e as Error).stack ?? '').split('\n').slice(1, 6).join('\n')));
		}
	}
}

/** Runs a target-wide check and records it like a scenario; `run` returns what the ✓ line says. */
async function recordCheck(id: string, name: string, run: (started: number) => Promise<string>): Promise<void> {
	const started = Date.now();
	try {
		const what = await run(started);
		const ms = Date.now() - started;
		outcomes.push({ target: id, scenario: name, status: 'passed', durationMs: ms });
		log(`  ✓ ${name}: ${what} (${formatDuration(ms)})`);
	} catch (e) {
		const ms = Date.now() - started;
		const message = (e as Error).message ?? String(e);
		outcomes.push({ target: id, scenario: name, status: 'failed', durationMs: ms, message });
		log(`  ✗ ${name} (${formatDuration(ms)})`);
		log(indent(message));
	}
}

/** Step 7: a fresh n8n installs the tarball itself, from a local npm registry (test/e2e/install-check.ts). */
async function installCheck(inst: N8nInstall, tarball: string, startSimulator: StartSimulator, started: number): Promise<string> {
	const what = await communityInstallCheck(inst, {
		tarball,
		expected: declaredTypes(),
		startSimulator,
		keep: KEEP,
		verbose: VERBOSE,
		log: (m) => log(`    ${m}`),
	});
	return `${what}; adds ${formatDuration(Date.now() - started)} (two n8n starts; E2E_INSTALL=0 skips it)`;
}

/** Step 8: no credential value anywhere a user or an operator can see. */
async function secretsCheck(run: TargetRun, applicable: Scenario[]): Promise<string> {
	const { ctx, printed, logDir, userFolder, workDir } = run;
	const credentials = applicable.flatMap((s) => s.credentials ?? []);
	const secrets = collectSecrets(ctx, credentials);
	if (secrets.length < 5) throw new Error(`only ${secrets.length} secret value(s) to search for`);
	const haystacks = [...printed, ...fileHaystacks(logDir, userFolder)];
	if (!haystacks.some((h) => h.label.startsWith('n8n log'))) throw new Error(`n8n wrote no log file to ${logDir}`);
	// Control: the same search finds every credential value in the import file n8n read
	// (none is written when the selected scenarios only create credentials over REST).
	const imported = collectSecrets(ctx, credentials, { credentialsOnly: true });
	const importFile = path.join(workDir, 'credentials.json');
	const control = imported.length ? scanForSecrets([{ label: 'credentials import file', file: importFile }], imported) : { findings: [] };
	if (control.findings.length !== imported.length) {
		throw new Error(`the search found ${control.findings.length} of ${imported.length} credential values in the import file`);
	}
	const { findings, bytes } = scanForSecrets(haystacks, secrets);
	if (findings.length) {
		throw new Error(`credential values found:\n${findings.map((f) => `- ${f.secret} in ${f.where}: …${f.context}…`).join('\n')}`);
	}
	return `${secrets.length} values, ${haystacks.length} sources, ${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function runTarget(target: N8nTarget, scenarios: Scenario[], tarball: string, startSimulator: StartSimulator) {
	const id = target.n8nVersion;
	const label = `n8n ${target.n8nVersion}`;
	const applicable = scenarios.filter((s) => !s.targets || s.targets.includes(target.major));
	for (const s of scenarios) {
		if (!applicable.includes(s)) outcomes.push({ target: id, scenario: s.name, status: 'skipped', durationMs: 0 });
	}
	log(`\n=== ${label} (${target.id === target.major ? `target ${target.id}` : `n8n ${target.major}.x`}) — ${applicable.length} scenario(s) ===`);
	if (!applicable.length) return;

	const setupFailed = (step: string, e: unknown) => {
		const message = `${step} failed: ${(e as Error).stack ?? String(e)}`;
		log(`  ✗ ${message.split('\n')[0]}`);
		log(indent(message.split('\n').slice(1).join('\n')));
		for (const s of applicable) outcomes.push({ target: id, scenario: s.name, status: 'failed', durationMs: 0, message });
		if (SERVER_CHECK) outcomes.push({ target: id, scenario: SERVER_CHECK_NAME, status: 'failed', durationMs: 0, message });
		if (INSTALL_CHECK) outcomes.push({ target: id, scenario: INSTALL_CHECK_NAME, status: 'failed', durationMs: 0, message });
		if (SECRETS_CHECK) outcomes.push({ target: id, scenario: SECRETS_CHECK_NAME, status: 'failed', durationMs: 0, message });
	};

	// 1. n8n install
	let inst: N8nInstall;
	try {
		inst = await installN8n(target, label);
	} catch (e) {
		return setupFailed('n8n install', e);
	}

	// 2. user folder with the package installed the Community Nodes way
	const userFolder = createUserFolder(`n8n-e2e-${target.id}-`);
	// Every n8n process of this target also logs to a file here (debug), for the secrets check.
	const logDir = path.join(userFolder, 'e2e-logs');
	if (SECRETS_CHECK) process.env.WORKPLACE_N8N_LOG_DIR = logDir;
	let sim: E2eSimulator | undefined;
	try {
		try {
			await installPackage(inst, userFolder, tarball);
		} catch (e) {
			return setupFailed('community package install', e);
		}

		// 3. simulator
		try {
			sim = await startSimulator({ port: 0 });
		} catch (e) {
			return setupFailed('simulator start', e);
		}
		const ctx: ScenarioContext = {
			sim,
			target: target.major,
			n8nVersion: target.n8nVersion,
			short: COMPAT,
			nodeVersion: inst.node.version,
			userFolder,
		};
		const n8nEnvironment = n8nEnv(inst, {
			userFolder,
			logLevel: VERBOSE ? 'debug' : 'info',
			env: { N8N_RUNNERS_BROKER_PORT: String(await getFreePort()), N8N_PORT: String(await getFreePort()) },
		});
		const workDir = path.join(userFolder, 'e2e-input');
		fs.mkdirSync(workDir, { recursive: true });
		const run: TargetRun = { id, inst, userFolder, n8nEnvironment, ctx, workDir, logDir, printed: [] };

		// 4. import credentials and workflows
		try {
			await importScenarios(run, applicable);
		} catch (e) {
			return setupFailed('import', e);
		}

		// 5. scenarios
		for (const s of applicable) await runScenario(run, s);

		// 6. the same user folder under `n8n start`
		if (SERVER_CHECK) await recordCheck(id, SERVER_CHECK_NAME, () => serverCheck(inst, userFolder));

		// 7. a fresh n8n installs the tarball itself
		if (INSTALL_CHECK) await recordCheck(id, INSTALL_CHECK_NAME, (started) => installCheck(inst, tarball, startSimulator, started));

		// 8. no credential value anywhere a user or an operator can see
		if (SECRETS_CHECK) await recordCheck(id, SECRETS_CHECK_NAME, () => secretsCheck(run, applicable));
	} finally {
		delete process.env.WORKPLACE_N8N_LOG_DIR;
		await sim?.close().catch((e: unknown) => log(`  (simulator close failed: ${String(e)})`));
		if (KEEP) log(`  user folder kept: ${userFolder}`);
		else fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

// ---------------------------------------------------------------------------

async function main(): Promise<number> {
	const started = Date.now();
	const targets = parseTargets(env.E2E_TARGETS, COMPAT ? 'compat' : '1,2');
	log(`${COMPAT ? 'compat' : 'e2e'}: targets ${targets.map((t) => `n8n ${t.n8nVersion}`).join(', ')}`);

	let scenarios: Scenario[];
	let startSimulator: StartSimulator;
	let tarball: string;
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-pack-'));
	try {
		scenarios = loadScenarios();
		log(`${COMPAT ? 'compat' : 'e2e'}: ${scenarios.length} scenario(s)${COMPAT ? ' (short form)' : ''}: ${scenarios.map((s) => s.name).join('; ')}`);
		if (!scenarios.length) throw new Error('no scenarios found (or none match E2E_SCENARIOS)');
		startSimulator = loadSimulator();
		const t = Date.now();
		tarball = await packPackage(tmp);
		log(`e2e: packed ${path.basename(tarball)} (${(fs.statSync(tarball).size / 1024).toFixed(1)} KiB): ${formatDuration(Date.now() - t)}`);
	} catch (e) {
		log(`e2e setup failed: ${(e as Error).stack ?? String(e)}`);
		log('0 passed, 1 failed');
		return 1;
	}

	try {
		for (const target of targets) {
			const t = Date.now();
			await runTarget(target, scenarios, tarball, startSimulator);
			targetTimes.push({ version: target.n8nVersion, ms: Date.now() - t });
		}
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}

	const passed = outcomes.filter((o) => o.status === 'passed').length;
	const failed = outcomes.filter((o) => o.status === 'failed').length;
	const skipped = outcomes.filter((o) => o.status === 'skipped').length;
	log(`\n=== ${COMPAT ? 'compat' : 'e2e'} summary (${formatDuration(Date.now() - started)}) ===`);
	for (const o of outcomes) {
		const mark = o.status === 'passed' ? '✓' : o.status === 'failed' ? '✗' : '-';
		log(`  ${mark} [n8n ${o.target}] ${o.scenario}${o.status === 'skipped' ? ' (skipped)' : ` (${formatDuration(o.durationMs)})`}`);
	}
	for (const { version, ms } of targetTimes) {
		const mine = outcomes.filter((o) => o.target === version);
		const count = (status: Outcome['status']) => mine.filter((o) => o.status === status).length;
		log(`  n8n ${version}: ${count('passed')} passed, ${count('failed')} failed in ${formatDuration(ms)} (install included when it ran)`);
	}
	log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
	return failed > 0 || passed === 0 ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(e) => {
		console.error(e);
		log('0 passed, 1 failed');
		process.exit(1);
	},
);
