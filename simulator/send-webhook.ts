#!/usr/bin/env node
/**
 * node build/simulator/send-webhook.js <url> [--kind bot|user] [--event message|join|postback]
 *   [--text T] [--user-id ID] [--username U] [--group-id G] [--topic-id T] [--picture-id P] [--file-name F]
 *   [--data D] [--action created|updated|deleted] [--raw STRING]
 *   [--secret S | --no-secret] [--signature hex|base64|none|wrong|truncated|value:<literal>] [--header 'Name: value']
 */
import { DEFAULT_CREDENTIALS } from './seed';
import { joinEvent, messageEvent, postbackEvent, sendWebhook, SignatureMode, userEvent, WebhookDelivery } from './webhook-sender';

const USAGE = `Usage: node build/simulator/send-webhook.js <url> [options]
  --kind bot|user            delivery kind (default bot)
  --event message|join|postback   bot event kind (default message)
  --text T --user-id ID --username U --group-id G --topic-id T --picture-id P --file-name F --data D
  --action created|updated|deleted   user event action (default created)
  --raw STRING               send this body verbatim (malformed deliveries)
  --secret S                 HMAC secret (default: the simulator's default webhook secret)
  --no-secret                do not sign
  --signature MODE           hex (default) | base64 | none | wrong | truncated | value:<literal>
  --header 'Name: value'     extra header (repeatable)`;

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	if (!args.length || args.includes('--help') || args.includes('-h')) {
		console.log(USAGE);
		process.exit(args.length ? 0 : 2);
	}
	const url = args[0];
	const o: Record<string, string> = {};
	const headers: Record<string, string> = {};
	let secret: string | undefined = DEFAULT_CREDENTIALS.webhookSecret;
	for (let i = 1; i < args.length; i++) {
		const a = args[i];
		if (a === '--no-secret') secret = undefined;
		else if (a === '--header') {
			const h = args[++i] ?? '';
			const idx = h.indexOf(':');
			if (idx > 0) headers[h.slice(0, idx).trim()] = h.slice(idx + 1).trim();
		} else if (a.startsWith('--')) o[a.slice(2)] = args[++i] ?? '';
		else {
			console.error(`unexpected argument ${a}\n${USAGE}`);
			process.exit(2);
		}
	}
	if (o.secret !== undefined) secret = o.secret;
	let delivery: WebhookDelivery;
	if (o.raw !== undefined) delivery = { raw: o.raw };
	else if ((o.kind ?? 'bot') === 'user') {
		const action = (o.action ?? 'created') as 'created' | 'updated' | 'deleted';
		const ev = userEvent(action, { ...(o['user-id'] ? { _id: o['user-id'] } : {}), ...(o.username ? { username: o.username } : {}) });
		delivery = { kind: 'user', action, user: ev.user };
	} else {
		const common = { userId: o['user-id'], username: o.username, groupId: o['group-id'], topicId: o['topic-id'] };
		const event = o.event ?? 'message';
		const ev =
			event === 'join'
				? joinEvent({ uid: o['user-id'], gid: o['group-id'] })
				: event === 'postback'
					? postbackEvent({ ...common, data: o.data })
					: messageEvent({ ...common, text: o.text, pictureId: o['picture-id'], fileName: o['file-name'] });
		delivery = { kind: 'bot', events: [ev] };
	}
	let signature: SignatureMode | undefined;
	const s = o.signature;
	if (s !== undefined) signature = s.startsWith('value:') ? { value: s.slice(6) } : (s as SignatureMode);
	const r = await sendWebhook(url, delivery, { secret, signature, headers });
	console.log(JSON.stringify({ sent: r.rawBody.toString('utf8'), signature: r.signature ?? null, status: r.status, response: r.body }, null, 2));
	process.exit(r.status >= 200 && r.status < 300 ? 0 : 1);
}

main().catch((e: Error) => {
	console.error(`send-webhook failed: ${e.message}`);
	process.exit(1);
});
