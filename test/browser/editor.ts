/**
 * n8n's editor driven by playwright-core (1.x and 2.x use the same `data-test-id`s for what is
 * used here): sign in, new workflow, nodes panel, node details view (NDV).
 */
import { selectors, type Locator, type Page } from 'playwright-core';

/** n8n marks its elements with data-test-id (not Playwright's default data-testid). */
export function useN8nTestIds(): void {
	selectors.setTestIdAttribute('data-test-id');
}

export const TIMEOUT_MS = 60_000;

export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
	await page.goto(`${baseUrl}/signin`, { waitUntil: 'domcontentloaded' });
	const emailInput = page.locator('input[name="emailOrLdapLoginId"], input[name="email"]').first();
	await emailInput.fill(email);
	await page.locator('input[name="password"]').fill(password);
	await page.getByRole('button', { name: /sign in/i }).click();
	await page.waitForURL((u) => !u.pathname.includes('/signin'), { timeout: TIMEOUT_MS });
	await dismissPopups(page);
}

/**
 * Closes what n8n may show over the editor on a fresh instance: modals with a close button
 * (onboarding, "what's new", surveys), toasts, and the sign-up banner's close button.
 */
export async function dismissPopups(page: Page): Promise<void> {
	for (let round = 0; round < 3; round++) {
		let closed = 0;
		const closers = page.locator(
			[
				'.el-dialog__wrapper:visible .el-dialog__headerbtn',
				'.el-overlay:visible .el-dialog__headerbtn',
				'.el-notification:visible .el-notification__closeBtn',
				'[data-test-id="banners-close-button"]:visible',
			].join(', '),
		);
		for (const closer of await closers.all()) {
			try {
				await closer.click({ timeout: 2000 });
				closed++;
			} catch {
				// gone in the meantime
			}
		}
		if (!closed) return;
		await page.waitForTimeout(400);
	}
}

export async function newWorkflow(page: Page, baseUrl: string): Promise<void> {
	await page.goto(`${baseUrl}/workflow/new`, { waitUntil: 'domcontentloaded' });
	await page.getByTestId('canvas').waitFor({ timeout: TIMEOUT_MS });
	await dismissPopups(page);
}

/** Opens the nodes panel (the canvas' "+" button) and searches. Returns the panel. */
export async function searchNodes(page: Page, text: string): Promise<Locator> {
	const panel = page.getByTestId('node-creator');
	if (!(await panel.isVisible())) {
		await page.getByTestId('node-creator-plus-button').click();
	}
	await panel.waitFor({ timeout: TIMEOUT_MS });
	const search = page.getByTestId('node-creator-search-bar');
	await search.fill('');
	await search.fill(text);
	await panel.getByTestId('item-iterator-item').first().waitFor({ timeout: TIMEOUT_MS });
	// the list filters as one types: let it settle
	await page.waitForTimeout(500);
	return panel;
}

/** An entry of the nodes panel whose name is exactly `name`. */
export function panelItem(page: Page, name: string): Locator {
	return page
		.getByTestId('node-creator')
		.getByTestId('item-iterator-item')
		.filter({ has: page.getByTestId('node-creator-item-name').getByText(name, { exact: true }) });
}

/** The name of the first panel entry matching (a pattern is matched against the listed names). */
export async function resolvePanelName(page: Page, name: string | RegExp): Promise<string> {
	if (typeof name === 'string') return name;
	const entries = await panelEntries(page);
	const found = entries.find((e) => name.test(e.name));
	if (!found) throw new Error(`No nodes panel entry matches ${name}: ${entries.map((e) => e.name).join(', ')}`);
	return found.name;
}

export interface PanelEntry {
	name: string;
	iconSrc: string | null;
	/** naturalWidth of the icon image: 0 if it did not load. */
	iconWidth: number;
}

/** Names and icons of the nodes panel's current entries. */
export async function panelEntries(page: Page): Promise<PanelEntry[]> {
	return page
		.getByTestId('node-creator')
		.getByTestId('item-iterator-item')
		.evaluateAll((items) =>
			items.map((item) => {
				const img = item.querySelector('img') as HTMLImageElement | null;
				return {
					name: (item.querySelector('[data-test-id="node-creator-item-name"]')?.textContent ?? '').trim(),
					iconSrc: img?.getAttribute('src') ?? null,
					iconWidth: img?.naturalWidth ?? 0,
				};
			}),
		);
}

/**
 * Clicks a node in the nodes panel, then one of its actions (or trigger events) in the node's
 * details list; n8n adds the node with that resource/operation and opens its NDV.
 */
export async function addNodeWithAction(page: Page, panelName: string | RegExp, action: string): Promise<void> {
	await panelItem(page, await resolvePanelName(page, panelName)).click();
	const panel = page.getByTestId('node-creator');
	const actionItem = panel
		.getByTestId('item-iterator-item')
		.filter({ has: page.getByTestId('node-creator-item-name').getByText(action, { exact: true }) });
	await actionItem.first().click({ timeout: TIMEOUT_MS });
	await page.getByTestId('ndv').waitFor({ timeout: TIMEOUT_MS });
	await page.getByTestId('node-parameters').waitFor({ timeout: TIMEOUT_MS });
}

