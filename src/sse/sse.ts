import { StringDecoder } from "node:string_decoder";
import { createParser } from "eventsource-parser";
import { withoutByteOrderMark } from "../parse-json.js";

/**
 * The project's one reader and one writer of server-sent events: the echo upstream, the translators, the terminal
 * client and the tests all frame and parse events here. Parsing is eventsource-parser's (the WHATWG rules:
 * comments, `data:` without a space, CR/LF/CRLF line ends, multi-line data); bytes are decoded as one stream, so a
 * character split across two network writes stays one character.
 */

/** One event as read: its `event:` name (undefined when absent) and its data lines joined with `\n`. */
export interface SseMessage {
  event: string | undefined;
  data: string;
}

/**
 * One event to write. `data` is serialised as JSON unless `raw`, in which case it is the text itself (`[DONE]`), or
 * `json` holds its serialisation already.
 */
export interface SseOut {
  event?: string | undefined;
  data: unknown;
  raw?: boolean | undefined;
  json?: string | undefined;
}

/** An event's data as it is written: the text itself when `raw`, else its JSON (`json` when a template made it). */
export const dataText = (out: SseOut): string => (out.raw ? String(out.data) : (out.json ?? JSON.stringify(out.data)));

/** One event in SSE framing: an optional `event:` line, one `data:` line, the blank line. */
export function encodeEvent(out: SseOut): string {
  return `${out.event ? `event: ${out.event}\n` : ""}data: ${dataText(out)}\n\n`;
}

/** Several events as one string, for one socket write. */
export const encodeEvents = (events: readonly SseOut[]): string => events.map(encodeEvent).join("");

/** A comment line: ignored by every SSE reader, enough to show a connection is alive. */
export const sseComment = (text: string): string => `: ${text}\n\n`;

/**
 * Feeds bytes in as they arrive; `onEvent` gets each complete event in order. A byte-order mark before the first
 * character is dropped, as the WHATWG rules decode a stream (eventsource-parser takes text and leaves that to its
 * caller): kept, it made the first line's field name `\uFEFFdata`, and the stream's first event was lost.
 */
export function createSseDecoder(onEvent: (message: SseMessage) => void) {
  const decoder = new StringDecoder("utf8");
  const parser = createParser({ onEvent: (event) => onEvent({ event: event.event, data: event.data }) });
  let started = false;
  return {
    feed(chunk: Buffer | string): void {
      const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
      if (started) return parser.feed(text);
      if (!text) return;
      started = true;
      parser.feed(withoutByteOrderMark(text));
    },
    /** The end of the bytes: an event without its blank line is dropped, as the SSE rules say. */
    end(): void {
      parser.feed(decoder.end());
    },
  };
}

/**
 * Every event in `text` (a whole stream), for tests and whole-body readers. A CR at the very end ends its line: the
 * parser holds it back to see whether an LF follows, and none will.
 */
export function decodeEvents(text: string | Buffer): SseMessage[] {
  const events: SseMessage[] = [];
  const decoder = createSseDecoder((event) => events.push(event));
  decoder.feed(text);
  if (text[text.length - 1] === (typeof text === "string" ? "\r" : 0x0d)) decoder.feed("\n");
  decoder.end();
  return events;
}
