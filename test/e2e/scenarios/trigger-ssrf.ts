/**
 * Workplace Trigger under n8n's SSRF protection (n8n 2.12 and later, off by default): with
 * N8N_SSRF_PROTECTION_ENABLED=true the default blocked ranges hold 127.0.0.0/8, where this n8n
 * serves its waiting route, so the trigger could hand no tap on an in-chat answer button on. The
 * activation succeeds and n8n's log gets one warning naming the settings that allow the address
 * (nodes/WorkplaceTrigger/resumeRoute.ts); a second trigger activated later adds none.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { messageEvent, sendWebhook } from '../../../simulator';
import { sleep } from '../../../scripts/lib/proc';
import { fallbackLines } from '../fallbacks';
import { triggerServerScenario, type TriggerServer } from '../trigger-server';
import type { ScenarioContext } from '../types';
import { triggerWorkflow } from './trigger';

const TRIGGER_PARAMETERS = { verification: 'secret', events: ['message'] };

interface Report {
	/** The package's fallback lines n8n printed after the first activation, and after the second. */
	afterFirst: string[];
	afterSecond: string[];
	waitingRoute: string;
	/** A signed message to each trigger: the answers (both were activated). */
	deliveries: number[];
}

/** The fallback lines n8n printed, once `count` appeared or after 10 s. */
async function fallbacksOf(srv: TriggerServer, count: number): Promise<string[]> {
	for (const deadline = Date.now() + 10_000; fallbackLines(srv.output()).length < count && Date.now() < deadline; ) await sleep(200);
	return fallbackLines(srv.output());
}

async function run(ctx: ScenarioContext, srv: TriggerServer): Promise<Report> {
	const secret = ctx.sim.credentials.webhookSecret;
	const name = 'Workplace webhook secret (SSRF e2e)';
	const credential = { id: await srv.createCredential(name, 'workplaceWebhookApi', { secret }), name };
	const hooks = [randomUUID(), randomUUID()];
	await srv.createActiveWorkflow('e2e trigger under SSRF protection (1)', triggerWorkflow(hooks[0], TRIGGER_PARAMETERS, { workplaceWebhookApi: credential }));
	await srv.waitForWebhook(srv.webhookUrl(hooks[0], 'webhook'));
	const afterFirst = await fallbacksOf(srv, 1);
	await srv.createActiveWorkflow('e2e trigger under SSRF protection (2)', triggerWorkflow(hooks[1], TRIGGER_PARAMETERS, { workplaceWebhookApi: credential }));
	await srv.waitForWebhook(srv.webhookUrl(hooks[1], 'webhook'));
	await sleep(1000);
	const afterSecond = fallbackLines(srv.output());
	const deliveries: number[] = [];
	for (const hook of hooks) {
		const answer = await sendWebhook(srv.webhookUrl(hook, 'webhook'), { kind: 'bot', events: [messageEvent({ text: 'still received' })] }, { secret });
		deliveries.push(answer.status);
	}
	return { afterFirst, afterSecond, waitingRoute: `${srv.server.url}/webhook-waiting`, deliveries };
}

export const scenario = triggerServerScenario<Report>({
	name: "trigger: n8n's SSRF protection blocks its waiting route: the activation warns once (n8n 2, n8n start)",
	placeholderNote: 'the SSRF case runs in before()',
	targets: ['2'],
	options: { env: { N8N_SSRF_PROTECTION_ENABLED: 'true' }, fallbacksExpected: true },
	run,
	check(report, ctx) {
		process.stdout.write(`      [n8n ${ctx.n8nVersion}] under SSRF protection: ${report.afterFirst.join('\n') || '(no warning)'}\n`);
		assert.equal(report.afterFirst.length, 1, 'one warning after the first activation');
		const line = report.afterFirst[0];
		assert.ok(line.includes(`n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) refuses this process's requests to n8n's waiting route ${report.waitingRoute}`), line);
		assert.match(line, /N8N_SSRF_ALLOWED_HOSTNAMES .* N8N_SSRF_ALLOWED_IP_RANGES .*Resume Base URL/);
		assert.equal(report.afterSecond.length, 1, 'no second warning for a second trigger (once per process)');
		assert.deepEqual(report.deliveries, [200, 200], 'both triggers were activated and receive deliveries');
	},
});
