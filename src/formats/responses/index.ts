import { responsesClient } from "../../translate/responses/index.js";
import { openAiWording } from "../chat/index.js";
import { openAiUsage } from "../chat/usage.js";
import { familyOf } from "../families.js";
import { serverSentEvents, streamsWhenAsked } from "../fields.js";
import type { FormatClaim, WireFormat } from "../format-types.js";
import { responsesEcho } from "./echo.js";
import { responsesFacts } from "./facts.js";

// Responses bodies are not checked (SPEC section 3.5): only Chat Completions has required fields.
const GENERATE: FormatClaim = { kind: "generate", rules: undefined };

/** The family it lives in (`names.ts`). */
const family = familyOf("responses");

/** OpenAI Responses (`POST /v1/responses`, Codex), in the OpenAI family; a client format only. */
export const responsesFormat: WireFormat = {
  name: "responses",
  family,
  claim: (method, rest) => (method === "POST" && rest === "/v1/responses" ? GENERATE : undefined),
  streams: streamsWhenAsked,
  framing: serverSentEvents,
  generatePath: () => "/v1/responses",
  usage: openAiUsage,
  errors: family.errors,
  client: responsesClient,
  facts: responsesFacts,
  echo: responsesEcho,
  upstream: undefined,
  count: undefined,
  startsEarly: false,
  wordUpstreamError: openAiWording,
  keepsBillingHeader: false,
};
