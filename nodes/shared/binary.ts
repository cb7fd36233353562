import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { BINARY_ENCODING } from 'n8n-workflow';

import type { WorkplaceResponse } from './transport';
import { downloadFailure } from './transport/timeLimit';

type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

/**
 * Read size for streamed uploads. Larger chunks cut the multipart serializer's work per byte, but
 * n8n 2's Node 24 frees them later: measured with a 256 MiB file on n8n 2.41 (bench (b)), 1 MiB
 * chunks peaked at +107 MiB RSS, 256 KiB at +70 and 128 KiB at +48, at about the HTTP Request
 * node's speed; 64 KiB was slower than it.
 */
const UPLOAD_CHUNK_BYTES = 128 * 1024;

/**
 * A File whose content is a stream opened from n8n's binary store, so a file kept on
 * disk is uploaded without loading it into memory. FormData serializers (axios,
 * undici) read a part through `size`, `type`, `name` and `stream()`.
 * The stream can be read once: each attempt builds a new file.
 */
class StreamedFile extends File {
	private readonly source: BinaryStream;

	private readonly byteSize: number;

	private readonly mime: string;

	private readonly fileName: string;

	constructor(source: BinaryStream, fileName: string, mimeType: string, size: number) {
		super([], fileName, { type: mimeType });
		this.source = source;
		this.byteSize = size;
		this.mime = mimeType;
		this.fileName = fileName;
	}

	get size(): number {
		return this.byteSize;
	}

	get type(): string {
		return this.mime;
	}

	get name(): string {
		return this.fileName;
	}

	stream(): ReturnType<File['stream']> {
		// Node's Readable is async-iterable, which is all FormData serializers need of it.
		return this.source as unknown as ReturnType<File['stream']>;
	}

	async arrayBuffer(): Promise<ArrayBuffer> {
		const chunks: Buffer[] = [];
		for await (const chunk of this.source as AsyncIterable<Buffer>) chunks.push(chunk);
		const buffer = Buffer.concat(chunks);
		return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
	}
}

export interface UploadSource {
	fileName: string;
	mimeType: string;
	/** Bytes, when known before sending. */
	size?: number;
	/** True when the file is streamed from n8n's binary store rather than held in memory. */
	streamed: boolean;
	/** A fresh File for one attempt. */
	open(): Promise<File>;
}

/**
 * The file of an input item's binary property, ready for a multipart part.
 * File name and MIME type come from the binary unless overridden.
 */
export async function getUploadSource(
	ctx: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
	overrides: { fileName?: string; mimeType?: string } = {},
): Promise<UploadSource> {
	const binary: IBinaryData = ctx.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const fileName = overrides.fileName || binary.fileName || `file${binary.fileExtension ? `.${binary.fileExtension}` : ''}`;
	const mimeType = overrides.mimeType || binary.mimeType || 'application/octet-stream';

	if (binary.id) {
		const binaryId = binary.id;
		const metadata = await ctx.helpers.getBinaryMetadata(binaryId);
		if (typeof metadata.fileSize === 'number' && metadata.fileSize >= 0) {
			const size = metadata.fileSize;
			return {
				fileName,
				mimeType,
				size,
				streamed: true,
				open: async () =>
					new StreamedFile(
						await ctx.helpers.getBinaryStream(binaryId, UPLOAD_CHUNK_BYTES),
						fileName,
						mimeType,
						size,
					),
			};
		}
	}
	// Kept in memory by n8n (default binary mode): the buffer is decoded once and reused.
	const buffer = await ctx.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
	return {
		fileName,
		mimeType,
		size: buffer.length,
		streamed: false,
		open: async () => new File([buffer as unknown as BlobPart], fileName, { type: mimeType }),
	};
}

/** A multipart body: plain text fields (repeated for arrays), then the file parts. */
export async function buildMultipart(
	fields: Record<string, string | string[]>,
	files: Record<string, UploadSource> = {},
): Promise<FormData> {
	const form = new FormData();
	for (const [name, value] of Object.entries(fields)) {
		for (const entry of Array.isArray(value) ? value : [value]) form.append(name, entry);
	}
	for (const [name, source] of Object.entries(files)) form.append(name, await source.open());
	return form;
}

function decodeLatin1AsUtf8(value: string): string {
	// Node hands header bytes over as Latin-1; a raw UTF-8 file name is re-decoded.
	const codes = Array.from(value, (char) => char.charCodeAt(0));
	if (!codes.some((code) => code >= 0x80) || codes.some((code) => code > 0xff)) return value;
	const decoded = Buffer.from(value, 'latin1').toString('utf8');
	return decoded.includes('\ufffd') ? value : decoded;
}

/** File name from Content-Disposition: `filename*` (RFC 5987) first, then `filename`. */
export function fileNameFromContentDisposition(header: string | undefined): string | undefined {
	if (!header) return undefined;
	const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
	if (extended) {
		try {
			const charset = extended[1].trim().toLowerCase();
			const raw = extended[2].trim().replace(/^"|"$/g, '');
			if (charset === 'utf-8' || charset === '') return decodeURIComponent(raw);
			return raw.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
		} catch {
			// Malformed percent-encoding: fall back to the plain parameter.
		}
	}
	const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
	if (quoted) return decodeLatin1AsUtf8(quoted[1].replace(/\\(.)/g, '$1'));
	const token = /filename\s*=\s*([^;\s]+)/i.exec(header);
	return token ? decodeLatin1AsUtf8(token[1]) : undefined;
}

