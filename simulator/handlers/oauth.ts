/** OAuth 2.0 client credentials token endpoint: POST {base_url}/oauth/token. */
import { timingSafeEqual } from 'crypto';
import { Ctx, RouteDef } from '../context';
import { oauthError } from '../errors';

export const SUPPORTED_SCOPES = ['bot', 'profile'];

function safeEqual(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

function decodeComponent(s: string): string {
	try {
		return decodeURIComponent(s.replace(/\+/g, ' '));
	} catch {
		return s;
	}
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
	if (!header) return undefined;
	const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
	if (!m) return undefined;
	const decoded = Buffer.from(m[1], 'base64').toString('utf8');
	const i = decoded.indexOf(':');
	if (i < 0) return undefined;
	return { id: decodeComponent(decoded.slice(0, i)), secret: decodeComponent(decoded.slice(i + 1)) };
}

const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };

async function token(ctx: Ctx): Promise<void> {
	const fail = (status: number, error: string, description: string, headers: Record<string, string> = {}): Promise<void> =>
		ctx.json(status, oauthError(status, error, description), { ...noStore, ...headers });

	const creds = basicCredentials(ctx.header('authorization'));
	const c = ctx.config.credentials;
	if (!creds) return fail(401, 'invalid_client', 'Client authentication failed: HTTP Basic credentials required', { 'www-authenticate': 'Basic realm="oauth"' });
	if (!safeEqual(creds.id, c.botClientId) || !safeEqual(creds.secret, c.botClientSecret)) {
		return fail(401, 'invalid_client', 'Client authentication failed: unknown client or wrong secret', { 'www-authenticate': 'Basic realm="oauth"' });
	}
	if (ctx.body.kind !== 'urlencoded') {
		return fail(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
	}
	const form = ctx.body.form ?? {};
	const grant = form.grant_type;
	if (grant === undefined || grant === '') return fail(400, 'invalid_request', 'Missing grant_type');
	if (Array.isArray(grant)) return fail(400, 'invalid_request', 'grant_type given more than once');
	if (grant !== 'client_credentials') return fail(400, 'unsupported_grant_type', `Unsupported grant_type "${grant}"`);
	const rawScope = form.scope;
	if (Array.isArray(rawScope)) return fail(400, 'invalid_request', 'scope given more than once');
	let scope = (rawScope ?? '').split(/[\s+]+/).filter(Boolean);
	if (scope.length === 0) scope = [...SUPPORTED_SCOPES];
	const unknown = scope.filter((s) => !SUPPORTED_SCOPES.includes(s));
	if (unknown.length) return fail(400, 'invalid_scope', `Unknown scope: ${unknown.join(' ')}`);
	scope = SUPPORTED_SCOPES.filter((s) => scope.includes(s));
	const t = ctx.state.issueToken(creds.id, scope, ctx.config.tokenTtlSeconds);
	await ctx.json(200, { access_token: t.token, token_type: 'Bearer', expires_in: ctx.config.tokenTtlSeconds, scope: scope.join(' ') }, noStore);
}

export const oauthRoutes: RouteDef[] = [{ method: 'POST', path: '/oauth/token', iface: 'oauth', handler: token }];
