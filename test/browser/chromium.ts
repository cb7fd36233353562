/**
 * Debian's Chromium for the browser test: found on the machine, or installed with apt-get
 * (idempotent; quiet unless it fails). No browser download of Playwright's own.
 */
import * as fs from 'node:fs';

import { runChecked } from '../../scripts/lib/proc';

/** Where Debian's `chromium` package puts its launcher; CHROMIUM_PATH overrides. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function findChromium(): string | undefined {
	const override = process.env.CHROMIUM_PATH;
	if (override) {
		if (!fs.existsSync(override)) throw new Error(`CHROMIUM_PATH=${override} does not exist`);
		return override;
	}
	return CANDIDATES.find((p) => fs.existsSync(p));
}

/**
 * Flags that keep headless Chromium off the network (a closed network refuses its background
 * connections, many at a time) and usable as root.
 */
export const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-dev-shm-usage',
	'--hide-scrollbars',
	'--font-render-hinting=none',
];

/**
 * The path of a Chromium binary, installing Debian's `chromium` package first when none is there
 * (as root, or through passwordless sudo). apt waits up to 5 minutes for another apt/dpkg run.
 */
export async function ensureChromium(log: (m: string) => void): Promise<string> {
	const found = findChromium();
	if (found) return found;
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	const sudo = isRoot ? [] : ['sudo', '-n'];
	if (!fs.existsSync('/usr/bin/apt-get')) {
		throw new Error('No Chromium found (/usr/bin/chromium) and no apt-get to install it: install Chromium or set CHROMIUM_PATH');
	}
	const started = Date.now();
	log('installing Debian chromium (apt-get install chromium) ...');
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const apt = async (args: string[]) => {
		const [cmd, ...rest] = [...sudo, 'apt-get', '-o', 'DPkg::Lock::Timeout=300', ...args];
		await runChecked(cmd, rest, { env, timeoutMs: 15 * 60_000 });
	};
	await apt(['update', '-qq']);
	await apt(['install', '-y', '-qq', 'chromium']);
	const installed = findChromium();
	if (!installed) throw new Error('apt-get installed chromium, but /usr/bin/chromium is missing');
	log(`chromium installed (${Math.round((Date.now() - started) / 1000)} s)`);
	return installed;
}
