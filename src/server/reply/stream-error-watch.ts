import { isRecord } from "../../formats/messages/wire.js";
import { parseJsonObject } from "../../parse-json.js";
import { decodeEvents } from "../../sse/sse.js";
import { includesBytes } from "./event-boundary.js";

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

/**
 * Watches a passthrough event stream for an upstream's error event, so its record says the upstream failed though
 * the client was relayed a 200. Only chunks whose bytes hold `"error"` are decoded (with the chunk before, for an
 * event cut between two reads); the rest go by unread.
 */
export function createStreamErrorWatch(): { observe(chunk: Buffer): void; seen(): boolean } {
  let previous: Buffer | undefined;
  let seen = false;
  return {
    observe(chunk) {
      if (seen) return;
      const seam = previous && Buffer.concat([previous.subarray(1 - MARKER.length), chunk.subarray(0, MARKER.length - 1)]);
      if (includesBytes(chunk, MARKER) || (seam && includesBytes(seam, MARKER))) {
        seen = decodeEvents(previous ? Buffer.concat([previous, chunk]) : chunk).some((event) => isStreamErrorEvent(event.data));
      }
      previous = chunk;
    },
    seen: () => seen,
  };
}
