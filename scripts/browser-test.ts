/**
 * Browser test: n8n's editor in Debian's Chromium, driven by playwright-core.
 *
 *   npm run test:browser        (after `npm run build`; builds the tools itself)
 *
 * Sets up what `npm run dev` serves (this package installed as a community package, the simulator,
 * the five simulator credentials and examples/ imported, the owner account) on free ports with a
 * throwaway user folder, then in the browser: signs in, checks the example workflows are listed,
 * creates a workflow, searches "Workplace" in the nodes panel (five entries, each with this
 * package's icon), adds each node through one of its actions, checks its parameters panel (title,
 * simulator credential selected, the node's one version (1; the trigger 1.1); the From List entries of Knowledge's knowledge base and of Bot's
 * Send to Thread, whose Thread list starts with "Main Chat") and saves a screenshot of it, saves the workflow and checks the
 * five nodes after a reload, and opens the team assistant example (its canvas: screenshot
 * team-assistant.png, on n8n 2 only: BROWSER_TEST_N8N=2 BROWSER_TEST_OUT=<dir>, then copy that one file, as
 * the other screenshots show n8n 1.123). Then Workplace Bot's Send and Wait for Response in the same n8n: an
 * active workflow (Webhook -> Send and Wait -> After) per response type, started through its
 * webhook; chromium opens the Approve link the simulator got (the "recorded" page renders, the
 * next node gets {data: {approved: true, responder: {source: 'link'}, respondedAt, messageId, groupId, threadId}}) and a custom form's Respond link (the form renders,
 * screenshot send-and-wait-form.png, filled in and submitted by chromium: the "recorded" page, the
 * next node gets the answers). Screenshots go to docs/screenshots/ (the README shows them).
 *
 * Chromium: /usr/bin/chromium, installed with apt-get when missing (test/browser/chromium.ts);
 * Playwright never downloads a browser.
 *
 * Environment:
 *   BROWSER_TEST_N8N=1|2     n8n major to start (default 1: n8n 1.123.50 on this Node)
 *   BROWSER_TEST_URL=<url>   use a running n8n instead (e.g. `npm run dev`: http://localhost:5678);
 *                            BROWSER_TEST_EMAIL / BROWSER_TEST_PASSWORD (default: the dev owner);
 *                            the Send and Wait pages are then skipped (they need the test's simulator)
 *   BROWSER_TEST_OUT=<dir>   where screenshots go (default docs/screenshots)
 *   BROWSER_TEST_HEADED=1    show the browser (needs a display); BROWSER_TEST_KEEP=1 keeps the user folder
 *   CHROMIUM_PATH=<file>     another Chromium binary
 * On failure: a screenshot of the page at build/browser-test/failure.png and n8n's last output lines.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { chromium, type Browser, type Page } from 'playwright-core';

import { nodeRun } from '../bench/lib';
import { SEED } from '../simulator/seed';
import type { RequestLogApi } from '../simulator/types';
import { askWorkflow, executionIdOf, pushedTemplate } from '../test/e2e/scenarios/send-and-wait';
import { createActiveWorkflowIn } from '../test/e2e/trigger-server';

import { importExamples, loadExamples, type SimulatorInfo } from './lib/examples';
import {
	createUserFolder,
	E2E_OWNER,
	ensureN8n,
	fetchWebhook,
	installCommunityPackage,
	packPackage,
	parseTargetIds,
	repoRoot,
	startN8nServer,
	TARGETS,
	type N8nInstall,
	type N8nServer,
} from './lib/n8n';
import { formatDuration, getFreePort, sleep, tail } from './lib/proc';
import { CHROMIUM_ARGS, ensureChromium } from '../test/browser/chromium';
import {
	addNodeWithAction,
	canvasNodes,
	closeNdv,
	fillParameter,
	dismissPopups,
	newWorkflow,
	openResourceList,
	panelEntries,
	readNdv,
	saveWorkflow,
	searchNodes,
	signIn,
	TIMEOUT_MS,
	useN8nTestIds,
} from '../test/browser/editor';

const PACKAGE = 'n8n-nodes-workplace';

interface NodeCase {
	/** Screenshot file name (without .png). */
	file: string;
	displayName: string;
	type: string;
	/** The entry's name in the nodes panel (n8n shows a trigger without " Trigger"). */
	panelName: string | RegExp;
	/** The action (or trigger event) clicked in the node's details list. */
	action: string;
	/** The credential n8n should select by itself (the only one of its type). */
	credential: string;
	/** Parameters the panel must show for that action. */
	parameters: string[];
	/** Text parameters typed in before the list is opened (the list depends on them). */
	fill?: Record<string, string>;
	/** A resource locator whose list (loaded from the simulator) is opened for the screenshot. */
	openList?: { parameter: string; expect: string };
	/** The one version the node ships, as the Settings tab shows it (default "1"). */
	version?: string;
}