function header(headers: IDataObject, name: string): string | undefined {
	const value = headers[name];
	return value === undefined || value === null ? undefined : String(value);
}

/**
 * A streamed download into n8n binary data: file name from Content-Disposition,
 * MIME type from Content-Type.
 */
export async function responseToBinary(
	ctx: { helpers: Pick<IExecuteFunctions['helpers'], 'prepareBinaryData'> },
	response: WorkplaceResponse<BinaryStream>,
	fallbackFileName: string,
): Promise<IBinaryData> {
	const headers = response.headers ?? {};
	const contentType = header(headers, 'content-type');
	const mimeType = contentType?.split(';')[0].trim() || 'application/octet-stream';
	const fileName = (
		fileNameFromContentDisposition(header(headers, 'content-disposition')) ?? fallbackFileName
	).replace(/[/\\]/g, '_');
	let binary: IBinaryData;
	try {
		// prepareBinaryData reads its second argument as a path; '?' and '#' would be cut there.
		binary = await ctx.helpers.prepareBinaryData(response.body, fileName.replace(/[?#]/g, '_'), mimeType);
	} catch (error) {
		// A download cut off by its time limit fails with the transport's error, not the stream's.
		throw downloadFailure(response.body) ?? error;
	}
	binary.fileName = fileName;
	return binary;
}

/**
 * The extensions of the image types the platform may return, the usual one first: file names are
 * given that one unless they already end in one of the others (`.jpeg` stays for image/jpeg).
 */
const EXTENSIONS_OF_TYPE: Record<string, string[]> = {
	'image/jpeg': ['jpg', 'jpeg', 'jpe', 'jfif'],
	'image/pjpeg': ['jpg', 'jpeg'],
	'image/png': ['png'],
	'image/gif': ['gif'],
	'image/webp': ['webp'],
	'image/bmp': ['bmp'],
	'image/tiff': ['tif', 'tiff'],
	'image/heic': ['heic'],
	'image/heif': ['heif'],
	'image/avif': ['avif'],
	'image/svg+xml': ['svg'],
};

const EXTENSION = /\.([A-Za-z0-9]{1,5})$/;

/**
 * A file name whose extension agrees with the content type the server returned: a matching
 * extension is kept, another one is replaced, a missing one added. For a type the table does not
 * know, `typeExtension` (n8n's, from the MIME database) stands in; without it the name is kept.
 */
export function nameForContentType(
	name: string,
	mimeType: string,
	typeExtension?: string,
): { fileName: string; fileExtension?: string } {
	const match = EXTENSION.exec(name);
	const own = match?.[1].toLowerCase();
	const base = match ? name.slice(0, match.index) : name.replace(/\.+$/, '');
	const accepted = EXTENSIONS_OF_TYPE[mimeType.toLowerCase()] ?? (typeExtension ? [typeExtension] : []);
	if (own && (accepted.length === 0 || accepted.includes(own))) return { fileName: name, fileExtension: own };
	if (accepted.length === 0) return { fileName: name };
	return { fileName: `${base || 'file'}.${accepted[0]}`, fileExtension: accepted[0] };
}

/** Types whose content an AI agent reads as text (besides text/*). */
const TEXT_TYPES = new Set(['application/json', 'application/xml', 'application/yaml', 'application/x-yaml', 'application/csv', 'application/markdown', 'application/x-ndjson']);

/** Whether a downloaded file is text a model can read. */
export function isTextFile(binary: Pick<IBinaryData, 'mimeType' | 'fileName'>): boolean {
	const type = binary.mimeType.toLowerCase();
	return type.startsWith('text/') || TEXT_TYPES.has(type) || /\.(md|markdown|txt|csv|json|ya?ml|xml)$/i.test(binary.fileName ?? '');
}

/**
 * The start of a text file n8n holds as binary data, at most `maxBytes` read (streamed when n8n
 * keeps it on disk or in S3, so a large file is not read whole), decoded as UTF-8; `truncated`
 * when there was more.
 */
export async function textStartOf(
	ctx: { helpers: Pick<IExecuteFunctions['helpers'], 'getBinaryStream'> },
	binary: IBinaryData,
	maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
	let bytes: Buffer;
	let truncated = false;
	if (binary.id) {
		const chunks: Buffer[] = [];
		let size = 0;
		const stream = await ctx.helpers.getBinaryStream(binary.id);
		for await (const chunk of stream) {
			chunks.push(Buffer.from(chunk as Buffer));
			size += (chunk as Buffer).length;
			if (size > maxBytes) {
				truncated = true;
				stream.destroy();
				break;
			}
		}
		bytes = Buffer.concat(chunks);
	} else {
		bytes = Buffer.from(binary.data, BINARY_ENCODING);
	}
	if (bytes.length > maxBytes) {
		truncated = true;
		bytes = bytes.subarray(0, maxBytes);
	}
	// A character cut at the end decodes as U+FFFD: dropped.
	const text = bytes.toString('utf8');
	return { text: truncated ? text.replace(/\uFFFD+$/, '') : text, truncated };
}
