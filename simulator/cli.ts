#!/usr/bin/env node
/**
 * Starts the simulator: node build/simulator/cli.js [--port N] [--latency MS] [options]
 * (npm run simulator -- --port 3900)
 */
import { isUnauthorizedBodyShape, UNAUTHORIZED_BODY_SHAPES } from './errors';
import { parseRateLimit } from './rateLimit';
import { startSimulator } from './server';
import { SEED } from './seed';
import { SimulatorOptions } from './types';

const USAGE = `Usage: node build/simulator/cli.js [options]
  --port N            listen port (env SIMULATOR_PORT, default 3900; 0 = random)
  --host H            listen address (default 127.0.0.1)
  --latency MS        latency added to every non-control response (default 0)
  --rate-limit R[/B]  the platform's rate limit on every API interface: R requests per second,
                      bursts of B (default R); beyond it 429 with Retry-After (default: none)
  --token-ttl S       OAuth access token lifetime in seconds (default 3600)
  --max-upload BYTES  maximum knowledge file size (default 1073741824)
  --upload-field NAME multipart field name of the knowledge file part (default file)
  --unauthorized-body SHAPE
                      body of every 401: interface (default, each interface's own error body),
                      plain {"error":"unauthorized","message"}, framework
                      {"statusCode":401,"error":"Unauthorized","message"}, or empty
  --bot-webhook-url URL
                      the bot's webhook URL: where POST /__sim/tap sends postback events (default: none)
  --bot-webhook-secret S
                      the bot webhook's secret; taps are signed with it (default: none, unsigned)
  --json              print one JSON line with urls and credentials instead of text
  --help`;

function parseArgs(argv: string[]): { opts: SimulatorOptions; json: boolean } {
	const opts: SimulatorOptions = {};
	let json = false;
	const num = (name: string, v: string | undefined): number => {
		const n = Number(v);
		if (v === undefined || !Number.isFinite(n) || n < 0) {
			console.error(`invalid value for ${name}: ${v}\n${USAGE}`);
			process.exit(2);
		}
		return n;
	};
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split(/=(.*)/s, 2);
		const next = (): string | undefined => (inline !== undefined ? inline : argv[++i]);
		switch (flag) {
			case '--port':
				opts.port = num(flag, next());
				break;
			case '--host':
				opts.host = next();
				break;
			case '--latency':
				opts.latencyMs = num(flag, next());
				break;
			case '--rate-limit': {
				const value = next() ?? '';
				try {
					opts.rateLimit = parseRateLimit(value);
				} catch (e) {
					console.error(`invalid value for ${flag}: ${(e as Error).message}\n${USAGE}`);
					process.exit(2);
				}
				break;
			}
			case '--token-ttl':
				opts.tokenTtlSeconds = num(flag, next());
				break;
			case '--max-upload':
				opts.maxUploadBytes = num(flag, next());
				break;
			case '--upload-field':
				opts.uploadFieldName = next();
				break;
			case '--unauthorized-body': {
				const shape = next();
				if (!isUnauthorizedBodyShape(shape)) {
					console.error(`invalid value for ${flag}: ${shape} (one of ${UNAUTHORIZED_BODY_SHAPES.join(', ')})\n${USAGE}`);
					process.exit(2);
				}
				opts.unauthorizedBody = shape;
				break;
			}
			case '--bot-webhook-url':
				opts.botWebhookUrl = next();
				break;
			case '--bot-webhook-secret':
				opts.botWebhookSecret = next();
				break;
			case '--json':
				json = true;
				break;
			case '--help':
			case '-h':
				console.log(USAGE);
				process.exit(0);
				break;
			default:
				console.error(`unknown argument ${argv[i]}\n${USAGE}`);
				process.exit(2);
		}
	}
	if (opts.port === undefined && process.env.SIMULATOR_PORT) opts.port = num('SIMULATOR_PORT', process.env.SIMULATOR_PORT);
	return { opts, json };
}

async function main(): Promise<void> {
	const { opts, json } = parseArgs(process.argv.slice(2));
	const sim = await startSimulator(opts);
	const c = sim.credentials;
	if (json) {
		console.log(JSON.stringify({ base_url: sim.url, knowledge_url: sim.knowledgeUrl, control_url: sim.controlUrl, llm_url: sim.llmUrl, credentials: c, taskReadOnlyJwt: sim.state.taskReadOnlyJwt }));
	} else {
		console.log(`Workplace platform simulator listening (latency ${opts.latencyMs ?? 0} ms, rate limit ${opts.rateLimit ? `${opts.rateLimit.rate}/s, burst ${opts.rateLimit.burst ?? opts.rateLimit.rate}` : 'none'}, 401 bodies: ${opts.unauthorizedBody ?? 'interface'})
  base_url       ${sim.url}
  knowledge_url  ${sim.knowledgeUrl}
  control API    ${sim.controlUrl}   (GET /requests, POST /faults, POST /reset, GET /state, ...)
  llm_url        ${sim.llmUrl}   (scripted OpenAI chat model: Base URL of an OpenAI credential; script via POST /__sim/llm/script)

Test credentials
  knowledge   x-api-key: ${c.knowledgeApiKey}
  bot OAuth   client id: ${c.botClientId}
              client secret: ${c.botClientSecret}
              token URL: ${sim.url}/oauth/token  (grant_type=client_credentials, scope=bot profile)
  form        X-API-Key: ${c.formApiKey}
              X-API-Token: ${c.formApiToken}
  task        Bearer JWT: ${c.taskJwt}
              read-only JWT (403): ${sim.state.taskReadOnlyJwt}
  webhooks    secret: ${c.webhookSecret}${opts.botWebhookUrl ? `\n  bot webhook ${opts.botWebhookUrl}  (${opts.botWebhookSecret ? 'signed' : 'unsigned'}; POST /__sim/tap sends postback events there)` : ''}

Seed: users alice=${SEED.users.alice._id} bob=${SEED.users.bob._id} carol=${SEED.users.carol._id}; group "${SEED.groups.project.name}"=${SEED.groups.project._id}; knowledge "${SEED.knowledge.handbook.name}"=${SEED.knowledge.handbook.id}
Press Ctrl+C to stop.`);
	}
	let stopping = false;
	const stop = (signal: string): void => {
		if (stopping) return;
		stopping = true;
		if (!json) console.log(`\n${signal} received, stopping simulator...`);
		sim.close().then(
			() => process.exit(0),
			(e: Error) => {
				console.error(e);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e: Error) => {
	console.error(`simulator failed to start: ${e.message}`);
	process.exit(1);
});
