/**
 * A long text cut into messages of at most `maxLength` characters (Unicode code points, as the
 * node counts the platform's limits), sent one after another. Each part ends at the last boundary
 * that fits, of the first kind found: a paragraph (a blank line), a line break, a sentence end
 * (`.`, `!`, `?`, `…` followed by a space, or a CJK full stop), a space; with none, the part is cut
 * hard at `maxLength`, never inside a surrogate pair. The whitespace of the boundary is dropped;
 * an indentation after a line break is kept.
 */

/** Boundaries from the best to the last resort; each match is the whitespace (or nothing) between two parts. */
const BOUNDARIES: RegExp[] = [
	// a paragraph: a blank line (spaces allowed on it), and further empty lines
	/[ \t]*\n[ \t]*\n(?:[ \t]*\n)*/g,
	// a line break
	/[ \t]*\n/g,
	// a sentence end followed by spaces (closing quotes or brackets stay with the sentence)
	/(?<=[.!?…]["'”’)\]]*)[ \t]+/g,
	// a CJK sentence end, no space after it
	/(?<=[。！？])/g,
	// a word: any whitespace
	/\s+/g,
];

/** Where the first `count` code points of `text` end, as a UTF-16 index. */
function indexAfterCodePoints(text: string, count: number): number {
	let index = 0;
	for (let seen = 0; seen < count && index < text.length; seen++) {
		const code = text.charCodeAt(index);
		index += code >= 0xd800 && code <= 0xdbff && index + 1 < text.length ? 2 : 1;
	}
	return index;
}

/** How far past a part's end a boundary's whitespace is looked at. */
const LOOK_AHEAD = 1000;

/**
 * The last boundary of one kind that starts within the first `windowEnd` UTF-16 units of `text`
 * and leaves a non-blank part before it: where the part ends and where the next one starts.
 */
function lastBoundary(text: string, windowEnd: number, pattern: RegExp): { end: number; next: number } | undefined {
	const scanned = text.slice(0, windowEnd + LOOK_AHEAD);
	let found: { end: number; next: number } | undefined;
	pattern.lastIndex = 0;
	for (let match = pattern.exec(scanned); match && match.index <= windowEnd; match = pattern.exec(scanned)) {
		if (match[0] === '') pattern.lastIndex++;
		if (match.index === 0 || scanned.slice(0, match.index).trim() === '') continue;
		found = { end: match.index, next: match.index + match[0].length };
	}
	return found;
}

/**
 * The parts of `text`, in order, each at most `maxLength` code points. `maxLength` 0 (or less)
 * or a text that fits: the text itself, unchanged.
 */
export function splitText(text: string, maxLength: number): string[] {
	if (!(maxLength > 0) || [...text].length <= maxLength) return [text];
	const parts: string[] = [];
	let rest = text;
	while ([...rest].length > maxLength) {
		const windowEnd = indexAfterCodePoints(rest, maxLength);
		let cut: { end: number; next: number } | undefined;
		for (const pattern of BOUNDARIES) {
			cut = lastBoundary(rest, windowEnd, pattern);
			if (cut) break;
		}
		const { end, next } = cut ?? { end: windowEnd, next: windowEnd };
		const part = rest.slice(0, end).trimEnd();
		if (part !== '') parts.push(part);
		rest = rest.slice(next);
	}
	if (rest.trim() !== '') parts.push(rest);
	return parts;
}
