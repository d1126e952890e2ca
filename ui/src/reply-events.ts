import { createParser } from "eventsource-parser";

/** One event of a captured reply: when it arrived (ms after the request started), its name, its data. */
export interface ReplyEvent {
  at: number;
  name: string | undefined;
  data: string;
}

/**
 * The events of a captured stream reply, in order, each with the arrival time of the chunk that completed it.
 * Parsing is eventsource-parser's, the gateway's own SSE reader. `unfinished` is what followed the last complete
 * event (a reply cut mid-event).
 */
export function replyEvents(chunks: readonly { at: number; text: string }[]): { events: ReplyEvent[]; unfinished: string } {
  const events: ReplyEvent[] = [];
  let at = 0;
  let pending = "";
  const parser = createParser({ onEvent: (event) => events.push({ at, name: event.event, data: event.data }) });
  for (const chunk of chunks) {
    at = chunk.at;
    parser.feed(chunk.text);
    pending = (pending + chunk.text).split(/\r?\n\r?\n/).pop() ?? "";
  }
  return { events, unfinished: pending.trim() };
}

/** A JSON text parsed, or undefined when it is not JSON (`[DONE]`, a cut body). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The elements of a Gemini stream sent as one JSON array (a client that left out `alt=sse`), also when it was cut
 * before its closing bracket; undefined when the body is not such an array.
 */
export function arrayElements(text: string): unknown[] | undefined {
  const body = text.trimStart().startsWith("[") ? (parseJson(text) ?? parseJson(`${text}]`)) : undefined;
  return Array.isArray(body) ? body : undefined;
}
