import { isRecord } from "../../parse-json.js";
import { applyHubQuirks } from "./hub-quirks.js";
import type { HubChunk, HubReply } from "../../translate/hub.js";
import type { ErrorFields, HubStreamItem, UpstreamEvent, UpstreamSide, UpstreamToHubStream } from "../../translate/types.js";

/** The message of an upstream's `{"error": ...}` object (chat, messages and Gemini all nest it so), or a default. */
function errorMessageOf(error: unknown, fallback = "The upstream reported an error in the middle of the reply."): string {
  if (typeof error === "string" && error) return error;
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === "string" && message ? message : fallback;
}

/** An error reported inside an upstream stream: SPEC section 5's `api_error`, with the upstream's words. */
function streamError(message: string): ErrorFields {
  return { status: 502, type: "api_error", message, param: null, code: "upstream_error" };
}

/** An upstream stream's `{"error": ...}` (chat's and messages' alike) as the hub's error item, its object kept. */
export function streamErrorItem(error: unknown): HubStreamItem {
  const item: HubStreamItem = { type: "error", error: streamError(errorMessageOf(error)) };
  return isRecord(error) ? { ...item, detail: error } : item;
}

/**
 * A chat upstream's stream as hub items: each `data:` JSON is a chunk (`[DONE]` never reaches it: the end of the
 * bytes is the end); `{"error": ...}` and OpenRouter's `finish_reason: "error"` end the stream with an error. Both
 * for every kind: a `generic` entry or a LiteLLM in front of OpenRouter passes its errors on as they came, and no
 * server means anything else by them.
 */
export function chatStreamToHub(): UpstreamToHubStream {
  return {
    push(event: UpstreamEvent): HubStreamItem[] {
      const value = event.data;
      if (value.error !== undefined && value.error !== null) return [streamErrorItem(value.error)];
      const chunk = value as unknown as HubChunk;
      if (Array.isArray(chunk.choices) && chunk.choices.some((choice) => choice?.finish_reason === "error")) {
        return [{ type: "error", error: streamError("The upstream ended the reply with an error.") }];
      }
      return [{ type: "chunk", chunk }];
    },
    finish: () => [],
  };
}

/** A chat upstream's whole reply, as the hub reads it. */
export const chatReplyToHub = (reply: Record<string, unknown>): HubReply => reply as unknown as HubReply;

/**
 * Chat upstreams speak the hub's language: requests go out as they are, changed only where the upstream's kind says
 * (SPEC 11, Kinds: `applyHubQuirks`), asked for usage in their streams (SPEC 10 rule 3: only a chat stream needs
 * asking), and replies come back as they are.
 */
export const chatUpstream: UpstreamSide = {
  fromHub(request, ctx) {
    const out = applyHubQuirks(ctx.quirks, request);
    if (out.stream) out.stream_options = { include_usage: true };
    return out;
  },
  replyToHub: chatReplyToHub,
  streamToHub: chatStreamToHub,
};
