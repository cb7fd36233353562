/** The environment child npm runs get. */
import * as path from 'node:path';

/** npm settings a user or CI may pass through the environment on purpose; kept for child npm runs. */
const KEPT_NPM_ENV = /^npm_config_(cache|registry|cafile|ca|proxy|https_proxy|noproxy|strict_ssl|fetch_retries|fetch_retry_\w+|fetch_timeout)$/i;

/**
 * process.env without the `npm_*` variables a parent `npm run` exports: they carry this repo's
 * project config (ignore-scripts, legacy-peer-deps, local-prefix=<repo>, nodedir) into child npm
 * runs. Network and cache settings (KEPT_NPM_ENV) are kept.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^npm_/i.test(k) && !KEPT_NPM_ENV.test(k)) continue;
		if (k === 'INIT_CWD' || k === 'NODE_OPTIONS' || k === 'NODE_ENV') continue;
		env[k] = v;
	}
	return { ...env, ...extra };
}

export function npmEnv(nodeBin: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	return cleanEnv({
		// node-gyp and scripts find the right `node` first
		PATH: [path.dirname(nodeBin), process.env.PATH ?? ''].join(path.delimiter),
		npm_config_update_notifier: 'false',
		npm_config_fund: 'false',
		npm_config_audit: 'false',
		...extra,
	});
}

/**
 * Installs from the registry resolve as the registry stood on this day (npm's `before`): the same
 * tree on every machine, and none of the newest releases, whose packuments the registry may still
 * serve without them for a while. Seen on a cold `.ci/run` (2026-11-27): n8n 2.0.3's install picked
 * the newest @aws-sdk/credential-provider-node, whose dependency @aws-sdk/credential-provider-env
 * ^3.972.86 the registry's packument did not list yet (ETARGET, twice in a row). Every n8n release
 * the tests install came out before this day.
 */
export const RESOLVED_AS_OF = '2026-11-15';

/**
 * The environment of an `npm install` from the registry: npmEnv, resolved as of RESOLVED_AS_OF;
 * `fresh` (a retry) revalidates every packument instead of trusting the cache.
 */
export function registryInstallEnv(nodeBin: string, { fresh = false }: { fresh?: boolean } = {}): NodeJS.ProcessEnv {
	return npmEnv(nodeBin, { npm_config_before: RESOLVED_AS_OF, ...(fresh ? { npm_config_prefer_online: 'true' } : {}) });
}
