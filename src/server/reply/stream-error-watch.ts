import { parseJsonObject, isRecord } from "../../parse-json.js";
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
 * the client was relayed a 200. It is given whole events as they leave (`RelayOptions.onEvents`, which holds an event
 * cut between two reads until its blank line), and decodes only those whose bytes hold `"error"`: the rest go by
 * unread, and nothing of the stream is kept between reads.
 */
export function createStreamErrorWatch(): { observe(events: Buffer): void; seen(): boolean } {
  let seen = false;
  return {
    observe(events) {
      if (!seen && includesBytes(events, MARKER)) seen = decodeEvents(events).some((event) => isStreamErrorEvent(event.data));
    },
    seen: () => seen,
  };
}
