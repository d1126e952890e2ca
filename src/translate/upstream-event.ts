import { parseJsonObject } from "../parse-json.js";
import type { SseMessage } from "../sse/sse.js";
import type { UpstreamEvent } from "./types.js";

/** What `upstreamEventOf` gives for chat's `data: [DONE]`: the upstream's stream is over, whatever bytes follow. */
export const STREAM_END = "end";

/**
 * An upstream's server-sent event with its data parsed; `STREAM_END` for chat's `[DONE]`, after which nothing is read
 * (an upstream that writes on after it has ended its reply, as a proxy that appends its own chunks can); undefined for
 * data that is not a JSON object (a proxy's stray line carries nothing to translate). `[DONE]` is told apart before
 * parsing, since a parse that throws costs more than the parse of a whole chunk.
 */
export function upstreamEventOf(message: SseMessage): UpstreamEvent | typeof STREAM_END | undefined {
  if (message.data === "[DONE]") return STREAM_END;
  const data = parseJsonObject(message.data);
  return data ? { event: message.event, data } : undefined;
}
