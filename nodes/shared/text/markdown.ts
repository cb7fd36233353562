/**
 * Markdown turned into readable plain text, for a platform that shows text as written (the spec
 * says nothing of formatting). What is kept and what goes:
 *
 * - code blocks (``` or ~~~ fences): the fence lines go, the code stays exactly as written;
 *   inline code loses its backticks, its text stays as written;
 * - headings (`# Title`, and `Title` underlined with `===` or `---`): the text alone;
 * - emphasis (`**bold**`, `__bold__`, `*italic*`, `_italic_`, `~~struck~~`): the text alone;
 *   underscores inside words (snake_case) stay;
 * - links `[text](url)`: `text (url)`, or the URL alone when it is the text; images `![alt](url)`
 *   the same; `<https://...>`: the URL;
 * - lists: kept, `*` and `+` bullets written as `-`; numbered lists and quotes (`>`) as written;
 * - rules (`---`, `***`, `___`): `---`; backslash escapes (`\*`): the character.
 */

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/** Inline Markdown of one line (outside code): links, emphasis, escapes. */
function inline(text: string): string {
	// Inline code is cut out first and put back as written.
	const codes: string[] = [];
	let out = text.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_, _ticks: string, code: string) => {
		codes.push(code.trim() === '' ? code : code.replace(/^ (.*) $/, '$1'));
		return `\uE000${codes.length - 1}\uE000`;
	});
	// Escaped characters are kept aside too, so they do not take part in emphasis.
	const escapes: string[] = [];
	out = out.replace(/\\([\\`*_{}[\]()#+\-.!~>|])/g, (_, char: string) => {
		escapes.push(char);
		return `\uE001${escapes.length - 1}\uE001`;
	});
	const link = (label: string, url: string) => {
		const target = url.trim().replace(/\s+["'(].*$/, '').replace(/^<(.*)>$/, '$1');
		return label.trim() === '' || label.trim() === target ? target : `${label} (${target})`;
	};
	out = out
		.replace(/!\[([^\]]*)\]\(([^)\s]+(?:\s+"[^"]*")?)\)/g, (_, label: string, url: string) => link(label, url))
		.replace(/\[([^\]]+)\]\(([^)\s]+(?:\s+"[^"]*")?)\)/g, (_, label: string, url: string) => link(label, url))
		.replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
		.replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, (whole, marker: string, inner: string, offset: number, all: string) =>
			marker === '__' && (/\w/.test(all[offset - 1] ?? '') || /\w/.test(all[offset + whole.length] ?? '')) ? whole : inner,
		)
		.replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
		.replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])/g, '$1$2')
		.replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1$2');
	out = out.replace(/\uE001(\d+)\uE001/g, (_, i: string) => escapes[Number(i)]);
	return out.replace(/\uE000(\d+)\uE000/g, (_, i: string) => codes[Number(i)]);
}

/** `text` with its Markdown syntax removed as described above. */
export function markdownToPlainText(text: string): string {
	const lines = text.split(/\r?\n/);
	const out: string[] = [];
	let fence: string | undefined;
	for (const line of lines) {
		const opening = FENCE.exec(line);
		if (fence !== undefined) {
			if (opening && opening[1][0] === fence[0] && opening[1].length >= fence.length && line.trim() === opening[1]) fence = undefined;
			else out.push(line);
			continue;
		}
		if (opening) {
			fence = opening[1];
			continue;
		}
		const afterText = out.length > 0 && out[out.length - 1].trim() !== '';
		// A heading's underline (`===` or `---` under a line of text) goes; that line is its text.
		if (afterText && /^\s{0,3}(=+|-+)\s*$/.test(line)) continue;
		if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
			out.push('---');
			continue;
		}
		const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
		if (heading) {
			out.push(inline(heading[1]));
			continue;
		}
		const bullet = /^(\s*)[*+-]\s+(.*)$/.exec(line);
		if (bullet) {
			out.push(`${bullet[1]}- ${inline(bullet[2])}`);
			continue;
		}
		out.push(inline(line));
	}
	return out.join('\n');
}
