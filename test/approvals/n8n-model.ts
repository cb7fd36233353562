/**
 * A model of n8n for the in-chat approvals (docs/ARCHITECTURE.md, "In-chat approvals"): several
 * n8n processes in one test process, in virtual time (virtual-world.ts), running the package's
 * real code: the Workplace Trigger's webhook() for every request to its URL and the waiting Send
 * and Wait node's webhook() for every request to a resume URL. What it models of n8n (1.123 and
 * 2.41, read in n8n's source):
 * - a request to the trigger's URL (a live webhook, live-webhooks.ts) loads the workflow's static
 *   data from the database when it starts; when anything wrote to it (ObservableObject's flag,
 *   set by every write), n8n saves it whole once webhook() returned: the last writer wins. A
 *   webhook() that throws saves nothing;
 * - a request to a waiting URL (waiting-webhooks.ts) checks n8n's URL signature, loads the
 *   execution and answers itself unless it waits: 409 while it runs, a page once it finished. When
 *   the node returns workflowData the execution resumes: n8n 2 only if it still waits then
 *   (updateExistingExecution with requireStatus), n8n 1 unconditionally;
 * - each process has its own memory, lost with its timers and requests in flight on a restart;
 * - any process may get any request (queue mode's webhook processes behind a proxy).
 * The platform delivers signed deliveries, retries a 5xx or a lost answer after 10 s (Retry-After)
 * up to 5 times, and stores what the bot posts.
 */
