import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { ReplySink } from "../server/reply/sink.js";
import { UnsentBytes } from "../server/reply/unsent-bytes.js";
import type { ChatReply } from "./read-reply.js";

/** A reply's headers as the terminal client reads them: lower-case names, text values. */
function incoming(headers: OutgoingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return out;
}

/**
 * A one-off `gateway chat`'s reply, in its own process (issue 52): the reply layer writes here what it would send over
 * HTTP, and the terminal reads it as a `ChatReply` (its status and headers once they are sent, then its body's bytes
 * as they come). Back-pressure is the reader's: `full` while more than node:http's high-water mark waits unread.
 * `abort` is the client going away (Ctrl-C): the exchange then aborts its upstream request, as for a client that
 * hung up.
 */
export class InProcessReply implements ReplySink {
  /** The status and headers, once the reply layer sent them. */
  readonly reply: Promise<ChatReply>;
  #resolve!: (reply: ChatReply) => void;
  #reject!: (error: Error) => void;
  #status = 0;
  #headers: OutgoingHttpHeaders = {};
  readonly #unread: Buffer[] = [];
  readonly #unreadBytes = new UnsentBytes();
  #wake: (() => void) | undefined;
  readonly #closes: (() => void)[] = [];
  #headSent = false;
  #ended = false;
  #closed = false;
  /** Why the reply was cut short, for the reader's next read. */
  #failure: Error | undefined;

  constructor() {
    this.reply = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  head(status: number, headers: OutgoingHttpHeaders): void {
    this.#status = status;
    this.#headers = headers;
  }

  flushHead(): void {
    if (this.#headSent) return;
    this.#headSent = true;
    this.#resolve({ statusCode: this.#status, headers: incoming(this.#headers), body: this.#body() });
  }

  write(piece: Buffer | string): boolean {
    this.flushHead();
    if (this.#closed) return false;
    const bytes = typeof piece === "string" ? Buffer.from(piece) : piece;
    this.#unread.push(bytes);
    this.#unreadBytes.added(bytes.length);
    this.#wakeReader();
    return !this.full;
  }

  end(piece?: Buffer | string): void {
    if (this.#ended) return;
    if (piece !== undefined) this.write(piece);
    this.flushHead();
    this.#ended = true;
    this.#wakeReader();
    this.#fireClose();
  }

  onDrain(listener: () => void): void {
    this.#unreadBytes.onDrain(listener);
  }

  offDrain(listener: () => void): void {
    this.#unreadBytes.offDrain(listener);
  }

  onceClose(listener: () => void): void {
    this.#closes.push(listener);
  }

  /** The gateway cut the reply short: the reader's next read fails. */
  close(): void {
    this.#cut(new Error("The reply was cut short."));
  }

  /** The terminal went away (Ctrl-C): the exchange aborts its upstream request. */
  abort(): void {
    this.#cut(new DOMException("The reply was aborted.", "AbortError"));
  }

  get headSent(): boolean {
    return this.#headSent;
  }

  get full(): boolean {
    return this.#unreadBytes.full;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get finished(): boolean {
    return this.#ended;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #cut(error: Error): void {
    if (this.#closed || this.#ended) return;
    this.#closed = true;
    this.#failure = error;
    this.#reject(error);
    this.#wakeReader();
    this.#fireClose();
  }

  async *#body(): AsyncGenerator<Buffer> {
    for (;;) {
      const next = this.#unread.shift();
      if (next !== undefined) {
        this.#unreadBytes.taken(next.length);
        yield next;
        continue;
      }
      if (this.#failure) throw this.#failure;
      if (this.#ended) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  #wakeReader(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #fireClose(): void {
    for (const listener of this.#closes.splice(0)) listener();
  }
}