/** A node of the package named `Workplace <name>`, whose simulator credential is `Workplace <credentialOf> (simulator)`. */
function workplaceNode(name: string, action: string, parameters: string[], more: Partial<NodeCase> & { credentialOf?: string } = {}): NodeCase {
	const { credentialOf = name, ...rest } = more;
	return {
		file: `workplace-${name.toLowerCase()}`,
		displayName: `Workplace ${name}`,
		type: `${PACKAGE}.workplace${name}`,
		panelName: `Workplace ${name}`,
		action,
		credential: `Workplace ${credentialOf} (simulator)`,
		parameters,
		...rest,
	};
}

const NODES: NodeCase[] = [
	// version 1.1: n8n evaluates an expression on every request to a webhook node of version 1 (WorkplaceTrigger.node.ts)
	workplaceNode('Trigger', 'On message', ['events'], { panelName: /^Workplace( Trigger)?$/, credentialOf: 'Webhook', version: '1.1' }),
	workplaceNode('Knowledge', 'Upload a file', ['resource', 'operation', 'knowledgeBaseId', 'binaryPropertyName'], {
		openList: { parameter: 'knowledgeBaseId', expect: 'Employee Handbook' },
	}),
	workplaceNode('Bot', 'Send a text message to a user', ['resource', 'operation', 'userId', 'text']),
	// The Thread picker offers the main chat (an empty thread ID) first, then the group's topics.
	workplaceNode('Bot', 'Send messages to a thread', ['resource', 'operation', 'groupId', 'threadId', 'defineMessages'], {
		file: 'workplace-bot-thread',
		fill: { groupId: SEED.groups.project._id },
		openList: { parameter: 'threadId', expect: SEED.groups.project.topics.release.name },
	}),
	workplaceNode('Form', 'Create a form', ['resource', 'operation', 'name', 'subject']),
	workplaceNode('Task', 'Create a task', ['resource', 'operation', 'taskTitle', 'priority']),
];

const env = process.env;
const started = Date.now();
let failures = 0;
let passes = 0;

function log(m: string): void {
	process.stdout.write(`[browser] ${m}\n`);
}

