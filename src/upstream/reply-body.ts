import { Readable } from "node:stream";
import type { Dispatcher } from "undici";

/** Where a body goes chunk by chunk, as the upstream sends it: the passthrough relay queues each one for the client. */
export interface BodySink {
  /** One chunk; false when the sink is full, and then nothing more comes until `ReplyBody.resume()`. */
  data(chunk: Buffer): boolean;
  end(): void;
  /** The body broke off (the upstream died, a timeout, an abort with its reason); nothing comes after it. */
  error(error: Error): void;
}

/** Bytes kept for a body nobody reads yet before the upstream socket is paused: a whole usual reply fits. */
const HOLD_LIMIT = 64 * 1024;
/** What `dump` reads of a body before it gives up on the connection instead (undici's own limit). */
const DUMP_LIMIT = 128 * 1024;

/**
 * An upstream reply's body, fed by the dispatch handler (`dispatch-reply.ts`) straight from undici's parser: no
 * Readable, no pipe and no promise per chunk on the passthrough path, which hands each chunk on to one sink
 * (`relay`). Readers that want the whole body or a stream have `text`, `json`, `dump`, `readable` and `for await`.
 * One reader per body. Until it comes, chunks are held (64 KiB at most, then the upstream waits).
 */
export class ReplyBody {
  #sink: BodySink | undefined;
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** How the upstream finished while nobody was reading: "end", or the error. */
  #done: "end" | Error | undefined;
  /** undici's handle on the request: `resume` restarts a paused upstream socket; `abort` ends the request (a no-op once it completed). */
  readonly #controller: Pick<Dispatcher.DispatchController, "resume" | "abort">;

  constructor(controller: Pick<Dispatcher.DispatchController, "resume" | "abort">) {
    this.#controller = controller;
  }

  /** A body whose bytes were all read already (to judge it: a refused key, a steady refusal), to hand on as if it had just come. */
  static of(bytes: Buffer): ReplyBody {
    const body = new ReplyBody({ resume: () => undefined, abort: () => undefined });
    body.push(bytes);
    body.complete();
    return body;
  }

  /** A chunk from the upstream; false: pause its socket. Called by the dispatch handler only. */
  push(chunk: Buffer): boolean {
    if (this.#sink) return this.#sink.data(chunk);
    this.#held.push(chunk);
    this.#heldBytes += chunk.length;
    return this.#heldBytes < HOLD_LIMIT;
  }

  /** The upstream's body ended. Called by the dispatch handler only. */
  complete(): void {
    if (this.#sink) this.#sink.end();
    else this.#done = "end";
  }

  /** The upstream's body broke off. Called by the dispatch handler only. */
  fail(error: Error): void {
    if (this.#sink) this.#sink.error(error);
    else this.#done ??= error;
  }

  /** Hands the body to `sink`: what arrived already at once, the rest as it comes. */
  relay(sink: BodySink): void {
    if (this.#sink) throw new Error("The reply body is already being read.");
    this.#sink = sink;
    const held = this.#held;
    const paused = this.#heldBytes >= HOLD_LIMIT;
    this.#held = [];
    this.#heldBytes = 0;
    let flowing = true;
    for (const chunk of held) flowing = sink.data(chunk) && flowing;
    const done = this.#done;
    if (done === "end") sink.end();
    else if (done) sink.error(done);
    else if (paused && flowing) this.#controller.resume();
  }

  /** Asks for more after the sink said it was full. */
  resume(): void {
    this.#controller.resume();
  }

  /** Stops reading: the upstream request is aborted (its connection closed) unless it already completed. */
  destroy(reason: Error = new Error("The gateway stopped reading the upstream's reply.")): void {
    this.#controller.abort(reason);
  }

  /** The whole body as text (UTF-8). */
  text(): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      this.relay({ data: (chunk) => chunks.push(chunk) > 0, end: () => resolve(Buffer.concat(chunks).toString("utf8")), error: reject });
    });
  }

  /** The whole body parsed as JSON. */
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** Reads the body to its end and forgets it, so the connection can be reused; a long one closes the connection instead. */
  dump(): Promise<void> {
    return new Promise((resolve) => {
      let size = 0;
      this.relay({
        data: (chunk) => {
          size += chunk.length;
          if (size > DUMP_LIMIT) this.destroy();
          return true;
        },
        end: resolve,
        error: () => resolve(),
      });
    });
  }

  /** The body as a Node Readable, for decompression and `for await`; destroying it aborts the upstream request. */
  readable(): Readable {
    const stream = new Readable({
      read: () => this.#controller.resume(),
      destroy: (error, callback) => {
        this.destroy(error ?? undefined);
        callback(error);
      },
    });
    this.relay({ data: (chunk) => stream.push(chunk), end: () => stream.push(null), error: (error) => stream.destroy(error) });
    return stream;
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return this.readable()[Symbol.asyncIterator]();
  }
}
