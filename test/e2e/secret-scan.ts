/**
 * Secrets in real n8n: after every scenario of a target ran (examples, faults, errors), search
 * what a user or an operator can see for the credential values: n8n's own log files (every n8n
 * process of the run logs to a file at debug level, see WORKPLACE_N8N_LOG_DIR in
 * scripts/lib/n8n/), everything `n8n execute` printed (output items, errors), and the
 * instance's database (execution data, static data; credentials there are encrypted).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { E2eSimulator, ScenarioContext, ScenarioCredential } from './types';

export interface Secret {
	label: string;
	value: string;
}

export interface Haystack {
	label: string;
	text?: string;
	file?: string;
}

export interface Finding {
	secret: string;
	where: string;
	/** The text around the find, with the secret itself masked. */
	context: string;
}

const SECRET_FIELD = /key|token|secret|password|jwt/i;
/** Shorter values would match by chance. */
const MIN_LENGTH = 8;

/**
 * Credential values of the scenarios, then (unless credentialsOnly) the simulator's own
 * credentials and every token it issued.
 */
export function collectSecrets(
	ctx: ScenarioContext,
	credentials: ScenarioCredential[],
	options: { credentialsOnly?: boolean } = {},
): Secret[] {
	const found = new Map<string, string>();
	const add = (label: string, value: unknown) => {
		if (typeof value === 'string' && value.length >= MIN_LENGTH && !found.has(value)) found.set(value, label);
	};
	for (const c of credentials) {
		for (const [field, value] of Object.entries(c.data(ctx))) if (SECRET_FIELD.test(field)) add(`${c.type}.${field}`, value);
	}
	if (options.credentialsOnly) return [...found.entries()].map(([value, label]) => ({ label, value }));
	const sim = ctx.sim as E2eSimulator & { credentials: Record<string, string> };
	for (const [field, value] of Object.entries(sim.credentials)) if (SECRET_FIELD.test(field)) add(`simulator ${field}`, value);
	if (sim.credentials.botClientId && sim.credentials.botClientSecret) {
		add('bot Basic authorization', Buffer.from(`${sim.credentials.botClientId}:${sim.credentials.botClientSecret}`).toString('base64'));
	}
	const state = sim.state as { tokens?: () => Array<{ token?: string }> } | undefined;
	for (const t of state?.tokens?.() ?? []) add('bot access token issued by the simulator', t.token);
	return [...found.entries()].map(([value, label]) => ({ label, value }));
}

/** Log files and the sqlite database (with its WAL) of a user folder, plus the log directory. */
export function fileHaystacks(logDir: string, userFolder: string): Haystack[] {
	const files: Haystack[] = [];
	if (fs.existsSync(logDir)) {
		for (const f of fs.readdirSync(logDir).sort()) files.push({ label: `n8n log ${f}`, file: path.join(logDir, f) });
	}
	for (const f of ['database.sqlite', 'database.sqlite-wal']) {
		const file = path.join(userFolder, '.n8n', f);
		if (fs.existsSync(file)) files.push({ label: `n8n database ${f}`, file });
	}
	return files;
}

export function scanForSecrets(haystacks: Haystack[], secrets: Secret[]): { findings: Finding[]; bytes: number } {
	const findings: Finding[] = [];
	let bytes = 0;
	for (const h of haystacks) {
		const text = h.text ?? (h.file ? fs.readFileSync(h.file).toString('latin1') : '');
		bytes += text.length;
		for (const s of secrets) {
			// Files are read as latin1: the secrets are ASCII, so byte offsets and text agree.
			const at = text.indexOf(s.value);
			if (at < 0) continue;
			const around = text.slice(Math.max(0, at - 80), at + s.value.length + 80).split(s.value).join(`<${s.label}>`);
			findings.push({ secret: s.label, where: h.label, context: around.replace(/[^\x20-\x7e]/g, '.') });
		}
	}
	return { findings, bytes };
}
