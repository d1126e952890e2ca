import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

/**
 * Where a reply goes, whatever carries it (issue 48, item 3): a node:http response (`HttpSink`), or one
 * `response.create` message's events on a WebSocket (`server/responses-socket/`). The reply layer writes only to
 * this. Each method is what the reply transforms used of node:http's response, so the HTTP sink forwards every call
 * as it is: no copy and no allocation per chunk.
 */
export interface ReplySink {
  /** The status and headers; they leave with the first body write (or `flushHead`). */
  head(status: number, headers: OutgoingHttpHeaders): void;
  /** Sends the head now, before any body (an event stream whose first event is slow). */
  flushHead(): void;
  /** A piece of the body; false when the client's side is full: wait for a drain (`onDrain`) before the next. */
  write(piece: Buffer | string): boolean;
  /** The last piece (if any), and the end of the reply. */
  end(piece?: Buffer | string): void;
  /** `listener` runs at each drain until `offDrain`. */
  onDrain(listener: () => void): void;
  offDrain(listener: () => void): void;
  /** `listener` runs once when the client's side closes, the reply ended or not (`finished` says which). */
  onceClose(listener: () => void): void;
  /** Cuts the reply short, so the client can never take it for a complete one. */
  close(): void;
  readonly headSent: boolean;
  /** Whether the client's side is full (a write returned false and no drain came yet). */
  readonly full: boolean;
  /** Whether `end` was called. */
  readonly ended: boolean;
  /** Whether the whole reply reached the transport. */
  readonly finished: boolean;
  /** Whether the client's side is gone (closed, or cut). */
  readonly closed: boolean;
}

/** The node:http response as a sink. */
export class HttpSink implements ReplySink {
  readonly #res: ServerResponse;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  head(status: number, headers: OutgoingHttpHeaders): void {
    this.#res.writeHead(status, headers);
  }

  flushHead(): void {
    this.#res.flushHeaders();
  }

  write(piece: Buffer | string): boolean {
    return this.#res.write(piece);
  }

  end(piece?: Buffer | string): void {
    if (piece === undefined) this.#res.end();
    else this.#res.end(piece);
  }

  onDrain(listener: () => void): void {
    this.#res.on("drain", listener);
  }

  offDrain(listener: () => void): void {
    this.#res.off("drain", listener);
  }

  onceClose(listener: () => void): void {
    this.#res.once("close", listener);
  }

  close(): void {
    this.#res.destroy();
  }

  get headSent(): boolean {
    return this.#res.headersSent;
  }

  get full(): boolean {
    return this.#res.writableNeedDrain;
  }

  get ended(): boolean {
    return this.#res.writableEnded;
  }

  get finished(): boolean {
    return this.#res.writableFinished;
  }

  get closed(): boolean {
    return this.#res.destroyed;
  }
}
