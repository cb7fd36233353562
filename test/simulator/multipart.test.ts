import { createHash, randomBytes } from 'crypto';
import { checkCsv, decodeRfc5987, MultipartParser, parsePartHeaders } from '../../simulator';

interface Part {
	name: string;
	filename?: string;
	contentType?: string;
	data: Buffer;
}

async function parse(body: Buffer, boundary: string, chunkSizes: () => number): Promise<Part[]> {
	const parts: Part[] = [];
	const parser = new MultipartParser(boundary, (info) => {
		const p: Part = { name: info.name, filename: info.filename, contentType: info.contentType, data: Buffer.alloc(0) };
		parts.push(p);
		const chunks: Buffer[] = [];
		return {
			write: (c) => void chunks.push(Buffer.from(c)),
			end: () => void (p.data = Buffer.concat(chunks)),
		};
	});
	await new Promise<void>((resolve, reject) => {
		parser.on('finish', resolve);
		parser.on('error', reject);
		let off = 0;
		const next = (): void => {
			if (off >= body.length) return void parser.end();
			const n = Math.max(1, chunkSizes());
			const ok = parser.write(body.subarray(off, off + n));
			off += n;
			if (ok) setImmediate(next);
			else parser.once('drain', next);
		};
		next();
	});
	return parts;
}

describe('simulator: multipart parser and CSV check', () => {
	const boundary = 'XyZ' + randomBytes(6).toString('hex');
	// content containing boundary-like sequences to exercise the scanner
	const tricky = Buffer.concat([Buffer.from(`\r\n--${boundary.slice(0, -2)}\r\n--`), randomBytes(5000), Buffer.from(`\r\n-\r\n--${boundary.slice(0, -1)}`)]);
	const body = Buffer.concat([
		Buffer.from(`preamble\r\n--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue ä\r\n`),
		Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="Grüße \\"x\\".bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
		tricky,
		Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="empty"; filename*=UTF-8''%F0%9F%98%80.txt\r\n\r\n`),
		Buffer.from(`\r\n--${boundary}--\r\nepilogue`),
	]);

	test.each([
		['1-byte chunks', () => 1],
		['random chunks', () => Math.floor(Math.random() * 97) + 1],
		['whole body', () => 1 << 30],
	])('parses correctly with %s', async (_n, sizes) => {
		const parts = await parse(body, boundary, sizes);
		expect(parts.map((p) => [p.name, p.filename])).toEqual([
			['a', undefined],
			['file', 'Grüße "x".bin'],
			['empty', '😀.txt'],
		]);
		expect(parts[0].data.toString()).toBe('value ä');
		expect(createHash('sha256').update(parts[1].data).digest('hex')).toBe(createHash('sha256').update(tricky).digest('hex'));
		expect(parts[2].data.length).toBe(0);
	});

	test('missing closing boundary is an error', async () => {
		await expect(parse(body.subarray(0, body.length - 20), boundary, () => 100)).rejects.toThrow(/closing boundary/);
	});

	test('header helpers', () => {
		expect(decodeRfc5987("UTF-8''na%C3%AFve%20file.txt")).toBe('naïve file.txt');
		expect(decodeRfc5987("iso-8859-1'en'%E4.txt")).toBe('ä.txt');
		expect(parsePartHeaders(Buffer.from('Content-Disposition: form-data; name="uids[]"')).name).toBe('uids[]');
	});

	test('CSV check', () => {
		expect(checkCsv('a,b\n1,2\n')).toBeUndefined();
		expect(checkCsv('a,b\r\n"1,""x""",2\r\n\r\n')).toBeUndefined();
		expect(checkCsv('')).toMatch(/empty/);
		expect(checkCsv('a,b\n1\n')).toMatch(/columns/);
		expect(checkCsv('a,b\n"1,2\n')).toMatch(/unterminated/);
	});
});
