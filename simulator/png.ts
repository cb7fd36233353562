/** Minimal PNG encoder (truecolor, 8 bit) for the image retrieval endpoint. */
import { createHash } from 'crypto';
import { deflateSync } from 'zlib';

const CRC_TABLE = (() => {
	const t = new Uint32Array(256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		t[n] = c >>> 0;
	}
	return t;
})();

function crc32(buf: Buffer): number {
	let c = 0xffffffff;
	for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(data.length);
	const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(td));
	return Buffer.concat([len, td, crc]);
}

/** A gradient picture whose colours derive from `seed`. */
export function makePng(width: number, height: number, seed: string): Buffer {
	const h = createHash('sha256').update(seed).digest();
	const [r0, g0, b0, r1, g1, b1] = [h[0], h[1], h[2], h[3], h[4], h[5]];
	const rowLen = width * 3 + 1;
	const raw = Buffer.alloc(rowLen * height);
	// vertical gradient: every row has one colour (rows are filled natively, fast even for 1024x1024)
	for (let y = 0; y < height; y++) {
		const off = y * rowLen;
		raw[off] = 0; // filter: none
		const f = height > 1 ? y / (height - 1) : 0;
		const px = Buffer.from([Math.round(r0 + (r1 - r0) * f), Math.round(g0 + (g1 - g0) * f), Math.round(b0 + (b1 - b0) * f)]);
		raw.fill(px, off + 1, off + rowLen);
	}
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 2; // colour type: truecolour
	ihdr[10] = 0;
	ihdr[11] = 0;
	ihdr[12] = 0;
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk('IHDR', ihdr),
		chunk('IDAT', deflateSync(raw)),
		chunk('IEND', Buffer.alloc(0)),
	]);
}

export const IMAGE_SIZES: Record<string, number> = { small: 64, medium: 256, large: 1024 };
