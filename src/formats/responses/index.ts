import { chatFamily } from "../chat/family.js";
import { openAiWording } from "../chat/index.js";
import { openAiUsage } from "../chat/usage.js";
import { serverSentEvents, streamsWhenAsked } from "../fields.js";
import type { FormatClaim, WireFormat } from "../format-types.js";
import { COMPACT_PATH } from "./compaction.js";
import { responsesEcho } from "./echo.js";
import { responsesFacts } from "./facts.js";
import { responsesClient } from "./translators.js";

// Responses bodies are not checked (SPEC section 3.5): only Chat Completions has required fields.
const GENERATE: FormatClaim = { kind: "generate", rules: undefined };

/** OpenAI Responses (`POST /v1/responses`, Codex), in the OpenAI family; a client format only. */
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
  client: responsesClient,
  facts: responsesFacts,
  echo: responsesEcho,
  upstream: undefined,
  count: undefined,
  startsEarly: false,
  wordUpstreamError: openAiWording,
  keepsBillingHeader: false,
};
