import { parseJsonObject } from "../parse-json.js";
import type { SseMessage } from "../sse/sse.js";
import type { UpstreamEvent } from "./types.js";

/**
 * An upstream's server-sent event with its data parsed, or undefined for data that is not a JSON object: chat's
 * `[DONE]` (the end of the bytes is the end) and a proxy's stray line carry nothing to translate. `[DONE]` is told
 * apart before parsing, since a parse that throws costs more than the parse of a whole chunk.
 */
export function upstreamEventOf(message: SseMessage): UpstreamEvent | undefined {
  if (message.data === "[DONE]") return undefined;
  const data = parseJsonObject(message.data);
  return data ? { event: message.event, data } : undefined;
}
