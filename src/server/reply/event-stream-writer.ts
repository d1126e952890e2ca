import { performance } from "node:perf_hooks";
import { encodeEvents } from "../../sse/sse.js";
import type { ClientEvent, ErrorFields, HubStreamItem, HubToClientStream } from "../../translate/index.js";
import type { Exchange } from "../exchange.js";

/** While the upstream is silent, a keep-alive goes out at least this often (SPEC 10 rule 3: a `ping` every 15 s). */
export const KEEP_ALIVE_MS = 15_000;

/** Headers that keep intermediaries (and some clients) from buffering an event stream. */
export const EVENT_STREAM_HEADERS = { "cache-control": "no-cache", "x-accel-buffering": "no" };

/**
 * How a stream's events are framed: server-sent events, or the JSON array Gemini streams when a client leaves out
 * `alt=sse` (`[{...},\r\n{...}]`, each element an event's data, written as it comes).
 */
export type StreamFraming = "sse" | "json-array";

/**
 * A translated event stream on its way to the client: the status and headers once, the client format's opening
 * events, then events as the translator makes them, a keep-alive whenever the client has been sent nothing for
 * `KEEP_ALIVE_MS`, and one ending: the format's close or its error event. The events of one upstream chunk leave in
 * one write (`push` for each of its events, then `flush`): they are all made in the same turn of the loop, so none
 * waits, and one write instead of one per event is a third less CPU for a translated stream. Safe to end twice.
 */
export function createEventStreamWriter(x: Exchange, sink: HubToClientStream, framing: StreamFraming = "sse", keepAliveMs = KEEP_ALIVE_MS) {
  const { res } = x;
  let opened = false;
  let ended = false;
  let elements = 0;
  let pending = "";
  let lastWriteAt = 0;
  let timer: NodeJS.Timeout | undefined;

  /** The events as bytes in this stream's framing (a JSON array takes only data, and no keep-alive comment). */
  function frame(events: ClientEvent[]): string {
    if (framing === "sse") return encodeEvents(events);
    return events.map((event) => `${elements++ === 0 ? "[" : ",\r\n"}${event.json ?? JSON.stringify(event.data)}`).join("");
  }

  /** Bytes to the client, and to the capture as they left. */
  function write(text: string): boolean {
    const now = performance.now();
    lastWriteAt = now;
    x.draft.firstByteAt ??= now;
    x.draft.capture?.chunk(now - x.started, Buffer.from(text));
    return res.write(text);
  }

  /** What the events made since the last flush, written; false when the client's socket is full. */
  function flush(): boolean {
    if (pending === "" || res.destroyed) return true;
    const text = pending;
    pending = "";
    return write(text);
  }

  function send(events: ClientEvent[]): void {
    if (events.length > 0) pending += frame(events);
  }

  /**
   * One timer for the stream's life, checked against the last write when it fires: moving a timer for every event
   * cost more than translating it.
   */
  function keepAliveIn(ms: number): void {
    timer = setTimeout(() => {
      if (ended) return;
      const quietFor = performance.now() - lastWriteAt;
      if (quietFor < keepAliveMs) return keepAliveIn(keepAliveMs - quietFor);
      send(sink.keepAlive());
      flush();
      keepAliveIn(keepAliveMs);
    }, ms);
  }

  function open(headers: Record<string, string | string[]>): void {
    if (opened) return;
    opened = true;
    x.draft.status = 200;
    const contentType = framing === "sse" ? "text/event-stream; charset=utf-8" : "application/json; charset=utf-8";
    res.writeHead(200, Object.assign({}, headers, { "content-type": contentType }, EVENT_STREAM_HEADERS, x.cors));
    x.draft.capture?.response(200, { "content-type": contentType }, framing === "sse");
    send(sink.start());
    flush();
    res.flushHeaders();
    lastWriteAt = performance.now();
    keepAliveIn(keepAliveMs);
  }

  function end(events: ClientEvent[]): void {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    send(events);
    if (framing === "json-array") pending += elements === 0 ? "[]" : "]";
    flush();
    res.end();
  }

  return {
    get opened(): boolean {
      return opened;
    },
    open,
    /**
     * Hub items made from one upstream event, translated; they leave with the next `flush`. An error item is the
     * stream's last event: the response ends with it.
     */
    push(items: readonly HubStreamItem[]): void {
      for (const item of items) send(sink.push(item));
      if (items.some((item) => item.type === "error")) end([]);
    },
    flush,
    /** Whether the stream has ended (the translator wrote its last event). */
    get ended(): boolean {
      return ended;
    },
    finish: () => end(sink.finish()),
    fail: (error: ErrorFields) => end(sink.fail(error)),
    /** Stops the keep-alive without writing anything (the client went away). */
    stop(): void {
      ended = true;
      clearTimeout(timer);
    },
  };
}

export type EventStreamWriter = ReturnType<typeof createEventStreamWriter>;
