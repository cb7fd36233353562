/**
 * Streaming CSV format check (RFC 4180 with LF or CRLF line ends, comma delimiter).
 * A CSV is rejected when it is empty (no record), contains NUL bytes (binary), has an
 * unterminated quoted field, a stray quote, or a record whose column count differs from
 * the first (header) record. Blank lines are ignored.
 */
const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

const enum S {
	FieldStart,
	Unquoted,
	Quoted,
	QuoteInQuoted,
	AfterQuote,
}

export class CsvChecker {
	private state: S = S.FieldStart;
	private fields = 0; // commas seen in the current record
	private content = false; // current record has any content
	private expected = -1;
	private records = 0;
	private error: string | undefined;

	write(buf: Buffer): void {
		if (this.error) return;
		for (let i = 0; i < buf.length; i++) {
			const b = buf[i];
			if (b === 0) {
				this.error = 'file contains NUL bytes (not a text CSV)';
				return;
			}
			if (this.state === S.Quoted) {
				if (b === QUOTE) this.state = S.QuoteInQuoted;
				continue;
			}
			if (this.state === S.QuoteInQuoted) {
				if (b === QUOTE) {
					this.state = S.Quoted;
					continue;
				}
				this.state = S.AfterQuote;
			}
			if (b === COMMA) {
				this.fields++;
				this.content = true;
				this.state = S.FieldStart;
			} else if (b === LF) {
				if (!this.endRecord()) return;
			} else if (b === CR) {
				// part of CRLF; ignored
			} else if (b === QUOTE) {
				if (this.state !== S.FieldStart) {
					this.error = `stray quote in record ${this.records + 1}`;
					return;
				}
				this.state = S.Quoted;
				this.content = true;
			} else {
				if (this.state === S.AfterQuote) {
					this.error = `characters after a closing quote in record ${this.records + 1}`;
					return;
				}
				this.state = S.Unquoted;
				this.content = true;
			}
		}
	}

	private endRecord(): boolean {
		if (this.content) {
			const count = this.fields + 1;
			this.records++;
			if (this.expected < 0) this.expected = count;
			else if (count !== this.expected) {
				this.error = `record ${this.records} has ${count} columns, expected ${this.expected}`;
				return false;
			}
		}
		this.fields = 0;
		this.content = false;
		this.state = S.FieldStart;
		return true;
	}

	/** Returns undefined when the CSV is valid, otherwise the reason. */
	end(): string | undefined {
		if (this.error) return this.error;
		if (this.state === S.Quoted) return `unterminated quoted field in record ${this.records + 1}`;
		this.endRecord();
		if (this.error) return this.error;
		if (this.records === 0) return 'CSV file is empty';
		return undefined;
	}
}

export function checkCsv(data: Buffer | string): string | undefined {
	const c = new CsvChecker();
	c.write(typeof data === 'string' ? Buffer.from(data) : data);
	return c.end();
}
