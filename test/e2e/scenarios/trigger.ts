/**
 * Workplace Trigger in real n8n: `n8n start`, workflows with the trigger created and ACTIVATED
 * (production webhook URL), deliveries posted by the simulator's webhook sender, and the
 * executions n8n recorded counted after every case.
 *
 * The runner executes scenarios with `n8n execute`; the trigger work happens in before() on an
 * own `n8n start` (test/e2e/trigger-server.ts), and the executed workflow is a placeholder.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { joinEvent, messageEvent, postbackEvent, SEED, sendWebhook, userEvent } from '../../../simulator';
import type { WebhookOptions, WebhookResult, WebhookDelivery } from '../../../simulator';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { ScenarioContext, WorkflowJson } from '../types';
import { ISOLATE_ENGINE, versionAtLeast } from '../../../scripts/lib/n8n';
import { sleep } from '../../../scripts/lib/proc';
import { PACKAGE } from '../workflow';

interface CaseResult {
	name: string;
	/** Status of each answer, in the order sent. */
	statuses: number[];
	expectedStatus: number | number[];
	executionsBefore: number;
	executionsAfter: number;
	expectedNewExecutions: number;
	/** Content-Type, body and Retry-After of each answer. */
	answers: Array<{ contentType: string; body: string; retryAfter?: string }>;
	/** What every body must be (the trigger's own JSON answers); undefined for answers n8n gives itself. */
	expectedBody?: RegExp;
}

/** The trigger's answers (issue 17, point 6): small JSON bodies. */
const SIMULTANEOUS = 'the same event 3 times at the same moment: one runs, the others are asked to come again or already received';
const ACCEPTED = /^\{"received":1\}$/;
const REPEATED = /^\{"received":0,"message":"Already received; no run started"\}$/;
const IGNORED = /^\{"received":0,"message":"No selected event in this delivery; no run started"\}$/;
const INVALID_SIGNATURE = /^\{"message":"Invalid X-Service-Signature"\}$/;
const MALFORMED = /^\{"message":"Malformed delivery: .+"\}$/;
/** A redelivery while the first delivery of the event is still being worked on (issue 28, point 3). */
const IN_PROGRESS = /^\{"message":"The first delivery of this event is still being received; retry later"\}$/;

/** What the short form (ctx.short, `npm run test:compat`) runs: signatures, pacing and one picture. */
interface TargetReport {
	cases: CaseResult[];
	/** Executions n8n had recorded for a new event when its answer arrived. */
	recordedAtAnswer: number;
	/** Signed workflow executions the cases should have left (5; 2 in the short form). */
	expectedSignedExecutions: number;
	/** Final executions of the signed workflow. */
	signedExecutions: number;
	imageExecution?: Record<string, unknown>;
	imageRequests: number;
	/** The rest of the full form. */
	full?: FullReport;
}

interface FullReport {
	/** A picture held past the trigger's Image Download Timeout: attempts, the redelivery during the stall, runs. */
	stall: {
		statuses: number[];
		bodies: string[];
		duringStall: { body: string; retryAfter: unknown };
		afterStall: string;
		succeeded: number;
		executions: string[];
		run?: string;
		pictureRequests: number;
	};
	/** The picture answered 503 twice, then served: the answer, the new executions and the picture's GETs (issue 34). */
	retried: { status: number; body: string; executions: string[]; run?: string; pictureStatuses: number[]; bearer: boolean[] };
	/** What n8n answered when asked to activate (publish) a trigger verifying signatures without a credential. */
	noCredentialRefusal?: string;
	/** Status of a delivery to that trigger's URL afterwards. */
	noCredentialDeliveryStatus: number;
	/** Text of the image workflow's execution of a JPEG picture whose event names it holiday.png. */
	jpegExecution?: string;
	unsignedExecutions: number;
}

/** A workflow holding only a Workplace Trigger. */
export function triggerWorkflow(webhookId: string, parameters: Record<string, unknown>, credentials: Record<string, { id: string; name: string }>): WorkflowJson {
	return {
		nodes: [
			{
				id: randomUUID(),
				name: 'Workplace Trigger',
				type: `${PACKAGE}.workplaceTrigger`,
				typeVersion: 1.1,
				position: [0, 0],
				parameters,
				credentials,
				webhookId,
			},
		],
		connections: {},
	};
}

