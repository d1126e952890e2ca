import type { ErrorFields } from "../errors/index.js";
import { encodeEvent, type SseOut } from "../sse/sse.js";
import type { ErrorRenderer } from "./types.js";

/**
 * A family's one error renderer, made from its envelope (`body`) and the name its stream error event carries (none:
 * a `data:`-only event). Every way an error leaves the gateway goes through it: a JSON answer (`json`), the event
 * that ends a passthrough stream (`streamEvent`) and the one a translated stream ends with (`event`), so a failure
 * has the same `error.type` whatever route it took.
 */
export function errorRenderer(body: (error: ErrorFields) => unknown, eventName?: string): ErrorRenderer {
  const event = (error: ErrorFields): SseOut => (eventName ? { event: eventName, data: body(error) } : { data: body(error) });
  return {
    body,
    json: (error) => JSON.stringify(body(error)),
    event,
    streamEvent: (error) => encodeEvent(event(error)),
  };
}
