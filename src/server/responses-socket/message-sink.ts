import type { OutgoingHttpHeaders } from "node:http";
import type { WebSocket } from "ws";
import { createSseDecoder } from "../../sse/sse.js";
import type { ReplySink } from "../reply/sink.js";
import { UnsentBytes } from "../reply/unsent-bytes.js";

/** What one `response.create` message's reply said, for the socket's continuations. */
export interface MessageReply {
  /** Each event's JSON, in order (a stream's `data`). */
  onEvent(data: string): void;
  /** A reply that was not a 200 event stream: its status and body, to send as one `error` message. */
  onRefusal(status: number, body: string): void;
}

/**
 * One `response.create` message's reply on Codex's WebSocket (SPEC 12): the reply layer writes the event stream it
 * would have sent over HTTP; each event's data leaves as one text message, in order (`[DONE]` and keep-alive
 * comments, which only HTTP needs, stay behind). A reply that is not a 200 event stream (an error the gateway or the
 * upstream answered in JSON) is read whole and sent as one error message. Back-pressure is the socket's: `full` while
 * more than node:http's high-water mark waits to be sent, `onDrain` once it went. Closed when the socket closes; `onceClose`
 * also runs when the reply ended (`finished`), as node:http's `close` does, so the exchange leaves the in-flight registry.
 */
export class SocketMessageSink implements ReplySink {
  readonly #ws: WebSocket;
  readonly #reply: MessageReply;
  readonly #decoder = createSseDecoder((message) => {
    if (message.data !== "[DONE]") this.#send(message.data);
  });
  readonly #unsent = new UnsentBytes();
  readonly #closes: (() => void)[] = [];
  #status = 0;
  #stream = false;
  #refusal: string[] = [];
  #headSent = false;
  #ended = false;
  #finished = false;
  #closed = false;

  constructor(ws: WebSocket, reply: MessageReply) {
    this.#ws = ws;
    this.#reply = reply;
  }

  head(status: number, headers: OutgoingHttpHeaders): void {
    this.#status = status;
    this.#stream = status === 200 && String(headers["content-type"] ?? "").startsWith("text/event-stream");
  }

  flushHead(): void {
    this.#headSent = true;
  }

  write(piece: Buffer | string): boolean {
    this.#headSent = true;
    if (this.#closed) return false;
    if (this.#stream) this.#decoder.feed(piece);
    else this.#refusal.push(String(piece));
    return !this.full;
  }

  end(piece?: Buffer | string): void {
    if (this.#ended) return;
    if (piece !== undefined) this.write(piece);
    this.#ended = true;
    this.#headSent = true;
    if (this.#stream) this.#decoder.end();
    else if (!this.#closed) this.#reply.onRefusal(this.#status, this.#refusal.join(""));
    this.#finished = true;
    this.#fireClose();
  }

  onDrain(listener: () => void): void {
    this.#unsent.onDrain(listener);
  }

  offDrain(listener: () => void): void {
    this.#unsent.offDrain(listener);
  }

  onceClose(listener: () => void): void {
    if (this.#closed) queueMicrotask(listener);
    else this.#closes.push(listener);
  }

  /** The reply is cut: the socket goes too, so Codex cannot take what it got for a whole response. */
  close(): void {
    this.#ws.terminate();
    this.socketClosed();
  }

  /** The socket closed (the client left, or the reply was cut). */
  socketClosed(): void {
    if (this.#closed) return;
    this.#fireClose();
  }

  get headSent(): boolean {
    return this.#headSent;
  }

  get full(): boolean {
    return this.#unsent.full;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get finished(): boolean {
    return this.#finished;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #fireClose(): void {
    this.#closed = true;
    for (const listener of this.#closes.splice(0)) listener();
  }

  #send(data: string): void {
    if (this.#ws.readyState !== this.#ws.OPEN) return;
    this.#reply.onEvent(data);
    const bytes = Buffer.byteLength(data);
    this.#unsent.added(bytes);
    this.#ws.send(data, () => this.#unsent.taken(bytes));
  }
}