async function runCases(ctx: ScenarioContext, srv: TriggerServer): Promise<TargetReport> {
	const secret = ctx.sim.credentials.webhookSecret;
	const secretId = await srv.createCredential('Workplace webhook secret (e2e)', 'workplaceWebhookApi', { secret });
	const botId = await srv.createCredential('Workplace bot (e2e)', 'workplaceBotOAuth2Api', {
		baseUrl: ctx.sim.url,
		clientId: ctx.sim.credentials.botClientId,
		clientSecret: ctx.sim.credentials.botClientSecret,
	});

	// Signed workflow: message, join and user created only.
	const signedHook = randomUUID();
	const signedId = await srv.createActiveWorkflow(
		'e2e trigger: signed',
		triggerWorkflow(
			signedHook,
			{ verification: 'secret', events: ['message', 'join', 'userCreated'] },
			{ workplaceWebhookApi: { id: secretId, name: 'Workplace webhook secret (e2e)' } },
		),
	);
	const url = srv.webhookUrl(signedHook, 'webhook');
	await srv.waitForWebhook(url);

	const cases: CaseResult[] = [];
	let count = (await srv.settledExecutions(signedId, 500)).length;
	const check = async (
		name: string,
		expectedStatus: number | number[],
		expectedNewExecutions: number,
		expectedBody: RegExp | undefined,
		send: () => Promise<WebhookResult | WebhookResult[]>,
	) => {
		const results = [await send()].flat();
		const after = (await srv.settledExecutions(signedId)).length;
		const statuses = results.map((r) => r.status);
		const answers = results.map((r) => ({
			contentType: String(r.headers['content-type'] ?? ''),
			body: r.body,
			retryAfter: r.headers['retry-after'] === undefined ? undefined : String(r.headers['retry-after']),
		}));
		cases.push({ name, statuses, expectedStatus, executionsBefore: count, executionsAfter: after, expectedNewExecutions, answers, expectedBody });
		count = after;
	};
	const signedSend = (delivery: WebhookDelivery, opts: WebhookOptions = {}) => sendWebhook(url, delivery, { secret, ...opts });

	const first = messageEvent({ text: 'hex signed ✓' });
	const second = messageEvent({ text: 'base64 signed' });
	const short = ctx.short;
	await check('hex signature', 200, 1, ACCEPTED, () => signedSend({ kind: 'bot', events: [first] }, { signature: 'hex' }));
	if (!short) await check('base64 signature', 200, 1, ACCEPTED, () => signedSend({ kind: 'bot', events: [second] }, { signature: 'base64' }));
	await check('wrong signature', 401, 0, INVALID_SIGNATURE, () => signedSend({ kind: 'bot', events: [messageEvent()] }, { signature: 'wrong' }));
	if (!short) {
		await check('missing signature', 401, 0, /^\{"message":"Missing X-Service-Signature header"\}$/, () =>
			signedSend({ kind: 'bot', events: [messageEvent()] }, { signature: 'none' }),
		);
		await check('truncated signature', 401, 0, INVALID_SIGNATURE, () =>
			signedSend({ kind: 'bot', events: [messageEvent()] }, { signature: 'truncated' }),
		);
		await check('duplicate (same delivery again, hex)', 200, 0, REPEATED, () => signedSend({ kind: 'bot', events: [first] }));
		await check('duplicate (same message id, new replyToken, base64)', 200, 0, REPEATED, () =>
			signedSend({ kind: 'bot', events: [{ ...second, replyToken: 'another-token' }] }, { signature: 'base64' }),
		);
		const simultaneous = joinEvent();
		await check(SIMULTANEOUS, [200, 503], 1, new RegExp(`${ACCEPTED.source}|${REPEATED.source}|${IN_PROGRESS.source}`), () =>
			Promise.all([1, 2, 3].map(() => signedSend({ kind: 'bot', events: [simultaneous] }))),
		);
		await check('the same event once more, after its first delivery was answered', 200, 0, REPEATED, () =>
			signedSend({ kind: 'bot', events: [simultaneous] }),
		);
		// n8n parses an application/json body itself before any node runs and answers 422 to bad JSON.
		await check('malformed JSON (application/json, answered by n8n)', [400, 422], 0, undefined, () =>
			signedSend({ raw: '{"events": [' }),
		);
		await check('malformed JSON (text/plain, answered by the trigger)', 400, 0, MALFORMED, () =>
			signedSend({ raw: '{"events": [', headers: { 'content-type': 'text/plain' } }),
		);
		await check('wrong shape ({"hello": 1})', 400, 0, MALFORMED, () => signedSend({ raw: '{"hello": 1}' }));
		await check('wrong shape (events not an array)', 400, 0, MALFORMED, () => signedSend({ raw: '{"events": {"type": "message"}}' }));
		await check('no selected event (postback only)', 200, 0, IGNORED, () => signedSend({ kind: 'bot', events: [postbackEvent()] }));
		await check('user created', 200, 1, ACCEPTED, () => signedSend({ kind: 'user', ...userEvent('created') }));
		await check('user deleted (not selected)', 200, 0, IGNORED, () => signedSend({ kind: 'user', ...userEvent('deleted') }));
		await check('user created, wrong signature', 401, 0, INVALID_SIGNATURE, () =>
			signedSend({ kind: 'user', ...userEvent('created') }, { signature: 'wrong' }),
		);
	}
	// n8n 2 (default expression engine): the answer waits until n8n has started the run, so the
	// execution is recorded when the answer arrives (issue 28, point 1). n8n 1, and n8n 2 before
	// 2.20 (no expression isolates, ISOLATE_ENGINE): answered at once.
	// After the cases above: the first run of a fresh n8n may take longer than the trigger's first
	// wait (2 s), after which a process that has not seen a run start yet answers at once.
	let recordedAtAnswer = -1;
	await check('a new event: answered once n8n has started its run (n8n 2)', 200, 1, ACCEPTED, async () => {
		// With a status filter n8n 2 counts running executions too (without one, finished ones only).
		const recorded = async () =>
			(await srv.server.executions({ workflowId: signedId, status: ['new', 'running', 'success', 'error'] }, 1)).count;
		const before = await recorded();
		const result = await signedSend({ kind: 'bot', events: [messageEvent({ text: 'paced' })] });
		recordedAtAnswer = (await recorded()) - before;
		return result;
	});
	const signedExecutions = count;

	// Download Images: a message with a pictureId gets the picture through the bot API.
	const imageHook = randomUUID();
	const imageId = await srv.createActiveWorkflow(
		'e2e trigger: images',
		triggerWorkflow(
			imageHook,
			{ verification: 'secret', events: ['message'], useBotCredential: true, downloadImages: true, imageSize: 'small' },
			{
				workplaceWebhookApi: { id: secretId, name: 'Workplace webhook secret (e2e)' },
				workplaceBotOAuth2Api: { id: botId, name: 'Workplace bot (e2e)' },
			},
		),
	);
	const imageUrl = srv.webhookUrl(imageHook, 'webhook');
	await srv.waitForWebhook(imageUrl);
	ctx.sim.log.clear();
	const imageResult = await sendWebhook(
		imageUrl,
		{ kind: 'bot', events: [messageEvent({ pictureId: SEED.pictures.first, fileName: 'photo.png' })] },
		{ secret },
	);
	assert.equal(imageResult.status, 200, `image delivery answered ${imageResult.status}: ${imageResult.body}`);
	const imageExecutions = await srv.settledExecutions(imageId);
	const imageExecution = imageExecutions[0] ? await srv.execution(imageExecutions[0].id) : undefined;
	const imageRequests = ctx.sim.log.find({ method: 'GET', path: `/file/image/${SEED.pictures.first}` }).length;
	const report: TargetReport = { cases, recordedAtAnswer, signedExecutions, expectedSignedExecutions: short ? 2 : 5, imageExecution, imageRequests };
	if (short) return report;

	// The platform returns a JPEG for an event naming the file holiday.png: the binary is holiday.jpg (issue 17, point 8).
	const state = ctx.sim.state as { addPicture(id: string, options?: { contentType: string; bytes: Buffer }): string };
	state.addPicture('pic-e2e-jpeg', { contentType: 'image/jpeg', bytes: Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex') });
	const jpegResult = await sendWebhook(
		imageUrl,
		{ kind: 'bot', events: [messageEvent({ pictureId: 'pic-e2e-jpeg', fileName: 'holiday.png' })] },
		{ secret },
	);
	assert.equal(jpegResult.status, 200, `JPEG delivery answered ${jpegResult.status}: ${jpegResult.body}`);
	const jpegExecutions = (await srv.settledExecutions(imageId)).filter((e) => e.id !== imageExecutions[0]?.id);
	const jpegExecution = jpegExecutions[0] ? JSON.stringify(await srv.execution(jpegExecutions[0].id)) : undefined;

	// The platform answers the picture 503 twice, then serves it: tried again within Image Download Timeout (issue 34).
	state.addPicture('pic-e2e-503');
	const retryPath = '/file/image/pic-e2e-503';
	ctx.sim.faults?.add({ method: 'GET', path: retryPath, status: 503, times: 2 });
	const known = new Set([imageExecutions[0]?.id, jpegExecutions[0]?.id]);
	const retryResult = await sendWebhook(
		imageUrl,
		{ kind: 'bot', events: [messageEvent({ pictureId: 'pic-e2e-503', fileName: 'retried.png' })] },
		{ secret },
	);
	const retryExecutions = (await srv.settledExecutions(imageId)).filter((e) => !known.has(e.id));
	const retryRequests = ctx.sim.log.find({ method: 'GET', path: retryPath });
	const retried = {
		status: retryResult.status,
		body: retryResult.body,
		executions: retryExecutions.map((e) => e.status),
		run: retryExecutions[0] ? JSON.stringify(await srv.execution(retryExecutions[0].id)) : undefined,
		pictureStatuses: retryRequests.map((r) => r.status),
		bearer: retryRequests.map((r) => /^Bearer \S+$/.test(r.headers.authorization ?? '')),
	};

	// A picture that stalls past the node's Image Download Timeout, redelivered meanwhile and after (issue 28, point 3).
	const stallHook = randomUUID();
	const stallId = await srv.createActiveWorkflow(
		'e2e trigger: stalled picture',
		triggerWorkflow(
			stallHook,
			{ verification: 'secret', events: ['message'], useBotCredential: true, downloadImages: true, imageTimeout: 2 },
			{
				workplaceWebhookApi: { id: secretId, name: 'Workplace webhook secret (e2e)' },
				workplaceBotOAuth2Api: { id: botId, name: 'Workplace bot (e2e)' },
			},
		),
	);
	const stallUrl = srv.webhookUrl(stallHook, 'webhook');
	await srv.waitForWebhook(stallUrl);
	state.addPicture('pic-e2e-stall');
	const stallPath = '/file/image/pic-e2e-stall';
	ctx.sim.faults?.add({ method: 'GET', path: stallPath, latencyMs: 8000, times: 1 });
	const stalled: WebhookDelivery = { kind: 'bot', events: [messageEvent({ pictureId: 'pic-e2e-stall', fileName: 'stalled.png' })] };
	const sendStalled = () => sendWebhook(stallUrl, stalled, { secret });
	const firstAttempt = sendStalled();
	await sleep(700);
	const duringStall = await sendStalled();
	const stallFirst = await firstAttempt;
	const afterStall = await sendStalled();
	const stallExecutions = await srv.settledExecutions(stallId);
	const stallSucceeded = stallExecutions.filter((e) => e.status === 'success');
	const stallRun = stallSucceeded[0] ? JSON.stringify(await srv.execution(stallSucceeded[0].id)) : undefined;
	const stall = {
		statuses: [stallFirst.status, duringStall.status, afterStall.status],
		bodies: [stallFirst.body, duringStall.body, afterStall.body],
		duringStall: { body: duringStall.body, retryAfter: duringStall.headers['retry-after'] },
		afterStall: afterStall.body,
		succeeded: stallSucceeded.length,
		executions: stallExecutions.map((e) => e.status),
		run: stallRun,
		pictureRequests: ctx.sim.log.find({ method: 'GET', path: stallPath }).length,
	};

	// Verification on, no credential: n8n refuses to activate (publish) it, with the trigger's message (issue 17, point 7).
	const bareHook = randomUUID();
	const noCredentialRefusal = await srv.activationRefusal(
		'e2e trigger: verification without credential',
		triggerWorkflow(bareHook, { verification: 'secret', events: ['message'] }, {}),
	);
	const bareDelivery = await fetch(srv.webhookUrl(bareHook, 'webhook'), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: '{"events":[]}',
	});
	await bareDelivery.text();
	const noCredentialDeliveryStatus = bareDelivery.status;

	// Unsigned workflow: verification None accepts a delivery without a signature.
	const openHook = randomUUID();
	const openId = await srv.createActiveWorkflow(
		'e2e trigger: unsigned',
		triggerWorkflow(openHook, { verification: 'none', events: ['*'] }, {}),
	);
	const openUrl = srv.webhookUrl(openHook, 'webhook');
	await srv.waitForWebhook(openUrl);
	const open = await sendWebhook(openUrl, { kind: 'bot', events: [postbackEvent()] });
	assert.equal(open.status, 200);
	const unsignedExecutions = (await srv.settledExecutions(openId)).length;

	report.full = { stall, retried, unsignedExecutions, jpegExecution, noCredentialRefusal, noCredentialDeliveryStatus };
	return report;
}

export const scenario = triggerServerScenario({
	name: 'trigger: signed deliveries to an active workflow (n8n start)',
	compat: true,
	placeholderNote: 'the trigger cases run in before()',
	run: runCases,
	check(report, ctx) {
		const lines = report.cases.map((c) => {
			const added = c.executionsAfter - c.executionsBefore;
			const answer = c.answers[0];
			return `${c.name}: HTTP ${c.statuses.join(', ')} ${answer.contentType} ${answer.body.slice(0, 90)}, executions +${added} (total ${c.executionsAfter})`;
		});
		process.stdout.write(`      [n8n ${ctx.n8nVersion}] trigger cases:\n${lines.map((l) => `        ${l}`).join('\n')}\n`);
		for (const c of report.cases) {
			const allowed = [c.expectedStatus].flat();
			for (const status of c.statuses) assert.ok(allowed.includes(status), `${c.name}: HTTP ${status}, expected ${allowed.join(' or ')}`);
			assert.equal(c.executionsAfter - c.executionsBefore, c.expectedNewExecutions, `${c.name}: new executions`);
			if (!c.expectedBody) continue;
			for (const answer of c.answers) {
				assert.match(answer.contentType, /^application\/json/, `${c.name}: content type`);
				assert.match(answer.body, c.expectedBody, `${c.name}: body`);
			}
		}
		process.stdout.write(`        executions recorded when the answer to a new event arrived: ${report.recordedAtAnswer}\n`);
		// n8n 2 before 2.20 (2.0.3) has no expression isolates: answered at once, as on n8n 1, and without a fallback line.
		if (ctx.target === '2' && versionAtLeast(ctx.n8nVersion, ISOLATE_ENGINE)) {
			assert.equal(report.recordedAtAnswer, 1, 'n8n 2: the answer comes once the run has started');
		}
		assert.equal(report.signedExecutions, report.expectedSignedExecutions, 'executions of the signed workflow');
		process.stdout.write(`        images: ${report.imageRequests} GET /file/image\n`);
		assert.equal(report.imageRequests, 1, 'picture requests to the simulator');
		assert.ok(report.imageExecution, 'the image delivery recorded an execution');
		const text = JSON.stringify(report.imageExecution);
		assert.match(text, /image\/png/, 'the execution holds a PNG binary');
		assert.doesNotMatch(text, /pic-0001\.png/, 'the picture is named after the event (photo.png), not the picture id');
		assert.match(String(report.imageExecution.status), /success/, 'the image execution succeeded');
		if (!report.full) return;
		checkFull(report.full, report.cases, ctx);
	},
});

function checkFull(report: FullReport, cases: CaseResult[], ctx: ScenarioContext): void {
	process.stdout.write(`        unsigned workflow executions: ${report.unsignedExecutions}\n`);
	process.stdout.write(
		`        no credential: activation refused with ${JSON.stringify(report.noCredentialRefusal)}; a delivery then: HTTP ${report.noCredentialDeliveryStatus}\n`,
	);
	// n8n 1 registers the URL and the trigger refuses; n8n 2 checks required credentials itself before
	// publishing ("Missing required credential"), so the trigger's refusal is not reached there.
	const ours = /no Workplace Webhook API credential is selected in the Workplace Trigger/;
	const refusal = ctx.target === '1' ? ours : new RegExp(`${ours.source}|Missing required credential: workplaceWebhookApi`);
	assert.match(
		report.noCredentialRefusal ?? '(activated)',
		new RegExp(`/activate answered \\d{3}: .*(${refusal.source})`),
		'activating (publishing) a trigger that verifies signatures without a credential is refused, naming the credential',
	);
	assert.equal(report.noCredentialDeliveryStatus, 404, 'the refused trigger serves no URL');
	assert.ok(report.jpegExecution, 'the JPEG delivery recorded an execution');
	assert.match(report.jpegExecution, /holiday\.jpg/, 'the JPEG is named after the event with .jpg');
	assert.match(report.jpegExecution, /image\/jpeg/, 'the JPEG binary has its type');
	// One is accepted; each other one arrives while the first is still being received (503, as on
	// n8n 2, where the answer waits for the run) or after it was answered (200, already received).
	const simultaneous = cases.find((c) => c.name === SIMULTANEOUS)!;
	assert.equal(simultaneous.answers.filter((a) => ACCEPTED.test(a.body)).length, 1, `${SIMULTANEOUS}: one accepted`);
	for (const [i, answer] of simultaneous.answers.entries()) {
		if (simultaneous.statuses[i] === 503) assert.equal(answer.retryAfter, '10', `${SIMULTANEOUS}: Retry-After of a 503`);
	}
	process.stdout.write(
		`        stalled picture: HTTP ${report.stall.statuses.join(', ')} (first attempt, redelivery during the stall, redelivery after: ${report.stall.bodies.map((b) => b.slice(0, 80)).join(' | ')}); executions ${report.stall.executions.join(', ')}; ${report.stall.pictureRequests} picture requests\n`,
	);
	assert.deepEqual(report.stall.statuses, [500, 503, 200], 'stalled picture: the first attempt fails, the redelivery meanwhile is asked to come again, the one after runs');
	assert.match(report.stall.duringStall.body, IN_PROGRESS, 'stalled picture: the answer during the stall');
	assert.equal(String(report.stall.duringStall.retryAfter), '10', 'stalled picture: Retry-After during the stall');
	assert.match(report.stall.afterStall, ACCEPTED, 'stalled picture: the redelivery after the stall starts the run');
	assert.equal(report.stall.succeeded, 1, 'stalled picture: exactly one run succeeded');
	assert.equal(report.stall.pictureRequests, 2, 'stalled picture: the stalled request and the one of the redelivery');
	assert.match(report.stall.run ?? '', /stalled\.png/, 'stalled picture: the run holds the picture');
	const { retried } = report;
	process.stdout.write(
		`        picture answered 503 twice: HTTP ${retried.status} ${retried.body}; executions ${retried.executions.join(', ')}; picture GETs answered ${retried.pictureStatuses.join(', ')}\n`,
	);
	assert.equal(retried.status, 200, 'picture answered 503 twice: the delivery is accepted');
	assert.match(retried.body, ACCEPTED, 'picture answered 503 twice: the answer');
	assert.deepEqual(retried.pictureStatuses, [503, 503, 200], 'picture answered 503 twice: asked for three times');
	assert.deepEqual(retried.bearer, [true, true, true], 'picture answered 503 twice: each GET with the bot token');
	assert.deepEqual(retried.executions, ['success'], 'picture answered 503 twice: one execution, succeeded');
	assert.match(retried.run ?? '', /retried\.png/, 'picture answered 503 twice: the item holds the picture');
	assert.match(retried.run ?? '', /image\/png/, 'picture answered 503 twice: a PNG binary');
	assert.equal(report.unsignedExecutions, 1, 'executions of the unsigned workflow');
}
