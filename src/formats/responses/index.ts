import { chatFamily } from "../chat/family.js";
import { openAiWording } from "../chat/index.js";
import { openAiUsage } from "../chat/usage.js";
import { serverSentEvents, streamsWhenAsked } from "../fields.js";
import type { FormatClaim, WireFormat } from "../format-types.js";
import { onFirstUse } from "../on-first-use.js";
import { COMPACT_PATH } from "./compaction.js";
import { responsesFacts } from "./facts.js";

// Responses bodies are not checked (SPEC section 3.5): only Chat Completions has required fields.
const GENERATE: FormatClaim = { kind: "generate", rules: undefined };

/**
 * OpenAI Responses (`POST /v1/responses`, Codex), in the OpenAI family; a client format only. A context overflow
 * carries code `context_length_exceeded` whatever the upstream called it: Codex compacts on that code
 * (codex-rs `classify_provider_error`).
 */
export const responsesFormat: WireFormat = {
  name: "responses",
  family: chatFamily,
  // Codex's compaction endpoint is a model call too: native upstreams get it as it came, translated routes answer it (SPEC 11).
  claim: (method, rest) => (method === "POST" && (rest === "/v1/responses" || rest === COMPACT_PATH) ? GENERATE : undefined),
  // The compaction endpoint answers in JSON only.
  streams: (rest, body) => rest !== COMPACT_PATH && streamsWhenAsked(rest, body),
  framing: serverSentEvents,
  generatePath: () => "/v1/responses",
  usage: openAiUsage,
  errors: chatFamily.errors,
  // Issue 49, finding 10: LiteLLM ends every stream with `data: [DONE]` (litellm/proxy/common_request_processing.py,
  // async_sse_data_generator), Responses' too, and Codex hangs up at `response.completed` before it comes.
  streamEnd: ['"response.completed"', '"response.incomplete"'],
  facts: responsesFacts,
  translators: onFirstUse(async () => ({ client: (await import("./translators.js")).responsesClient, upstream: undefined })),
  translatesInto: false,
  echo: onFirstUse(async () => (await import("./echo.js")).responsesEcho),
  count: undefined,
  startsEarly: false,
  wordUpstreamError: (read) => (read.overflow ? { ...read.fields, type: "invalid_request_error", code: "context_length_exceeded" } : openAiWording(read)),
  passthroughQuirks: undefined,
};
