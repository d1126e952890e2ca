import type { ClientSide } from "../../translate/types.js";
import { geminiReplyFromHub } from "./gemini-reply.js";
import { geminiToHub, type GeminiHints } from "./gemini-request.js";
import { geminiStreamFromHub } from "./gemini-stream.js";

/**
 * Google's Generative Language API (Gemini CLI, the `@google/genai` SDKs) on a chat-only upstream (SPEC 10).
 *
 * What the caller must know:
 * - The model is in the path (`models/{m}:generateContent`), not the body: pass it as `ctx.clientModel` and
 *   `ctx.upstreamModel`.
 * - A Gemini body does not say whether it streams; the method does. For `:streamGenerateContent` the caller sets
 *   `body.stream = true` on the body it hands to `toHub` (which then asks the upstream for a stream), or sets
 *   `stream` on the request `toHub` returns, as `translateRequest` does.
 * - Stream events are data-only (`{data}` with no `event`); write them as `alt=sse` asks, and nothing after the
 *   last one (no `[DONE]`).
 * - `:countTokens` bodies: `countTokensRequest(body)` is the generate request inside, to translate and count.
 */
export const geminiClient: ClientSide<GeminiHints> = {
  toHub: geminiToHub,
  replyFromHub: geminiReplyFromHub,
  streamFromHub: geminiStreamFromHub,
};

// The generate request inside a `:countTokens` body.
export { countTokensRequest } from "./gemini-fields.js";
