/**
 * Slow and stalled bodies (fault rules `responseBody`, `requestBody`, `stall`): a platform, or a
 * proxy in front of it, that sends or reads a body in pieces with pauses, or stops in the middle.
 */
import { IncomingMessage, ServerResponse } from 'http';
import { Readable, Transform } from 'stream';
import { BodyPace } from './types';
import { delay } from './util';

/** Resolves when the client's connection is gone (it gave up, or the simulator closed it). */
export function untilClientGone(res: ServerResponse): Promise<void> {
	return new Promise((resolve) => {
		if (res.destroyed || res.socket?.destroyed !== false) return resolve();
		res.once('close', () => resolve());
	});
}

/** Pieces of at most `size` bytes (the whole chunk when no size is given). */
function* pieces(chunk: Buffer, size: number | undefined): Generator<Buffer> {
	if (!size) {
		yield chunk;
		return;
	}
	for (let at = 0; at < chunk.length; at += size) yield chunk.subarray(at, at + size);
}

/**
 * The request body as `pace` reads it: a stream to read instead of `req`. At `stallAfterBytes`
 * it stops taking bytes from `req`, which stops reading the socket (the client's writes stall
 * once the buffers are full); it is destroyed when the client goes away.
 */
export function pacedRequest(req: IncomingMessage, pace: BodyPace): Readable {
	let taken = 0;
	const paced = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			void (async () => {
				for (const piece of pieces(chunk, pace.chunkBytes)) {
					const room = pace.stallAfterBytes === undefined ? piece.length : pace.stallAfterBytes - taken;
					if (room < piece.length) {
						if (room > 0) this.push(piece.subarray(0, room));
						taken += Math.max(0, room);
						return; // never done: nothing more is read
					}
					this.push(piece);
					taken += piece.length;
					await delay(pace.delayMs ?? 0);
				}
				done();
			})();
		},
	});
	req.on('close', () => {
		if (!req.complete) paced.destroy();
	});
	req.pipe(paced);
	return paced;
}

/**
 * Writes an answer's body as `pace` says, then ends it. At `stallAfterBytes` it writes nothing
 * more and waits for the client to go away.
 */
export async function writePaced(res: ServerResponse, body: Buffer | Readable, pace: BodyPace): Promise<void> {
	let sent = 0;
	res.flushHeaders();
	const source: AsyncIterable<Buffer> | Iterable<Buffer> = Buffer.isBuffer(body) ? [body] : body;
	try {
		for await (const chunk of source) {
			for (const piece of pieces(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk), pace.chunkBytes)) {
				if (res.destroyed) return;
				const room = pace.stallAfterBytes === undefined ? piece.length : pace.stallAfterBytes - sent;
				const part = room < piece.length ? piece.subarray(0, Math.max(0, room)) : piece;
				if (part.length > 0 && !res.write(part)) {
					await new Promise<void>((resolve) => {
						res.once('drain', resolve);
						res.once('close', resolve);
					});
				}
				sent += part.length;
				if (part.length < piece.length) {
					await untilClientGone(res);
					return;
				}
				await delay(pace.delayMs ?? 0);
			}
		}
		res.end();
	} finally {
		if (!Buffer.isBuffer(body)) body.destroy();
	}
}
