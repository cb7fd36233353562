/**
 * express's response as far as the nodes use it (status, headers, send, json, end), for the
 * stand-ins of n8n's waiting route (waiting.ts) and of the model of n8n (test/approvals/):
 * what was sent, and `onFirstSend` told once, with the body as the node gave it.
 */
export interface SentAnswer {
	status: number;
	body: unknown;
	headers: Record<string, string>;
}

export class FakeResponse {
	statusCode = 200;

	headers: Record<string, string> = {};

	body = '';

	headersSent = false;

	constructor(private readonly onFirstSend?: (answer: SentAnswer) => void) {}

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	setHeader(name: string, value: string): this {
		this.headers[name.toLowerCase()] = value;
		return this;
	}

	send(body: unknown): this {
		const first = !this.headersSent;
		this.body = typeof body === 'string' ? body : JSON.stringify(body);
		this.headersSent = true;
		if (first) this.onFirstSend?.({ status: this.statusCode, body, headers: this.headers });
		return this;
	}

	json(body: unknown): this {
		return this.send(body);
	}

	end(): this {
		if (!this.headersSent) this.onFirstSend?.({ status: this.statusCode, body: '', headers: this.headers });
		this.headersSent = true;
		return this;
	}
}
