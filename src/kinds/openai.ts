import type { Kind } from "./types.js";

/**
 * OpenAI's own API. Sources: platform.openai.com/docs/api-reference (chat, responses, models).
 * - Paths: `https://api.openai.com/v1/chat/completions`, `/v1/responses`, `/v1/models` (OpenAI's list shape); the
 *   key as `Authorization: Bearer`. It bills by token: a probe only reads the model list.
 * - Output limit: `max_tokens` "is now deprecated in favor of `max_completion_tokens`, and is not compatible with o-series
 *   models" (chat reference); the o-series and gpt-5 answer 400 to it (research translation.md A2).
 * - Reasoning: `reasoning_effort` (chat reference). Chat returns no reasoning text, and an assistant message has no
 *   reasoning field (chat reference), so replayed reasoning is left out.
 * - `prompt_cache_key` is a chat parameter (SPEC 11: Codex's reaches it).
 */
export const openai: Kind = {
  name: "openai",
  title: "OpenAI",
  defaults: {
    url: "https://api.openai.com",
    formats: ["chat", "responses"],
    messagesSegment: "anthropic",
    geminiSegment: "gemini",
    key: "keychain",
    keyHeader: undefined,
    reasoning: "effort",
    maxOutputTokens: undefined,
    retries: undefined,
  },
  modelList: { family: "chat", contextField: undefined },
  local: false,
  probe: { mayGenerate: false, recognise: undefined },
  quirks: {
    systemFirst: false,
    refusedSchemaKeywords: [],
    booleanSchemas: true,
    toolChoice: "named",
    steadyRefusals: [],
    reasoningField: "none",
    effortDialect: "reasoning_effort",
    maxTokensField: "max_completion_tokens",
    betas: [],
    promptCacheKey: true,
    bearerInEveryFormat: false,
    billingHeader: false,
  },
};
