import { Dispatcher, request } from 'undici';
import { Simulator, startSimulator, SimulatorOptions } from '../../simulator';

export interface Res {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
	json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
	buffer: Buffer;
}

export async function call(
	url: string,
	opts: { method?: Dispatcher.HttpMethod; headers?: Record<string, string>; body?: unknown; json?: unknown } = {},
): Promise<Res> {
	const headers: Record<string, string> = { ...opts.headers };
	let body = opts.body;
	if (opts.json !== undefined) {
		body = JSON.stringify(opts.json);
		if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
	}
	const res = await request(url, { method: opts.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body: body as never });
	const buffer = Buffer.from(await res.body.arrayBuffer());
	const text = buffer.toString('utf8');
	let json: unknown;
	try {
		json = text ? JSON.parse(text) : undefined;
	} catch {
		json = undefined;
	}
	return { status: res.statusCode, headers: res.headers, text, json, buffer };
}

export async function withSim(opts: SimulatorOptions = {}): Promise<Simulator> {
	return startSimulator({ port: 0, ...opts });
}

export async function botToken(sim: Simulator, scope = 'bot profile'): Promise<string> {
	const c = sim.credentials;
	const r = await call(`${sim.url}/oauth/token`, {
		headers: {
			'content-type': 'application/x-www-form-urlencoded',
			authorization: 'Basic ' + Buffer.from(`${c.botClientId}:${c.botClientSecret}`).toString('base64'),
		},
		body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
	});
	if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`);
	return r.json.access_token as string;
}