function check(ok: boolean, what: string, detail?: unknown): void {
	if (ok) {
		passes++;
		log(`  ok   ${what}`);
	} else {
		failures++;
		log(`  FAIL ${what}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
	}
}

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
	const t = Date.now();
	const result = await fn();
	log(`${name} (${formatDuration(Date.now() - t)})`);
	return result;
}

interface Instance {
	url: string;
	email: string;
	password: string;
	/** Example workflow names the instance should list. */
	examples: string[];
	/** The n8n major, when the test started n8n itself. */
	major?: string;
	output(): string;
	/** Send and Wait executions; only on the test's own n8n and simulator. */
	sendAndWait?: SendAndWaitHost;
	close(): Promise<void>;
}

interface Simulator extends SimulatorInfo {
	log: Pick<RequestLogApi, 'find'>;
	close(): Promise<void>;
}

interface SendAndWaitHost {
	/** Starts a waiting execution (Webhook -> Send and Wait with `ask` -> After); returns its buttons' links. */
	ask(message: string, ask: Record<string, unknown>): Promise<string[]>;
	/** The execution's status once it stopped waiting and running (or after 60 s), and what After got. */
	outcome(executionId: string): Promise<{ status: string; after: unknown }>;
}

/** Send and Wait on the test's own n8n, with the simulator credential the examples import brought. */
function sendAndWaitHost(inst: N8nInstall, server: N8nServer, sim: Simulator): SendAndWaitHost {
	return {
		async ask(message, ask) {
			const credentials = await server.rest<Array<{ id: string; name: string; type: string }>>('GET', '/credentials');
			const credential = credentials.find((c) => c.type === 'workplaceBotOAuth2Api');
			if (!credential) throw new Error(`no Workplace Bot credential: ${credentials.map((c) => c.name).join(', ')}`);
			const hook = randomUUID();
			await createActiveWorkflowIn(server, `browser test: send and wait (${message})`, askWorkflow(hook, { message, ...ask }, credential));
			const answer = await fetchWebhook(`${server.url}/webhook/${hook}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ message }),
			});
			if (answer.status !== 200) throw new Error(`the webhook answered ${answer.status}: ${answer.text.slice(0, 300)}`);
			const links = (await pushedTemplate(sim.log, message)).actions.map((a) => a.linkUri);
			// The push leaves before n8n has saved the execution as waiting; a link opened in between
			// gets n8n's 409 "running already", so open them once it waits, as a person would.
			const executionId = executionIdOf(links[0]);
			for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(250)) {
				const execution = await server.rest<{ status: string }>('GET', `/executions/${executionId}`);
				if (execution.status === 'waiting') break;
			}
			return links;
		},
		async outcome(executionId) {
			const deadline = Date.now() + 60_000;
			for (;;) {
				const execution = await server.rest<{ status: string; data?: unknown }>('GET', `/executions/${executionId}`);
				if (!['new', 'running', 'waiting'].includes(execution.status) || Date.now() > deadline) {
					return { status: execution.status, after: nodeRun(inst, execution, 'After')?.data?.main?.[0]?.map((i) => i.json) };
				}
				await sleep(250);
			}
		},
	};
}

/** What `npm run dev` sets up, on free ports and in a throwaway user folder. */
async function startInstance(): Promise<Instance> {
	const examples = loadExamples().map((e) => e.name);
	if (env.BROWSER_TEST_URL) {
		return {
			url: env.BROWSER_TEST_URL.replace(/\/$/, ''),
			email: env.BROWSER_TEST_EMAIL ?? E2E_OWNER.email,
			password: env.BROWSER_TEST_PASSWORD ?? E2E_OWNER.password,
			examples,
			output: () => '',
			close: async () => undefined,
		};
	}
	const [id] = parseTargetIds(env.BROWSER_TEST_N8N ?? '1');
	const inst = await step(`n8n ${TARGETS[id].n8nVersion} install (cached)`, () => ensureN8n(TARGETS[id], { log }));
	const userFolder = createUserFolder('n8n-browser-');
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-browser-work-'));
	let sim: Simulator | undefined;
	let server: N8nServer | undefined;
	const close = async () => {
		await server?.stop();
		await sim?.close();
		fs.rmSync(work, { recursive: true, force: true });
		if (env.BROWSER_TEST_KEEP === '1') log(`kept user folder ${userFolder}`);
		else fs.rmSync(userFolder, { recursive: true, force: true });
	};
	try {
		await step('package packed and installed as a community package', async () =>
			installCommunityPackage(inst, userFolder, await packPackage(work)),
		);
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { startSimulator } = require(path.join(repoRoot(), 'build', 'simulator', 'index.js')) as {
			startSimulator: (o: { port: number }) => Promise<Simulator>;
		};
		sim = await startSimulator({ port: await getFreePort() });
		await step('credentials and examples imported', () => importExamples(inst, userFolder, sim!, work));
		server = await step('n8n started', () => startN8nServer(inst, { userFolder, logLevel: 'warn', startTimeoutMs: 300_000 }));
		await server.setupOwner();
		log(`n8n ${TARGETS[id].n8nVersion} on ${server.url}, simulator on ${sim.url}`);
		const s = server;
		const sendAndWait = sendAndWaitHost(inst, s, sim);
		return { url: s.url, email: E2E_OWNER.email, password: E2E_OWNER.password, examples, major: TARGETS[id].major, output: () => s.output(), sendAndWait, close };
	} catch (e) {
		await close();
		throw e;
	}
}

