import { isRecord } from "../parse-json.js";
import { arrayField, stringField } from "./json-shape.js";
import type { Kind } from "./types.js";

/**
 * LM Studio's server (`lms server start`). Sources: lmstudio.ai/docs.
 * - Paths: `GET /api/v0/models` (REST API v0, LM Studio 0.3.6+) lists every downloaded model with `type`, `state`
 *   (`loaded`/`not-loaded`) and `max_context_length` (lmstudio.ai/docs/api/rest-api); OpenAI-compatible chat,
 *   Responses and `/v1/models` (lmstudio.ai/docs/developer/openai-compat); messages at `/v1/messages`
 *   (lmstudio.ai/docs/developer/anthropic-compat): no segment.
 * - The key: none unless "Require Authentication" is on; then `x-api-key` or `Authorization: Bearer` (anthropic-compat).
 * - Reasoning: `reasoning_content` (lmstudio-ai/lmstudio-bug-tracker#1698, 0.4.7; #480: the "separate
 *   reasoning_content" setting); `reasoning_effort` is taken (#851, gpt-oss).
 * - It answers a path it does not serve with 200 and `{"error":"Unexpected endpoint or method. (...)"}`
 *   (lmstudio-bug-tracker#2055: count_tokens "Returning 200 anyway"), so its recognition needs the list's `data`
 *   (each entry with a `state`), and a probe reads that reply as "not served".
 * - Not confirmed: which `anthropic-beta` values its messages endpoint takes (none is withheld by a known 400, but
 *   none is documented): all are withheld.
 * - Default formats: chat only. Its Responses and messages endpoints are not documented to take Codex's `custom`
 *   tools and compaction or Claude Code's betas: the gateway's translation carries those. List them in `formats`
 *   to use them anyway.
 */
export const lmstudio: Kind = {
  name: "lmstudio",
  title: "LM Studio",
  defaults: {
    url: "http://127.0.0.1:1234",
    formats: ["chat"],
    messagesSegment: "",
    geminiSegment: "gemini",
    key: "none",
    keyHeader: undefined,
    reasoning: "effort",
    maxOutputTokens: undefined,
    retries: undefined,
  },
  modelList: { family: "chat", contextField: undefined },
  local: true,
  probe: {
    mayGenerate: true,
    recognise: {
      path: "/api/v0/models",
      // Each entry carries `state` and `type`; an install with no model downloaded yet lists none.
      matches: (body) => arrayField(body, "data")?.every((entry) => isRecord(entry) && stringField(entry, "state") !== undefined) === true,
      describe: () => "",
    },
  },
  quirks: {
    systemFirst: false,
    refusedSchemaKeywords: [],
    refusedPatternSyntax: [],
    schemaFormats: "any",
    booleanSchemas: true,
    toolChoice: "named",
    steadyRefusals: [],
    reasoningField: "reasoning_content",
    effortDialect: "reasoning_effort",
    maxTokensField: "max_tokens",
    betas: [],
    promptCacheKey: false,
    priorityTier: false,
    bearerInEveryFormat: false,
    billingHeader: false,
  },
};
