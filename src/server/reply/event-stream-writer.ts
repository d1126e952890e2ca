import { performance } from "node:perf_hooks";
import { dataText, encodeEvents } from "../../sse/sse.js";
import type { ErrorFields } from "../../errors/index.js";
import type { StreamFraming } from "../../formats/index.js";
import type { ClientEvent, HubStreamItem, HubToClientStream } from "../../translate/index.js";
import type { Exchange } from "../exchange.js";
import { TurnWrites } from "./turn-writes.js";

/** Headers that keep intermediaries (and some clients) from buffering an event stream. */
export const EVENT_STREAM_HEADERS = { "cache-control": "no-cache", "x-accel-buffering": "no" };

/**
 * A translated event stream on its way to the client: the status and headers once, the client format's opening
 * events, then events as the translator makes them, a keep-alive whenever the client has been sent nothing for
 * `keepAliveMs`, and one ending: the format's close or its error event. The events of one upstream read leave in
 * two writes at most (`push` for each of its events, `flushSoon` after each chunk, `TurnWrites`): the first chunk's
 * at once, the rest at the end of the same turn of the loop, so none waits for a later read, and a write per event
 * was a third of a translated stream's CPU. Safe to end twice.
 *
 * A class, not an object literal of closures with `get opened()`: V8 gives each such literal's getter a map of its
 * own, in the old generation, which kept every stream's whole request (the getters' scope) alive through each
 * young-generation collection until the next full one. That promoted about 9 KB a stream and cost a translated
 * stream 29 µs of scavenging, now 7 (docs/ARCHITECTURE.md, "What costs on the request path").
 */
export class EventStreamWriter {
  readonly #x: Exchange;
  readonly #sink: HubToClientStream;
  readonly #framing: StreamFraming;
  readonly #keepAliveMs: number;
  #opened = false;
  #ended = false;
  #elements = 0;
  #pending = "";
  #lastWriteAt = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #turn: TurnWrites<string>;

  constructor(x: Exchange, sink: HubToClientStream, framing: StreamFraming, keepAliveMs: number) {
    this.#x = x;
    this.#sink = sink;
    this.#framing = framing;
    this.#keepAliveMs = keepAliveMs;
    this.#turn = new TurnWrites<string>(x.sink, (text) => this.#write(text), (texts) => texts.join(""));
  }

  get opened(): boolean {
    return this.#opened;
  }

  /** Whether the stream has ended (the translator wrote its last event). */
  get ended(): boolean {
    return this.#ended;
  }

  open(headers: Record<string, string | string[]>): void {
    if (this.#opened) return;
    this.#opened = true;
    const { sink, delivery, capture, cors } = this.#x;
    delivery.status = 200;
    const contentType = this.#framing === "sse" ? "text/event-stream; charset=utf-8" : "application/json; charset=utf-8";
    sink.head(200, Object.assign({}, headers, { "content-type": contentType }, EVENT_STREAM_HEADERS, cors));
    capture?.response(200, { "content-type": contentType }, this.#framing === "sse");
    this.#send(this.#sink.start());
    this.#flush();
    sink.flushHead();
    this.#lastWriteAt = performance.now();
    this.#keepAliveIn(this.#keepAliveMs);
    // However the client leaves (mid-stream, or while a slow upstream it started early for has not answered), its
    // stream ends: a keep-alive timer left armed would hold the request, and pile up pings, for good.
    sink.onceClose(() => {
      if (!sink.finished) this.stop();
    });
  }

  /**
   * Hub items made from one upstream event, translated; they leave with the next `flushSoon`. An error item is the
   * stream's last event: the response ends with it.
   */
  push(items: readonly HubStreamItem[]): void {
    for (const item of items) this.#send(this.#sink.push(item));
    if (items.some((item) => item.type === "error")) this.#end([]);
  }

  /**
   * Writes what the events made since the last flush: the first of a turn of the loop at once, what the rest of the
   * same upstream read makes at the end of that turn, in one write (`TurnWrites`). False when the client's socket is
   * full.
   */
  flushSoon(): boolean {
    const text = this.#takePending();
    return text === undefined ? !this.#x.sink.full : this.#turn.send(text);
  }

  finish(): void {
    this.#end(this.#sink.finish());
  }

  fail(error: ErrorFields): void {
    this.#end(this.#sink.fail(error));
  }

  /** Ends the stream without writing anything more, its keep-alive stopped (the client went away). */
  stop(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
  }

  /** The events as bytes in this stream's framing (a JSON array takes only data, and no keep-alive comment). */
  #frame(events: ClientEvent[]): string {
    if (this.#framing === "sse") return encodeEvents(events);
    return events.map((event) => `${this.#elements++ === 0 ? "[" : ",\r\n"}${dataText(event)}`).join("");
  }

  #send(events: ClientEvent[]): void {
    if (events.length > 0) this.#pending += this.#frame(events);
  }

  /** What the events made since the last flush, written now. */
  #flush(): void {
    const text = this.#takePending();
    if (text !== undefined) this.#write(text);
  }

  /** What the events made since the last flush, taken for writing; undefined when nothing waits or the client is gone. */
  #takePending(): string | undefined {
    if (this.#pending === "" || this.#x.sink.closed) return undefined;
    const text = this.#pending;
    this.#pending = "";
    return text;
  }

  /** Bytes to the client, and to the capture as they left. */
  #write(text: string): void {
    const x = this.#x;
    const now = performance.now();
    this.#lastWriteAt = now;
    x.delivery.firstByteAt ??= now;
    x.capture?.chunk(now - x.started, Buffer.from(text));
    x.sink.write(text);
  }

  /**
   * One timer for the stream's life, checked against the last write when it fires: moving a timer for every event
   * cost more than translating it.
   */
  #keepAliveIn(ms: number): void {
    this.#timer = setTimeout(() => {
      if (this.#ended) return;
      const quietFor = performance.now() - this.#lastWriteAt;
      if (quietFor < this.#keepAliveMs) return this.#keepAliveIn(this.#keepAliveMs - quietFor);
      this.#send(this.#sink.keepAlive());
      this.#flush();
      this.#keepAliveIn(this.#keepAliveMs);
    }, ms);
  }

  #end(events: ClientEvent[]): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#send(events);
    if (this.#framing === "json-array") this.#pending += this.#elements === 0 ? "[]" : "]";
    // What waits for the end of this turn leaves first, with the rest, in the last write.
    this.#pending = (this.#turn.take() ?? "") + this.#pending;
    this.#flush();
    this.#x.sink.end();
  }
}
