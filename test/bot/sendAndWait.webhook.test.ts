/**
 * Workplace Bot, Message > Send and Wait for Response: the node's webhook on the waiting
 * execution (test/helpers/waiting.ts) for approve, disapprove, free text, custom form, a second
 * click, link-preview user agents and tampered resume URLs.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { callWaitingWebhook, storedExecution } from '../helpers/waiting';
import { useSimulator } from '../helpers/simulator';
import { BROWSER, actionsOf, aliceChat, project, pushBody, resumeUrlPattern, send, sentMessage, toAlice, waitingApproval } from './sendAndWait.fixtures';

const sim = useSimulator();

/** What a link answer says about who answered: nothing but the way (a link tells no one). */
const BY_LINK = { source: 'link' };

/** An ISO time of the last minute. */
function isRecent(value: unknown): boolean {
	return typeof value === 'string' && new Date(value).toISOString() === value && Date.parse(value) > Date.now() - 60_000;
}

describe('the answer through the webhook', () => {
	it('approve: resumes with {data: {approved: true, responder: {source: "link"}, respondedAt, messageId, groupId, threadId}} and answers with a page', async () => {
		const { run, approve } = await waitingApproval(sim);
		const outcome = await callWaitingWebhook(run, { method: 'GET', url: approve, headers: { 'user-agent': BROWSER } });
		expect(outcome.status).toBe(200);
		expect(outcome.headers['content-type']).toBe('text/html; charset=utf-8');
		expect(outcome.headers['referrer-policy']).toBe('no-referrer');
		expect(outcome.body).toContain('Your answer was recorded');
		expect(outcome.result.noWebhookResponse).toBe(true);
		expect(outcome.resumed).toBe(true);
		const message = sentMessage(run);
		expect(message).toEqual({ messageId: expect.any(String), groupId: aliceChat.gid, threadId: aliceChat.tid });
		expect(outcome.items).toEqual([
			{ json: { data: { approved: true, responder: BY_LINK, respondedAt: expect.any(String), ...message } }, pairedItem: { item: 0 } },
		]);
		const data = outcome.items[0].json.data as IDataObject;
		expect(Object.keys(data)).toEqual(['approved', 'responder', 'respondedAt', 'messageId', 'groupId', 'threadId']);
		expect(isRecent(data.respondedAt)).toBe(true);
		expect(outcome.run!.data.resultData.error).toBeUndefined();
	});

	it('disapprove: resumes with {data: {approved: false, …}}', async () => {
		const { run, decline } = await waitingApproval(sim);
		const outcome = await callWaitingWebhook(run, { method: 'GET', url: decline, headers: { 'user-agent': BROWSER } });
		expect([outcome.status, outcome.resumed]).toEqual([200, true]);
		expect(outcome.items.map((i) => i.json)).toEqual([{ data: { approved: false, responder: BY_LINK, respondedAt: expect.any(String), ...sentMessage(run) } }]);
	});

	it('a second click on the same message resumes nothing and says the answer was recorded', async () => {
		const { run, approve, decline } = await waitingApproval(sim);
		const stored = storedExecution(run);
		const first = await callWaitingWebhook(run, { method: 'GET', url: approve, stored });
		const second = await callWaitingWebhook(run, { method: 'GET', url: decline, stored });
		expect(first.resumed).toBe(true);
		expect([second.status, second.resumed, second.result]).toEqual([200, false, { noWebhookResponse: true }]);
		expect(second.body).toContain('An answer to this message was already recorded');
	});

	it.each([
		'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
		'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
		'Twitterbot/1.0',
		'WhatsApp/2.23.20.0 A',
		'TelegramBot (like TwitterBot)',
		'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
		'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
		'Mozilla/5.0 (compatible; ExampleCrawler/1.0)',
		'Mozilla/5.0 (compatible; SiteSpider)',
		'Workplace link preview',
	])('the link-preview or crawler agent "%s" gets a page and resumes nothing', async (agent) => {
		const { run, approve } = await waitingApproval(sim);
		const stored = storedExecution(run);
		const preview = await callWaitingWebhook(run, { method: 'GET', url: approve, headers: { 'user-agent': agent }, stored });
		expect([preview.status, preview.resumed, preview.result]).toEqual([200, false, { noWebhookResponse: true }]);
		expect(preview.body).toContain('Open this link in a browser to answer');
		// The person's click afterwards still counts.
		const click = await callWaitingWebhook(run, { method: 'GET', url: approve, headers: { 'user-agent': BROWSER }, stored });
		expect(click.items.map((i) => i.json)).toEqual([{ data: { approved: true, responder: BY_LINK, respondedAt: expect.any(String), ...sentMessage(run) } }]);
	});

	it('a phone whose model name ends in "bot" (CUBOT) is a person, not a crawler', async () => {
		const { run, approve } = await waitingApproval(sim);
		const agent = 'Mozilla/5.0 (Linux; Android 10; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36';
		const outcome = await callWaitingWebhook(run, { method: 'GET', url: approve, headers: { 'user-agent': agent } });
		expect(outcome.items.map((i) => i.json)).toEqual([{ data: { approved: true, responder: BY_LINK, respondedAt: expect.any(String), ...sentMessage(run) } }]);
	});

	it.each([
		['a changed signature', (url: URL) => url.searchParams.set('signature', flip(url.searchParams.get('signature')!))],
		['no signature', (url: URL) => url.searchParams.delete('signature')],
		['a changed answer', (url: URL) => url.searchParams.set('approved', 'false')],
		['a changed nonce', (url: URL) => url.searchParams.set('nonce', '0123456789abcdef')],
		['an added parameter', (url: URL) => url.searchParams.set('utm_source', 'mail')],
	])('a resume URL with %s is refused', async (_, tamper) => {
		const { run, approve } = await waitingApproval(sim);
		const url = new URL(approve);
		tamper(url);
		const outcome = await callWaitingWebhook(run, { method: 'GET', url: url.toString(), headers: { 'user-agent': BROWSER } });
		expect([outcome.status, outcome.resumed, outcome.result]).toEqual([401, false, { noWebhookResponse: true }]);
		expect(outcome.body).toContain('This response link is not valid');
	});

	it('a resume URL used on another execution id is refused', async () => {
		const { run, approve } = await waitingApproval(sim);
		const outcome = await callWaitingWebhook(run, { method: 'GET', url: approve, executionId: `${run.executionId}9` });
		expect([outcome.status, outcome.resumed]).toEqual([401, false]);
	});

	it('free text: GET serves the form, an empty POST shows it again, a POST with text resumes with {data: {text, responder, respondedAt, messageId, groupId, threadId}}', async () => {
		const run = await send(sim, {
			sendTo: 'group',
			groupId: project._id,
			topicId: project.topics.release._id,
			title: 'Release notes',
			message: 'What should the <release> notes say?',
			responseType: 'freeText',
			options: { messageButtonLabel: 'Answer', responseFormButtonLabel: 'Send' },
		});
		expect(run.error).toBeUndefined();
		const body = pushBody(sim, run.pushes[0]);
		expect(body.tid).toBe(project.topics.release._id);
		const [button] = actionsOf(body);
		expect(button.label).toBe('Answer');
		expect(button.linkUri).toMatch(resumeUrlPattern(run.executionId, run.workflow.getNode(run.nodeName)!.id, ''));
		const stored = storedExecution(run);

		const form = await callWaitingWebhook(run, { method: 'GET', url: button.linkUri, headers: { 'user-agent': BROWSER }, stored });
		expect([form.status, form.resumed]).toEqual([200, false]);
		expect(form.body).toContain('<h1>Release notes</h1>');
		expect(form.body).toContain('What should the &lt;release&gt; notes say?');
		expect(form.body).toContain('<form method="post" enctype="multipart/form-data">');
		expect(form.body).toContain('<textarea id="field-0" name="field-0" required>');
		expect(form.body).toContain('<button type="submit">Send</button>');
		expect(form.body).not.toContain('<script');

		const empty = await callWaitingWebhook(run, { method: 'POST', url: button.linkUri, body: { 'field-0': '  ' }, stored });
		expect([empty.status, empty.resumed]).toEqual([400, false]);
		expect(empty.body).toContain('This field is required');

		const answered = await callWaitingWebhook(run, { method: 'POST', url: button.linkUri, body: { 'field-0': 'Faster uploads' }, stored });
		expect([answered.status, answered.resumed]).toEqual([200, true]);
		expect(answered.body).toContain('Your answer was recorded');
		const message = sentMessage(run);
		expect(message).toEqual({ messageId: expect.any(String), groupId: project._id, threadId: project.topics.release._id });
		expect(answered.items).toEqual([
			{ json: { data: { text: 'Faster uploads', responder: BY_LINK, respondedAt: expect.any(String), ...message } }, pairedItem: { item: 0 } },
		]);
		expect(isRecent((answered.items[0].json.data as IDataObject).respondedAt)).toBe(true);

		const again = await callWaitingWebhook(run, { method: 'GET', url: button.linkUri, stored });
		expect([again.status, again.resumed]).toEqual([200, false]);
		expect(again.body).toContain('already recorded');
	});

	it('custom form: the fields defined in the node, checked on POST, resume with {data: {<label>: value, responder, respondedAt, messageId, groupId, threadId}}', async () => {
		const run = await send(sim, {
			...toAlice,
			message: 'Tell us about the trip',
			responseType: 'customForm',
			formFields: {
				values: [
					{ fieldLabel: 'Destination', fieldType: 'text', requiredField: true, placeholder: 'e.g. Berlin' },
					{ fieldLabel: 'Budget', fieldType: 'number' },
					{ fieldLabel: 'Priority', fieldType: 'dropdown', fieldOptions: 'Low, High' },
					{ fieldLabel: 'Start', fieldType: 'date' },
					{ fieldLabel: 'Contact', fieldType: 'email' },
				],
			},
		} as unknown as INodeParameters);
		expect(run.error).toBeUndefined();
		const [button] = actionsOf(pushBody(sim, run.pushes[0]));
		expect(button.label).toBe('Respond');
		const stored = storedExecution(run);

		const form = await callWaitingWebhook(run, { method: 'GET', url: button.linkUri, stored });
		expect(form.status).toBe(200);
		expect(form.body).toContain('<input type="text" id="field-0" name="field-0" required placeholder="e.g. Berlin" value="">');
		expect(form.body).toContain('<input type="number" step="any" id="field-1" name="field-1" value="">');
		expect(form.body).toContain('<option value="High">High</option>');
		expect(form.body).toContain('<input type="date" id="field-3" name="field-3" value="">');
		expect(form.body).toContain('<input type="email" id="field-4" name="field-4" value="">');

		expect(form.body).toContain('<form method="post" enctype="multipart/form-data">');

		// The page posts multipart/form-data, which n8n parses into {data: fields, files}; a
		// form-urlencoded or JSON body arrives as the fields themselves.
		const submit = async (answers: string[], multipart = false) => {
			const fields = Object.fromEntries(answers.map((value, index) => [`field-${index}`, value]));
			return await callWaitingWebhook(run, {
				method: 'POST',
				url: button.linkUri,
				body: multipart ? { data: fields, files: {} } : fields,
				stored,
			});
		};
		const bad = await submit(['Berlin', 'lots', 'Urgent', '2025-02-30', 'nobody']);
		expect([bad.status, bad.resumed]).toEqual([400, false]);
		for (const text of ['Enter a number', 'Choose one of the options', 'Enter a date (YYYY-MM-DD)', 'Enter an email address']) {
			expect(bad.body).toContain(text);
		}
		expect(bad.body).toContain('value="Berlin"');

		const badMultipart = await submit(['', '1'], true);
		expect([badMultipart.status, badMultipart.resumed]).toEqual([400, false]);
		expect(badMultipart.body).toContain('This field is required');

		const good = await submit(['Berlin', '120.5', 'High', '2025-03-31', ''], true);
		expect(good.resumed).toBe(true);
		expect(good.items.map((i) => i.json)).toEqual([
			{
				data: {
					Destination: 'Berlin',
					Budget: 120.5,
					Priority: 'High',
					Start: '2025-03-31',
					Contact: '',
					responder: BY_LINK,
					respondedAt: expect.any(String),
					...sentMessage(run),
				},
			},
		]);
	});
});

function flip(hex: string): string {
	return (hex[0] === '0' ? '1' : '0') + hex.slice(1);
}

