import { markdownToPlainText } from '../../nodes/shared/text/markdown';
import { splitText } from '../../nodes/shared/text/split';

describe('splitText', () => {
	it('leaves a text that fits, or maxLength 0, unchanged', () => {
		expect(splitText('  short  ', 20)).toEqual(['  short  ']);
		expect(splitText('x'.repeat(50), 0)).toEqual(['x'.repeat(50)]);
	});
	it('cuts at paragraphs first, then line breaks, sentences, words, and hard', () => {
		expect(splitText('Para one.\n\nPara two is here. Yes.', 22)).toEqual(['Para one.', 'Para two is here. Yes.']);
		expect(splitText('line one\nline two\nline three', 18)).toEqual(['line one\nline two', 'line three']);
		expect(splitText('First sentence. Second one! Third?', 20)).toEqual(['First sentence.', 'Second one! Third?']);
		expect(splitText('Hello world this is a test', 11)).toEqual(['Hello world', 'this is a', 'test']);
		expect(splitText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
		expect(splitText('你好。世界。再见。', 4)).toEqual(['你好。', '世界。', '再见。']);
	});
	it('counts characters, never cutting a surrogate pair', () => {
		expect(splitText('😀😀😀😀😀', 2)).toEqual(['😀😀', '😀😀', '😀']);
		const parts = splitText('a😀'.repeat(30), 7);
		expect(parts.join('')).toBe('a😀'.repeat(30));
		for (const part of parts) expect([...part].length).toBeLessThanOrEqual(7);
	});
	it('keeps every word in order and each part within the limit', () => {
		const text = Array.from({ length: 200 }, (_, i) => `word${i}${i % 7 === 0 ? '.' : ''}${i % 23 === 0 ? '\n\n' : ' '}`).join('');
		const parts = splitText(text, 50);
		for (const part of parts) expect([...part].length).toBeLessThanOrEqual(50);
		expect(parts.join(' ').split(/\s+/).filter(Boolean)).toEqual(text.split(/\s+/).filter(Boolean));
	});
});

describe('markdownToPlainText', () => {
	it('removes headings, emphasis and link syntax; keeps code, lists and snake_case', () => {
		const md = [
			'# Title',
			'',
			'Some **bold**, *italic*, __strong__, _em_ and ~~gone~~; snake_case_name and 2 * 3 * 4 stay.',
			'See [the docs](https://example.com/docs), <https://example.com>, ![logo](https://e.com/l.png) and [https://a.b](https://a.b).',
			'Use `npm **ci**` now. Escaped \\*star\\*.',
			'',
			'* one',
			'+ two',
			'1. first',
			'',
			'```js',
			'const a = **b**;',
			'```',
			'Sub',
			'---',
		].join('\n');
		expect(markdownToPlainText(md)).toBe(
			[
				'Title',
				'',
				'Some bold, italic, strong, em and gone; snake_case_name and 2 * 3 * 4 stay.',
				'See the docs (https://example.com/docs), https://example.com, logo (https://e.com/l.png) and https://a.b.',
				'Use npm **ci** now. Escaped *star*.',
				'',
				'- one',
				'- two',
				'1. first',
				'',
				'const a = **b**;',
				'Sub',
			].join('\n'),
		);
	});
});