/** Lets NDV/panel animations finish, closes popups, then takes the screenshot. */
async function screenshot(page: Page, outDir: string, name: string): Promise<string> {
	await page.waitForTimeout(700);
	await dismissPopups(page);
	const file = path.join(outDir, `${name}.png`);
	await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
	log(`  saved ${path.relative(repoRoot(), file)}`);
	return file;
}

/** The page at a failure, to build/browser-test/failure.png. */
async function failureScreenshot(page: Page): Promise<void> {
	const failureDir = path.join(repoRoot(), 'build', 'browser-test');
	fs.mkdirSync(failureDir, { recursive: true });
	await page.screenshot({ path: path.join(failureDir, 'failure.png') }).catch(() => undefined);
	log(`page at failure: ${page.url()} (screenshot build/browser-test/failure.png)`);
}

async function runBrowser(browser: Browser, instance: Instance, outDir: string): Promise<void> {
	const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, locale: 'en-US' });
	context.setDefaultTimeout(TIMEOUT_MS);
	const page = await context.newPage();
	try {
		await step(`signed in as ${instance.email}`, () => signIn(page, instance.url, instance.email, instance.password));

		await step('example workflows listed', async () => {
			await page.goto(`${instance.url}/home/workflows`, { waitUntil: 'domcontentloaded' });
			await page.getByTestId('workflow-card-name').first().waitFor();
			await dismissPopups(page);
			const names = (await page.getByTestId('workflow-card-name').allInnerTexts()).map((t) => t.trim());
			const missing = instance.examples.filter((name) => !names.includes(name));
			check(missing.length === 0, `the ${instance.examples.length} example workflows are listed`, { missing });
		});

		await step('new workflow', () => newWorkflow(page, instance.url));

		await step('nodes panel: search "Workplace"', async () => {
			await searchNodes(page, 'Workplace');
			const entries = await panelEntries(page);
			for (const node of NODES) {
				const entry = entries.find((e) => (typeof node.panelName === 'string' ? e.name === node.panelName : node.panelName.test(e.name)));
				check(Boolean(entry), `nodes panel lists ${node.displayName}`, entries.map((e) => e.name));
				if (!entry) continue;
				const icon = `/icons/${PACKAGE}/dist/nodes/${node.displayName.replace(/ /g, '')}/`;
				check(
					Boolean(entry.iconSrc?.includes(icon)) && entry.iconWidth > 0,
					`  with this package's icon (${entry.iconSrc}, loaded ${entry.iconWidth}px wide)`,
				);
			}
		});

		for (const node of NODES) {
			await step(`${node.displayName}: "${node.action}"`, async () => {
				await searchNodes(page, 'Workplace');
				await addNodeWithAction(page, node.panelName, node.action);
				const ndv = await readNdv(page);
				check(
					ndv.title === node.displayName || ndv.title === node.action,
					`parameters panel of "${ndv.title}"`,
					ndv.title,
				);
				// Each node ships one version (1; the trigger 1.1): the panel adds that one.
				const version = node.version ?? '1';
				check(ndv.nodeVersion.startsWith(`${node.displayName} node version ${version}`) && !/[.\d]/.test(ndv.nodeVersion.charAt(`${node.displayName} node version ${version}`.length)), `node "${ndv.nodeVersion}"`, ndv.nodeVersion);
				check(ndv.credential === node.credential, `credential "${node.credential}" selected`, ndv.credentials);
				const missing = node.parameters.filter((p) => !ndv.parameters.includes(p));
				check(missing.length === 0, `parameters shown: ${ndv.parameters.join(', ')}`, { missing });
				for (const [parameter, value] of Object.entries(node.fill ?? {})) await fillParameter(page, parameter, value);
				if (node.openList) {
					const entries = await openResourceList(page, node.openList.parameter);
					check(
						entries.some((e) => e.includes(node.openList!.expect)),
						`"${node.openList.parameter}" lists the simulator's entries: ${entries.join(', ')}`,
						entries,
					);
				}
				await screenshot(page, outDir, node.file);
				await closeNdv(page);
			});
		}

		await step('workflow saved and reloaded', async () => {
			const id = await saveWorkflow(page);
			await page.goto(`${instance.url}/home/workflows`, { waitUntil: 'domcontentloaded' });
			await page.getByTestId('workflow-card-name').first().waitFor();
			await page.goto(`${instance.url}/workflow/${id}`, { waitUntil: 'domcontentloaded' });
			await page.getByTestId('canvas-node').first().waitFor();
			await dismissPopups(page);
			const nodes = await canvasNodes(page);
			for (const node of NODES) {
				const found = nodes.find((n) => n.type === node.type);
				check(Boolean(found), `workflow ${id} has a ${node.displayName} node ("${found?.name}", ${node.type})`, nodes);
			}
			await page.getByTestId('tidy-up-button').click().catch(() => undefined);
			await page.getByTestId('zoom-to-fit').click();
			await page.mouse.move(640, 120);
			await screenshot(page, outDir, 'workflow');
			await searchNodes(page, 'Workplace');
			await screenshot(page, outDir, 'nodes-panel');
		});

		// The team assistant example (docs/team-assistant.md shows it): n8n 1.x draws its human review node as unknown.
		await step('team assistant example on the canvas', async () => {
			const example = loadExamples().find((e) => e.file === 'flow-team-assistant-in-chat.json');
			if (!example) throw new Error('examples/flow-team-assistant-in-chat.json is missing');
			await page.goto(`${instance.url}/workflow/${example.id}`, { waitUntil: 'domcontentloaded' });
			await page.getByTestId('canvas-node').first().waitFor();
			await dismissPopups(page);
			const names = (await canvasNodes(page)).map((n) => n.name);
			const missing = example.nodes.map((n) => n.name).filter((name) => !names.includes(name));
			check(missing.length === 0, `the canvas shows its ${example.nodes.length} nodes`, { missing });
			await page.getByTestId('zoom-to-fit').click();
			await page.mouse.move(640, 760);
			if (instance.major === '1') log('team-assistant.png: taken on n8n 2 only (BROWSER_TEST_N8N=2); n8n 1.x has no human review tools');
			else await screenshot(page, outDir, 'team-assistant');
		});
	} catch (e) {
		await failureScreenshot(page);
		throw e;
	} finally {
		await context.close();
	}
}