export interface NdvInfo {
	/** The node's name (n8n names a node added through an action after the action). */
	title: string;
	/** Text of the Settings tab's version line, e.g. "Workplace Knowledge node version 1 (Latest)". */
	nodeVersion: string;
	/** The first credential selected (a node may show several selectors, e.g. an optional one left empty). */
	credential: string;
	/** Every credential selector's value, in the order shown ('' when empty). */
	credentials: string[];
	/** Names of the parameters shown (from their `parameter-input-<name>` test ids). */
	parameters: string[];
}

export async function readNdv(page: Page): Promise<NdvInfo> {
	const ndv = page.getByTestId('ndv');
	const title = (await ndv.getByTestId('node-title-container').innerText()).trim();
	const version = ndv.getByTestId('node-version');
	const nodeVersion = (await version.count()) ? ((await version.first().textContent()) ?? '').replace(/\s+/g, ' ').trim() : '';
	const credSelects = ndv.getByTestId('node-credentials-select').locator('input');
	const credentials: string[] = [];
	for (let i = 0; i < (await credSelects.count()); i++) credentials.push(await credSelects.nth(i).inputValue());
	const credential = credentials.find((c) => c !== '') ?? '';
	const parameters = await ndv
		.getByTestId('node-parameters')
		.locator('[data-test-id^="parameter-input-"]')
		.evaluateAll((els) => [
			...new Set(
				els.map((e) => (e.getAttribute('data-test-id') ?? '').replace(/^parameter-input-/, '')).filter((n) => n && n !== 'field'),
			),
		]);
	return { title, nodeVersion, credential, credentials, parameters };
}

/**
 * Opens a resource locator's "From list" dropdown (search method against the platform) and waits
 * for its entries; returns their texts.
 */
/** Types a value into a text parameter of the open node panel, as a user does, then leaves the field. */
export async function fillParameter(page: Page, parameter: string, value: string): Promise<void> {
	const input = page.getByTestId('ndv').getByTestId(`parameter-input-${parameter}`).locator('input, textarea').first();
	await input.click();
	await input.fill(value);
	await input.press('Tab');
	await page.waitForTimeout(300);
}

export async function openResourceList(page: Page, parameter: string): Promise<string[]> {
	const ndv = page.getByTestId('ndv');
	const input = ndv.getByTestId(`resource-locator-${parameter}`).getByTestId('rlc-input');
	await input.click();
	// the list is teleported out of the parameter (and, in 2.x, out of the dropdown's test id)
	const items = page.getByTestId('rlc-item').filter({ visible: true });
	await items.first().waitFor({ timeout: TIMEOUT_MS });
	await page.waitForTimeout(300);
	return (await items.allInnerTexts()).map((t) => t.trim());
}

export async function closeNdv(page: Page): Promise<void> {
	// 1.x: "Back to canvas"; 2.x: a close button in the panel's header; Escape closes both
	// (the first Escape may only close an open dropdown)
	const ndv = page.getByTestId('ndv');
	const back = page.getByTestId('back-to-canvas');
	for (let attempt = 0; attempt < 4; attempt++) {
		if (await back.isVisible()) await back.click();
		else await page.keyboard.press('Escape');
		try {
			await ndv.waitFor({ state: 'hidden', timeout: 3000 });
			return;
		} catch {
			// try again
		}
	}
	await ndv.waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
}

export interface CanvasNode {
	name: string;
	type: string;
}

export async function canvasNodes(page: Page): Promise<CanvasNode[]> {
	return page.getByTestId('canvas-node').evaluateAll((nodes) =>
		nodes.map((n) => ({ name: n.getAttribute('data-node-name') ?? '', type: n.getAttribute('data-node-type') ?? '' })),
	);
}

/** Saves the workflow (Ctrl+S); resolves with its id from the URL (/workflow/<id>). */
export async function saveWorkflow(page: Page): Promise<string> {
	await page.getByTestId('canvas').click({ position: { x: 40, y: 40 } });
	await page.keyboard.press('Control+s');
	await page.waitForURL((u) => /\/workflow\/(?!new)[^/]+/.test(u.pathname), { timeout: TIMEOUT_MS });
	// 1.x: the Save button turns into "Saved"; 2.x saves by itself and has no Save button
	const saveButton = page.getByTestId('workflow-save-button');
	if (await saveButton.count()) await saveButton.filter({ hasText: /saved/i }).waitFor({ timeout: TIMEOUT_MS });
	else await page.waitForTimeout(3000);
	const id = /\/workflow\/([^/?#]+)/.exec(new URL(page.url()).pathname)?.[1];
	if (!id) throw new Error(`No workflow id in ${page.url()}`);
	return id;
}