import { createHmac } from 'node:crypto';
import type { IDataObject, IHttpRequestOptions, ITriggerFunctions, ITriggerResponse, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { SentAnswer } from '../helpers/fake-response';
import { votesFieldOf } from '../../nodes/WorkplaceTrigger/approvals/questionStore';
import { FakeResponse } from '../helpers/fake-response';
import type { Proc, Rng } from './virtual-world';
import { VirtualWorld } from './virtual-world';

export const N8N_URL = 'https://n8n.model';
export const WAITING_BASE = `${N8N_URL}/webhook-waiting`;
export const TRIGGER_WEBHOOK_ID = '6f0b6c1e-0000-4a10-8000-00000000a001';
export const TRIGGER_URL = `${N8N_URL}/webhook/${TRIGGER_WEBHOOK_ID}/webhook`;
export const TRIGGER_NAME = 'Workplace Trigger';
export const WEBHOOK_SECRET = 'model-webhook-secret';
const N8N_SIGNING_SECRET = 'model-n8n-hmac-secret';

/** The platform's retries of a delivery answered 5xx or not at all. */
const PLATFORM_RETRIES = 5;
const PLATFORM_RETRY_AFTER_MS = 10_000;
/** How long the platform waits for a delivery's answer (not shown in the spec; docs/assumptions.md). */
const PLATFORM_ANSWER_MS = 60_000;

export type Major = 1 | 2;

/** What the package's code reaches through these stand-ins, by the module it comes from. */
export interface PackageCode {
	receiveDelivery: (this: IWebhookFunctions) => Promise<IWebhookResponseData>;
	sendAndWaitWebhook: (this: IWebhookFunctions) => Promise<IWebhookResponseData>;
	startClock: (ctx: ITriggerFunctions) => Promise<ITriggerResponse>;
}

/** A request a process posted to the trigger's own URL (recounts, ticks, kept questions). */
export interface OwnPost {
	at: number;
	process: string;
	body: string;
}

export interface Execution {
	id: string;
	nodeId: string;
	status: 'waiting' | 'running' | 'success' | 'canceled';
	/** The Send and Wait node's parameters. */
	parameters: IDataObject;
	/** The question's message, as the stack item keeps it. */
	message: IDataObject;
	resumes: Array<{ at: number; process: string; data: IDataObject; loadedAt: number }>;
	/** When it stopped waiting without an answer (Stop, or its wait time ran out). */
	endedAt?: number;
}

export interface Delivery {
	raw: string;
	events: IDataObject[];
	/** When the platform first got a 2xx for it. */
	acceptedAt?: number;
	attempts: number;
	answers: number[];
}

export interface ChatPost {
	at: number;
	gid: string;
	tid: string;
	texts: string[];
}

/** What every n8n process writes to its log, with the process and time. */
export interface LogLine {
	at: number;
	process: string;
	level: string;
	message: string;
}


/** Marks `changed` on every write at any depth, as n8n's ObservableObject sets `__dataChanged`. */
function observe<T extends object>(target: T, changed: () => void): T {
	return new Proxy(target, {
		get(object, key, receiver) {
			const value: unknown = Reflect.get(object, key, receiver);
			return value !== null && typeof value === 'object' ? observe(value, changed) : value;
		},
		set(object, key, value, receiver) {
			changed();
			return Reflect.set(object, key, value, receiver);
		},
		deleteProperty(object, key) {
			changed();
			return Reflect.deleteProperty(object, key);
		},
	});
}

/** n8n's signature of a resume URL: the HMAC of the URL without it. */
function urlSignature(url: URL): string {
	const unsigned = new URL(url.toString());
	unsigned.searchParams.delete('signature');
	return createHmac('sha256', N8N_SIGNING_SECRET).update(unsigned.toString()).digest('hex');
}

export function signedResumeUrl(executionId: string, nodeId: string, query: Record<string, string>): string {
	const url = new URL(`${WAITING_BASE}/${executionId}/${nodeId}`);
	for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
	url.searchParams.set('signature', urlSignature(url));
	return url.toString();
}

export function platformSignature(raw: string): string {
	return createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('hex');
}

export interface ModelOptions {
	major: Major;
	processes: number;
	rng: Rng;
	code: PackageCode;
	/** The trigger node's parameters beyond the defaults. */
	trigger?: IDataObject;
	startAt?: number;
}

export class N8nModel {
	readonly world: VirtualWorld;

	readonly major: Major;

	/** The database's copy of the workflow's static data. */
	staticData = '{}';

	readonly executions = new Map<string, Execution>();

	readonly chat: ChatPost[] = [];

	readonly log: LogLine[] = [];

	/** Runs the trigger started (items of its deliveries), in order. */
	readonly runs: IDataObject[][] = [];

	readonly deliveries: Delivery[] = [];

	/** Pictures the platform serves slowly: pictureId -> ms. */
	readonly pictureLatency = new Map<string, number>();

	readonly ownPosts: OwnPost[] = [];

	/** The trigger's URL refuses connections (a proxy down): requests to it fail. */
	triggerDown = false;

	/** Until when the trigger's clock ticks (n8n's cron runs while the workflow is active). */
	private clockUntil = 0;

	private readonly rng: Rng;

	private readonly code: PackageCode;

	private readonly triggerParameters: IDataObject;

	/** Requests each process is working on: a restart answers them with a lost connection. */
	private readonly inFlight = new Map<Proc, Set<() => void>>();

	constructor(options: ModelOptions) {
		this.major = options.major;
		this.rng = options.rng;
		this.code = options.code;
		this.world = new VirtualWorld(
			Array.from({ length: options.processes }, (_, i) => `n8n-${i + 1}`),
			options.startAt ?? Date.parse('2026-11-27T10:00:00.000Z'),
		);
		this.triggerParameters = {
			events: ['message'],
			verification: 'secret',
			useBotCredential: true,
			downloadImages: true,
			imageSize: 'medium',
			binaryPropertyName: 'data',
			imageTimeout: 300,
			options: {},
			...options.trigger,
		};
	}

	close(): void {
		this.world.close();
	}

	/** The trigger node's stored static data (parsed). */
	/** The trigger's counted votes as stored (global static data, under its webhook ID). */
	storedVotes(): IDataObject {
		const all = JSON.parse(this.staticData) as IDataObject;
		return (((all.global as IDataObject | undefined) ?? {})[votesFieldOf(TRIGGER_WEBHOOK_ID)] as IDataObject | undefined) ?? {};
	}

	/** A process chosen as a proxy in front of several would choose one. */
	private anyProcess(): Proc {
		return this.rng.pick(this.world.processes);
	}

	private latency(): number {
		return this.rng.int(1, 250);
	}

	/**
	 * An HTTP request from `from` (undefined: the platform): it reaches a process after a random
	 * time, which answers it as n8n would; the answer comes back after another. Out of time, or its
	 * process restarted: the request fails as a lost connection does.
	 */
	async request(from: Proc | undefined, options: IHttpRequestOptions): Promise<unknown> {
		const url = String(options.url);
		const raw = typeof options.body === 'string' ? options.body : JSON.stringify(options.body ?? {});
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = String(value);
		if (from && url.startsWith(TRIGGER_URL)) this.ownPosts.push({ at: Date.now(), process: from.name, body: raw });
		return await new Promise((resolve, reject) => {
			let done = false;
			const end = (work: () => void) => {
				if (done) return;
				done = true;
				work();
			};
			const fail = (message: string, code: string) => end(() => reject(Object.assign(new Error(message), { code })));
			this.world.at(from, options.timeout ?? 300_000, () => fail(`timeout of ${options.timeout}ms exceeded`, 'ECONNABORTED'));
			if (this.triggerDown && url.startsWith(TRIGGER_URL)) {
				this.world.at(from, this.latency(), () => fail('connect ECONNREFUSED', 'ECONNREFUSED'));
				return;
			}
			const to = this.anyProcess();
			this.world.at(to, this.latency(), () => {
				const lost = () => this.world.at(from, 1, () => fail('socket hang up', 'ECONNRESET'));
				const working = this.inFlight.get(to) ?? new Set();
				this.inFlight.set(to, working);
				working.add(lost);
				const answer = (response: SentAnswer) => {
					working.delete(lost);
					this.world.at(from, this.latency(), () =>
						end(() => {
							if (response.status >= 400 && !options.ignoreHttpStatusErrors) {
								reject(Object.assign(new Error(`Request failed with status code ${response.status}`), { httpCode: String(response.status) }));
								return;
							}
							const body = options.json ? response.body : typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
							resolve(options.returnFullResponse ? { statusCode: response.status, body, headers: response.headers } : body);
						}),
					);
				};
				const handling = url.startsWith(WAITING_BASE)
					? this.waitingRequest(to, url, raw, answer)
					: url.startsWith(TRIGGER_URL)
						? this.triggerRequest(to, Buffer.from(raw), headers, answer)
						: Promise.resolve(answer({ status: 404, body: { message: 'not found' }, headers: {} }));
				void handling.catch((error: Error) => answer({ status: 500, body: { message: error.message }, headers: {} }));
			});
		});
	}

	/** A restart of one process: its memory, timers and requests are gone; n8n starts the trigger's clock again on the leader. */
	restart(proc: Proc): void {
		this.world.restart(proc);
		for (const lost of this.inFlight.get(proc) ?? []) lost();
		this.inFlight.delete(proc);
		if (proc === this.world.processes[0] && Date.now() < this.clockUntil) this.world.at(proc, this.rng.int(1_000, 5_000), () => this.startTrigger());
	}

	/**
	 * n8n activates the workflow: the trigger wrote its address into the global static data
	 * (checkExists), and its trigger() runs on the leader (the first process), whose cron ticks
	 * every 30 s until `untilMs` from now.
	 */
	activate(untilMs: number): void {
		const all = JSON.parse(this.staticData) as IDataObject;
		all.global = { workplaceTriggerClocks: { [TRIGGER_WEBHOOK_ID]: { url: TRIGGER_URL } } };
		this.staticData = JSON.stringify(all);
		this.clockUntil = Date.now() + untilMs;
		this.world.at(this.world.processes[0], 0, () => this.startTrigger());
	}

	/** trigger() on the leader, with the static data as n8n loaded it at activation. */
	private startTrigger(): void {
		const leader = this.world.processes[0];
		const activationCopy = JSON.parse(this.staticData) as IDataObject;
		const ctx = {
			getMode: () => 'trigger',
			getNode: () => this.triggerNode(),
			getWorkflow: () => ({ id: 'wf-model', name: 'Approvals model', active: true }),
			getNodeParameter: (name: string, fallback?: unknown) => this.triggerParameters[name] ?? fallback,
			getWorkflowStaticData: (type: string) => (activationCopy[type === 'global' ? 'global' : `node:${TRIGGER_NAME}`] ?? {}) as IDataObject,
			getCredentials: async () => await Promise.resolve({ secret: WEBHOOK_SECRET }),
			helpers: {
				httpRequest: async (options: IHttpRequestOptions) => await this.request(this.world.running, options),
				registerCron: (_cron: unknown, onTick: () => void) => {
					const next = () => {
						if (Date.now() > this.clockUntil) return;
						onTick();
						this.world.at(leader, 30_000 - (Date.now() % 30_000), next);
					};
					this.world.at(leader, 30_000 - (Date.now() % 30_000), next);
				},
			},
			logger: this.logger(leader),
		} as unknown as ITriggerFunctions;
		void this.code.startClock(ctx);
	}

	private triggerNode() {
		return {
			id: '6f0b6c1e-0000-4a10-8000-00000000a002',
			name: TRIGGER_NAME,
			type: 'n8n-nodes-workplace.workplaceTrigger',
			typeVersion: 1.1,
			webhookId: TRIGGER_WEBHOOK_ID,
			parameters: this.triggerParameters,
			credentials: { workplaceWebhookApi: { id: '1', name: 'Webhook' }, workplaceBotOAuth2Api: { id: '2', name: 'Bot' } },
		};
	}

	private logger(proc: Proc) {
		const line = (level: string) => (message: string) => this.log.push({ at: Date.now(), process: proc.name, level, message });
		return { info: line('info'), warn: line('warn'), error: line('error'), debug: () => {}, verbose: () => {} };
	}

	/** A delivery to the trigger's URL, as n8n's live webhooks handle it. */
	private async triggerRequest(proc: Proc, raw: Buffer, headers: Record<string, string>, answer: (response: SentAnswer) => void): Promise<void> {
		const copy = JSON.parse(this.staticData) as IDataObject;
		let changed = false;
		const staticData = observe(copy, () => {
			changed = true;
		});
		const res = new FakeResponse(answer);
		const node = this.triggerNode();
		const ctx = {
			getNode: () => node,
			getWorkflow: () => ({ id: 'wf-model', name: 'Approvals model', active: true }),
			getMode: () => 'webhook',
			getHeaderData: () => headers,
			getRequestObject: () => ({ rawBody: raw, headers, method: 'POST' }),
			getResponseObject: () => res,
			getBodyData: () => JSON.parse(raw.toString('utf8')) as IDataObject,
			getNodeParameter: (name: string, fallback?: unknown) => this.triggerParameters[name] ?? fallback,
			getCredentials: async (type: string) => {
				await this.pause();
				if (type === 'workplaceWebhookApi') return { secret: WEBHOOK_SECRET };
				return { baseUrl: 'https://platform.model', clientId: 'id', clientSecret: 'secret' };
			},
			getWorkflowStaticData: (type: string) => {
				const key = type === 'global' ? 'global' : `node:${TRIGGER_NAME}`;
				if (staticData[key] === undefined) staticData[key] = {};
				return staticData[key] as IDataObject;
			},
			getNodeWebhookUrl: () => TRIGGER_URL,
			helpers: { httpRequest: async (options: IHttpRequestOptions) => await this.request(this.world.running, options) },
			logger: this.logger(proc),
		} as unknown as IWebhookFunctions;
		let result: IWebhookResponseData;
		try {
			result = await this.code.receiveDelivery.call(ctx);
		} catch (error) {
			if (!res.headersSent) res.status(500).json({ message: (error as Error).message });
			return;
		}
		if (changed) this.staticData = JSON.stringify(copy);
		if (result.workflowData) this.runs.push(result.workflowData[0].map((item) => item.json));
		if (!res.headersSent) res.status(200).json({ message: 'Workflow was started' });
	}

	/** A request to a resume URL, as n8n's waiting webhooks handle it. */
	private async waitingRequest(proc: Proc, href: string, raw: string, answer: (response: SentAnswer) => void): Promise<void> {
		const url = new URL(href);
		const [executionId, nodeId] = url.pathname.split('/').slice(-2);
		const execution = this.executions.get(executionId);
		const given = url.searchParams.get('signature') ?? '';
		if (!execution || given !== urlSignature(url)) return answer({ status: execution ? 401 : 404, body: { error: 'Invalid token' }, headers: {} });
		if (execution.status === 'running') return answer({ status: 409, body: { message: `The execution "${executionId}" is running already.` }, headers: {} });
		if (execution.status !== 'waiting') return answer({ status: 200, body: '<html>No action required</html>', headers: {} });
		const loadedAt = Date.now();
		const res = new FakeResponse(answer);
		const query = Object.fromEntries(url.searchParams.entries());
		const node = {
			id: nodeId,
			name: 'Ask for approval',
			type: 'n8n-nodes-workplace.workplaceBot',
			typeVersion: 1,
			parameters: execution.parameters,
			credentials: { workplaceWebhookApi: { id: '1', name: 'Webhook' }, workplaceBotOAuth2Api: { id: '2', name: 'Bot' } },
		};
		const ctx = {
			getNode: () => node,
			getWorkflow: () => ({ id: 'wf-model', name: 'Approvals model', active: true }),
			getMode: () => 'webhook',
			getExecutionId: () => execution.id,
			getHeaderData: () => ({ 'user-agent': 'n8n-nodes-workplace (Workplace Trigger)' }),
			getQueryData: () => query,
			getBodyData: () => JSON.parse(raw) as IDataObject,
			getRequestObject: () => ({ method: 'POST', headers: {} }),
			getResponseObject: () => res,
			getNodeParameter: (name: string, fallback?: unknown) => name.split('.').reduce<unknown>((value, part) => (value as IDataObject | undefined)?.[part], execution.parameters) ?? fallback,
			getCredentials: async (type: string) => {
				await this.pause();
				if (type === 'workplaceWebhookApi') return { secret: WEBHOOK_SECRET };
				return { baseUrl: 'https://platform.model', clientId: 'id', clientSecret: 'secret' };
			},
			getSignedResumeUrl: (parameters: Record<string, string>) => signedResumeUrl(execution.id, nodeId, parameters),
			evaluateExpression: () => execution.message,
			helpers: { httpRequest: async (options: IHttpRequestOptions) => await this.request(this.world.running, options) },
			logger: this.logger(proc),
		} as unknown as IWebhookFunctions;
		const result = await this.code.sendAndWaitWebhook.call(ctx);
		if (!result.workflowData) {
			if (!res.headersSent) res.status(200).json({});
			return;
		}
		// n8n 2 takes the resume only while the execution still waits; n8n 1 takes it whatever it is.
		if (this.major === 2 && execution.status !== 'waiting') return answer({ status: 409, body: { message: 'The execution was resumed already' }, headers: {} });
		execution.status = 'running';
		execution.resumes.push({ at: Date.now(), process: proc.name, data: result.workflowData[0][0].json.data as IDataObject, loadedAt });
		this.world.at(undefined, this.rng.int(50, 2_000), () => {
			if (execution.status === 'running') execution.status = 'success';
		});
		answer({ status: 200, body: result.webhookResponse ?? {}, headers: {} });
	}

	/** A short wait inside n8n (reading a credential, the database): where other requests slip in. */
	private async pause(): Promise<void> {
		await new Promise<void>((resolve) => setTimeout(resolve, this.rng.int(0, 20)));
	}

	/** The platform: what the bot posts (through the package's botRequest). */
	botPost(body: IDataObject): void {
		const messages = Array.isArray(body.messages) ? (body.messages as IDataObject[]) : [];
		this.chat.push({ at: Date.now(), gid: String(body.gid ?? ''), tid: String(body.tid ?? ''), texts: messages.map((m) => String(m.text ?? m.type)) });
	}

	/** The platform sends a delivery at `atMs` from now, and again after a 5xx or no answer. */
	deliver(delivery: Delivery, atMs: number): void {
		this.world.at(undefined, atMs, () => void this.attempt(delivery));
	}

	private async attempt(delivery: Delivery): Promise<void> {
		delivery.attempts++;
		let status = 0;
		try {
			const answer = (await this.request(undefined, {
				method: 'POST',
				url: TRIGGER_URL,
				body: delivery.raw,
				json: false,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				timeout: PLATFORM_ANSWER_MS,
				headers: { 'content-type': 'application/json', 'x-service-signature': platformSignature(delivery.raw) },
			})) as { statusCode: number };
			status = answer.statusCode;
		} catch {
			status = 0;
		}
		delivery.answers.push(status);
		if (status >= 200 && status < 300) {
			delivery.acceptedAt ??= Date.now();
			return;
		}
		if ((status === 0 || status >= 500) && delivery.attempts <= PLATFORM_RETRIES) {
			this.world.at(undefined, PLATFORM_RETRY_AFTER_MS, () => void this.attempt(delivery));
		}
	}
}
