/**
 * File content storage: small contents stay in memory, anything above the threshold
 * (default 1 MiB) is spilled to a file in the simulator's temp directory while streaming.
 */
import { createHash, Hash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { Readable } from 'stream';
import { CsvChecker } from './csv';
import { PartSink } from './multipart';
import { uuid } from './util';

export class StoredBlob {
	private disposed = false;
	constructor(
		readonly size: number,
		readonly sha256: string,
		private readonly buffer?: Buffer,
		readonly filePath?: string,
	) {}

	get onDisk(): boolean {
		return this.filePath !== undefined;
	}

	createReadStream(): Readable {
		if (this.filePath) return fs.createReadStream(this.filePath, { highWaterMark: 1024 * 1024 });
		return Readable.from([this.buffer ?? Buffer.alloc(0)], { objectMode: false });
	}

	async read(): Promise<Buffer> {
		if (this.filePath) return fs.promises.readFile(this.filePath);
		return this.buffer ?? Buffer.alloc(0);
	}

	dispose(): void {
		if (this.disposed) return;
		this.disposed = true;
		if (this.filePath) fs.rm(this.filePath, { force: true }, () => undefined);
	}
}

export interface SinkOptions {
	/** hash and count only, keep nothing */
	discard?: boolean;
	/** stop storing (and mark `exceeded`) when more than this many bytes arrive */
	maxBytes?: number;
	/** run the streaming CSV check */
	csv?: boolean;
}

export class BlobSink implements PartSink {
	size = 0;
	exceeded = false;
	csvError: string | undefined;
	private readonly hash: Hash = createHash('sha256');
	private chunks: Buffer[] = [];
	private buffered = 0;
	private file?: fs.WriteStream;
	private filePath?: string;
	private csv?: CsvChecker;
	private discard: boolean;
	private digest?: string;
	private blob?: StoredBlob;
	private ended = false;

	constructor(
		private readonly store: BlobStore,
		private readonly opts: SinkOptions = {},
	) {
		this.discard = !!opts.discard;
		if (opts.csv) this.csv = new CsvChecker();
	}

	write(chunk: Buffer): void | Promise<void> {
		this.size += chunk.length;
		if (this.exceeded) return;
		if (this.opts.maxBytes !== undefined && this.size > this.opts.maxBytes) {
			this.exceeded = true;
			this.dropContent();
			return;
		}
		this.hash.update(chunk);
		this.csv?.write(chunk);
		if (this.discard) return;
		if (!this.file) {
			this.chunks.push(chunk);
			this.buffered += chunk.length;
			if (this.buffered <= this.store.memoryThreshold) return;
			this.filePath = path.join(this.store.dir, uuid());
			this.file = fs.createWriteStream(this.filePath, { highWaterMark: 1024 * 1024 });
			this.file.on('error', () => undefined); // surfaced through write/end
			const data = Buffer.concat(this.chunks);
			this.chunks = [];
			this.buffered = 0;
			if (!this.file.write(data)) return this.waitDrain();
			return;
		}
		if (!this.file.write(chunk)) return this.waitDrain();
	}

	private waitDrain(): Promise<void> {
		const f = this.file;
		if (!f) return Promise.resolve();
		return new Promise((resolve, reject) => {
			const onDrain = (): void => {
				f.off('error', onError);
				resolve();
			};
			const onError = (e: Error): void => {
				f.off('drain', onDrain);
				reject(e);
			};
			f.once('drain', onDrain);
			f.once('error', onError);
		});
	}

	private dropContent(): void {
		this.chunks = [];
		this.buffered = 0;
		this.csv = undefined;
		if (this.file) {
			const f = this.file;
			const p = this.filePath;
			this.file = undefined;
			this.filePath = undefined;
			f.destroy();
			if (p) fs.rm(p, { force: true }, () => undefined);
		}
	}

	async end(): Promise<void> {
		if (this.ended) return;
		this.ended = true;
		this.digest = this.exceeded ? '' : this.hash.digest('hex');
		if (this.csv) this.csvError = this.csv.end();
		const f = this.file;
		if (f) {
			await new Promise<void>((resolve, reject) => {
				f.once('error', reject);
				f.once('close', () => resolve());
				f.end();
			});
		}
	}

	get sha256(): string {
		return this.digest ?? '';
	}

	/** The stored content (undefined for discarded / exceeded sinks). Call after end(). */
	result(): StoredBlob | undefined {
		if (this.discard || this.exceeded || !this.ended) return undefined;
		if (!this.blob) {
			this.blob = this.filePath
				? new StoredBlob(this.size, this.sha256, undefined, this.filePath)
				: new StoredBlob(this.size, this.sha256, Buffer.concat(this.chunks));
			this.chunks = [];
		}
		return this.blob;
	}

	/** Drop everything (request failed or content not used). */
	abort(): void {
		if (this.blob) this.blob.dispose();
		this.dropContent();
		this.discard = true;
	}
}

export class BlobStore {
	constructor(
		readonly dir: string,
		readonly memoryThreshold = 1024 * 1024,
	) {
		fs.mkdirSync(dir, { recursive: true });
	}

	fromBuffer(data: Buffer): StoredBlob {
		const sha = createHash('sha256').update(data).digest('hex');
		if (data.length > this.memoryThreshold) {
			const p = path.join(this.dir, uuid());
			fs.writeFileSync(p, data);
			return new StoredBlob(data.length, sha, undefined, p);
		}
		return new StoredBlob(data.length, sha, Buffer.from(data));
	}

	createSink(opts?: SinkOptions): BlobSink {
		return new BlobSink(this, opts);
	}

	destroy(): void {
		fs.rmSync(this.dir, { recursive: true, force: true });
	}
}