/** The custom form of the Send and Wait check. */
const TRIP_FORM = [
	{ fieldLabel: 'Destination', fieldType: 'text', placeholder: 'City', requiredField: true },
	{ fieldLabel: 'Nights', fieldType: 'number' },
	{ fieldLabel: 'Notes', fieldType: 'textarea' },
];

/**
 * The pages Send and Wait for Response serves, as a person's browser gets them: the "recorded"
 * page of an Approve link, and a custom form (screenshot), filled in and submitted.
 */
async function sendAndWaitPages(browser: Browser, host: SendAndWaitHost, outDir: string): Promise<void> {
	// about a phone's width: the links are opened from a chat
	const context = await browser.newContext({ viewport: { width: 600, height: 760 }, deviceScaleFactor: 1, locale: 'en-US' });
	context.setDefaultTimeout(TIMEOUT_MS);
	const page = await context.newPage();
	const recordedPage = async (what: string, status: number | undefined) => {
		const heading = await page.locator('h1').innerText();
		const text = await page.locator('main p').innerText();
		check(status === 200 && heading === 'Thank you' && /was recorded/.test(text), `${what}: the "recorded" page renders (${status}, "${heading}: ${text}")`);
	};
	/** The question's message in alice's direct chat, as the output names it (the ID compared as "an ID"). */
	const ALICE_MESSAGE = { messageId: 'ID', groupId: SEED.directChats.alice.gid, threadId: SEED.directChats.alice.tid };
	const outcome = async (link: string, want: unknown) => {
		const { status, after } = await host.outcome(executionIdOf(link));
		// respondedAt is the time of the click: compared as "an ISO time"; the message ID as "an ID".
		const shown = JSON.stringify(after)
			.replace(/"respondedAt":"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"respondedAt":"ISO"')
			.replace(/"messageId":"[^"]+"/g, '"messageId":"ID"');
		check(status === 'success' && shown === JSON.stringify(want), `the execution went on: ${status}, the next node got ${JSON.stringify(after)}`);
	};
	try {
		await step('Send and Wait: Approve link opened in chromium', async () => {
			const [approve] = await host.ask('Approve 120 EUR for the team lunch?', {
				title: 'Expense report',
				responseType: 'approval',
				approvalOptions: { values: { approvalType: 'double' } },
			});
			const response = await page.goto(approve, { waitUntil: 'load' });
			await recordedPage('Approve', response?.status());
			await outcome(approve, [{ data: { approved: true, responder: { source: 'link' }, respondedAt: 'ISO', ...ALICE_MESSAGE } }]);
		});

		await step('Send and Wait: custom form page in chromium', async () => {
			const [respond] = await host.ask('Where do you want to go? Nights are paid up to 4.', {
				responseType: 'customForm',
				options: { responseFormTitle: 'Your trip', responseFormButtonLabel: 'Send request' },
				title: 'Trip request',
				formFields: { values: TRIP_FORM },
			});
			const response = await page.goto(respond, { waitUntil: 'load' });
			const heading = await page.locator('h1').innerText();
			const labels = (await page.locator('label').allInnerTexts()).map((t) => t.trim());
			const nightsType = await page.locator('#field-1').getAttribute('type');
			const button = page.getByRole('button', { name: 'Send request' });
			const box = await page.locator('form').boundingBox();
			check(
				response?.status() === 200 && heading === 'Your trip' && labels.join(' | ') === 'Destination * | Nights | Notes' && nightsType === 'number' &&
					(await button.isVisible()) && (box?.width ?? 0) > 200,
				`the form renders: ${response?.status()}, "${heading}", fields ${labels.join(' | ')} (Nights type=${nightsType}), button "Send request", form ${Math.round(box?.width ?? 0)}px wide`,
			);
			await page.locator('#field-0').fill('Lisbon');
			await page.locator('#field-1').fill('3');
			await page.locator('#field-2').fill('Near the river, please.');
			await screenshot(page, outDir, 'send-and-wait-form');
			const [submitted] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), button.click()]);
			await page.locator('h1', { hasText: 'Thank you' }).waitFor();
			await recordedPage('the form submitted by chromium', submitted.status());
			await outcome(respond, [{ data: { Destination: 'Lisbon', Nights: 3, Notes: 'Near the river, please.', responder: { source: 'link' }, respondedAt: 'ISO', ...ALICE_MESSAGE } }]);
		});
	} catch (e) {
		await failureScreenshot(page);
		throw e;
	} finally {
		await context.close();
	}
}

