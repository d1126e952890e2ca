import { stringField } from "./json-shape.js";
import type { Kind } from "./types.js";

/**
 * Ollama. Sources: ollama/ollama@fb30760 (2026-08-21).
 * - Paths (`server/routes.go`): `GET /api/version` answers `{"version": ...}` without a key (1880); chat at
 *   `/v1/chat/completions` (1916), the model list at `/v1/models` (1919, OpenAI's list shape), Responses at
 *   `/v1/responses` (1921), messages at `/v1/messages` (1926): no segment. No `count_tokens` and no Gemini route.
 * - Chat (`openai/openai.go`): reasoning is `reasoning` on messages and deltas (35, 46) and is read back from
 *   `reasoning` only (565); `reasoning_effort` or `reasoning.effort` is taken (119-120, `thinkFromReasoningEffort`
 *   531); the output limit is `max_tokens` only (110), which it never refuses (it becomes `num_predict`, 657).
 * - Messages (`anthropic/anthropic.go`): it reads no `anthropic-beta` header; unknown body fields are ignored (Go's
 *   JSON decoding) and unknown block types dropped (`convertMessage`, 514); a `role: "system"` message is kept in
 *   place (419); a tool without `input_schema` becomes a function without parameters (`convertTool`, 616), so an
 *   advisor tool would reach the model as a callable function.
 * - Empty bodies: chat answers 400 "[] is too short - 'messages'" (`middleware/openai.go` 455), messages 400
 *   "model is required" (`middleware/anthropic.go` 742): a probe's `{}` never generates.
 * - Default formats: chat only. Its Responses endpoint knows function, namespace and web_search tools only
 *   (`openai/responses.go` 356: no Codex `custom` tools, no `additional_tools` item, no `/v1/responses/compact`), and
 *   its messages endpoint has no count_tokens route, ignores `tool_choice`, refuses URL images and thinks when
 *   `thinking` is absent (ollama/ollama#15287); the gateway's own translation carries all of these. List them in
 *   `formats` to use them anyway.
 */
export const ollama: Kind = {
  name: "ollama",
  title: "Ollama",
  defaults: {
    url: "http://127.0.0.1:11434",
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
    recognise: { path: "/api/version", matches: (body) => stringField(body, "version") !== undefined, describe: (body) => `version ${stringField(body, "version")}` },
  },
  quirks: {
    systemFirst: false,
    refusedSchemaKeywords: [],
    refusedPatternSyntax: [],
    schemaFormats: "any",
    booleanSchemas: true,
    toolChoice: "named",
    steadyRefusals: [],
    reasoningField: "reasoning",
    effortDialect: "reasoning_effort",
    maxTokensField: "max_tokens",
    betas: ["mid-conversation-system-2026-04-07"],
    promptCacheKey: false,
    priorityTier: false,
    bearerInEveryFormat: false,
    billingHeader: false,
  },
};
