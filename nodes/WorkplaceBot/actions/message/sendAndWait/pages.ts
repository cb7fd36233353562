/**
 * The pages the node's webhook answers with: small self-contained HTML (no scripts, no outside
 * resources), every text escaped. The form posts back to the URL it was opened with, as
 * multipart/form-data: n8n 2.x answers 415 to any other POST to a Custom Form's resume URL.
 */
import type { FormField } from './form';
import { inputName } from './form';

export function escapeHtml(text: string): string {
	return text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');
}

/** Headers of every page: HTML, never cached or indexed, the signed URL never sent on as a referrer. */
export const PAGE_HEADERS: Record<string, string> = {
	'Content-Type': 'text/html; charset=utf-8',
	'Cache-Control': 'no-store',
	'X-Robots-Tag': 'noindex, nofollow',
	'Referrer-Policy': 'no-referrer',
	'Content-Security-Policy':
		"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

const STYLE =
	'body{font-family:system-ui,sans-serif;background:#f5f6f8;color:#1f2329;margin:0;padding:32px 16px}' +
	'main{max-width:480px;margin:0 auto;background:#fff;border-radius:8px;padding:24px;box-shadow:0 1px 3px rgba(0,0,0,.12)}' +
	'h1{font-size:20px;margin:0 0 12px}p{line-height:1.5;white-space:pre-line}label{display:block;font-weight:600;margin:16px 0 6px}' +
	'input,select,textarea{width:100%;box-sizing:border-box;padding:8px;border:1px solid #c9cdd4;border-radius:4px;font:inherit}' +
	'textarea{min-height:120px}.error{color:#c0392b;font-size:14px;margin-top:4px}' +
	'button{margin-top:20px;padding:10px 20px;border:0;border-radius:4px;background:#3370ff;color:#fff;font:inherit;cursor:pointer}';

function page(title: string, body: string): string {
	return (
		'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
		'<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow">' +
		`<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`
	);
}

/** A page with a heading and a line of text. */
export function messagePage(heading: string, text: string): string {
	return page(heading, `<h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p>`);
}

export const PAGES = {
	recorded: () => messagePage('Thank you', 'Your answer was recorded. You can close this page.'),
	alreadyRecorded: () => messagePage('Already answered', 'An answer to this message was already recorded. Nothing more is needed.'),
	preview: () => messagePage('Workplace response link', 'Open this link in a browser to answer.'),
	invalidLink: () => messagePage('Link not valid', 'This response link is not valid. Use the button in the original message.'),
};

export interface FormPageOptions {
	title: string;
	description: string;
	buttonLabel: string;
	fields: FormField[];
	/** What was typed, by field index (when the form is shown again). */
	texts?: string[];
	/** Problems by field index. */
	errors?: Array<string | undefined>;
}

function input(field: FormField, index: number, text: string): string {
	const name = inputName(index);
	const common = `id="${name}" name="${name}"${field.required ? ' required' : ''}`;
	const placeholder = field.placeholder === '' ? '' : ` placeholder="${escapeHtml(field.placeholder)}"`;
	switch (field.type) {
		case 'textarea':
			return `<textarea ${common}${placeholder}>${escapeHtml(text)}</textarea>`;
		case 'dropdown': {
			const choices = field.choices
				.map((choice) => `<option value="${escapeHtml(choice)}"${choice === text ? ' selected' : ''}>${escapeHtml(choice)}</option>`)
				.join('');
			return `<select ${common}><option value="">Choose…</option>${choices}</select>`;
		}
		default: {
			const type = field.type === 'number' ? 'number" step="any' : field.type;
			return `<input type="${type}" ${common}${placeholder} value="${escapeHtml(text)}">`;
		}
	}
}

/** The response form: its fields, the problems of a rejected submission, one submit button. */
export function formPage({ title, description, buttonLabel, fields, texts = [], errors = [] }: FormPageOptions): string {
	const heading = title === '' ? 'Your response' : title;
	const rows = fields
		.map((field, index) => {
			const error = errors[index];
			return (
				`<label for="${inputName(index)}">${escapeHtml(field.label)}${field.required ? ' *' : ''}</label>` +
				input(field, index, texts[index] ?? '') +
				(error ? `<div class="error">${escapeHtml(error)}</div>` : '')
			);
		})
		.join('');
	const intro = description === '' ? '' : `<p>${escapeHtml(description)}</p>`;
	return page(
		heading,
		`<h1>${escapeHtml(heading)}</h1>${intro}<form method="post" enctype="multipart/form-data">${rows}<button type="submit">${escapeHtml(buttonLabel)}</button></form>`,
	);
}