async function main(): Promise<void> {
	useN8nTestIds();
	const outDir = path.resolve(env.BROWSER_TEST_OUT ?? path.join(repoRoot(), 'docs', 'screenshots'));
	fs.mkdirSync(outDir, { recursive: true });
	const executablePath = await step('chromium', () => ensureChromium(log));
	const instance = await startInstance();
	let browser: Browser | undefined;
	try {
		browser = await step('chromium launched', () =>
			chromium.launch({ executablePath, headless: env.BROWSER_TEST_HEADED !== '1', args: CHROMIUM_ARGS, timeout: TIMEOUT_MS }),
		);
		log(`${executablePath} ${browser.version()}`);
		await runBrowser(browser, instance, outDir);
		if (instance.sendAndWait) await sendAndWaitPages(browser, instance.sendAndWait, outDir);
		else log('Send and Wait pages skipped: BROWSER_TEST_URL has no simulator of this test');
	} catch (e) {
		const out = instance.output();
		if (out) log(`n8n output (tail):\n${tail(out, 30)}`);
		throw e;
	} finally {
		await browser?.close();
		await instance.close();
	}
}

main().then(
	() => {
		log(`${failures ? `${failures} check(s) failed` : 'all checks passed'} (${formatDuration(Date.now() - started)})`);
		// The closing line CI reads.
		process.stdout.write(`browser: ${passes} passed, ${failures} failed\n`);
		process.exit(failures ? 1 : 0);
	},
	(e) => {
		console.error(e);
		log(`failed (${formatDuration(Date.now() - started)})`);
		process.exit(1);
	},
);
