import { parseJsonObject, isRecord } from "../../parse-json.js";
import { decodeEvents } from "../../sse/sse.js";
import { includesBytes, lastEventEnd } from "./event-boundary.js";

/** Bytes every error event below holds unescaped (as a key or a value), and a model's text only escaped (`\"error\"`). */
const MARKER = Buffer.from('"error"');

/**
 * Whether one event's data says the upstream failed inside a stream it had answered 200 (SPEC 11, Refusals that do
 * not change with a retry): an `{"error": ...}` object (llama.cpp's, chat's, messages' and Gemini's alike), a choice
 * ending with OpenRouter's `finish_reason: "error"`, or a Responses `error` / `response.failed` event.
 */
export function isStreamErrorEvent(data: string): boolean {
  const value = parseJsonObject(data);
  if (!value) return false;
  if (value.error !== undefined && value.error !== null) return true;
  if (value.type === "error" || value.type === "response.failed") return true;
  return Array.isArray(value.choices) && value.choices.some((choice) => isRecord(choice) && choice.finish_reason === "error");
}

/** Whether `MARKER` stands across the end of `before` and the start of `after`, read byte by byte: no copy per chunk. */
function straddles(before: Buffer, after: Buffer): boolean {
  for (let split = 1; split < MARKER.length; split++) {
    if (split > before.length || MARKER.length - split > after.length) continue;
    let match = true;
    for (let i = 0; match && i < MARKER.length; i++) match = (i < split ? before[before.length - split + i] : after[i - split]) === MARKER[i];
    if (match) return true;
  }
  return false;
}

/**
 * Watches a passthrough event stream for an upstream's error event, so its record says the upstream failed though
 * the client was relayed a 200. Only chunks whose bytes hold `"error"` (or whose seam with the chunk before does) are
 * decoded, with the chunk before for an event cut between two reads; an event holding the marker that is not whole
 * yet is kept until it is. The rest go by unread.
 */
export function createStreamErrorWatch(): { observe(chunk: Buffer): void; seen(): boolean } {
  let previous: Buffer | undefined;
  /** The start of an event that holds the marker and has not ended yet. */
  let pending: Buffer | undefined;
  let seen = false;
  return {
    observe(chunk) {
      if (seen) return;
      if (pending || includesBytes(chunk, MARKER) || (previous !== undefined && straddles(previous, chunk))) {
        const bytes = pending ? Buffer.concat([pending, chunk]) : previous ? Buffer.concat([previous, chunk]) : chunk;
        const end = lastEventEnd(bytes);
        seen = decodeEvents(bytes.subarray(0, end)).some((event) => isStreamErrorEvent(event.data));
        const rest = bytes.subarray(end);
        pending = includesBytes(rest, MARKER) ? rest : undefined;
      }
      previous = chunk;
    },
    seen: () => seen,
  };
}
