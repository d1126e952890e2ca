import type { Kind } from "./types.js";

/**
 * OpenAI's own API. Sources: platform.openai.com/docs/api-reference (chat, responses, models).
 * - Paths: `https://api.openai.com/v1/chat/completions`, `/v1/responses`, `/v1/models` (OpenAI's list shape); the
 *   key as `Authorization: Bearer`. It bills by token: a probe only reads the model list.
 * - Output limit: `max_tokens` "is now deprecated in favor of `max_completion_tokens`, and is not compatible with o-series
 *   models" (chat reference); the o-series and gpt-5 answer 400 to it (research translation.md A2).
 * - Reasoning: `reasoning_effort` (chat reference). Chat returns no reasoning text, and an assistant message has no
 *   reasoning field (chat reference), so replayed reasoning is left out.
 * - `prompt_cache_key` is a chat parameter (SPEC 11: Codex's reaches it); so is `service_tier`, whose `priority` is
 *   its faster processing (chat reference), what Claude Code's `speed: "fast"` asks of Anthropic.
 * - Tool schemas: a `pattern` is compiled by Python's `re` and refused with 400 "Invalid schema for function ... is
 *   not a 'regex'" when it is not one (research tools-2026-12.md 1: Claude Code's Artifact tool, raine/claude-code-proxy
 *   #141, router-for-me/CLIProxyAPI#5644); `re` has no `\p{...}` or `\u{...}`, and SPEC 12 lists lookaround, atomic
 *   groups and possessive quantifiers too (`re` takes the last two only since Python 3.11). The string formats it
 *   takes are "date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid" (platform.openai.com/docs/guides/
 *   structured-outputs, "Supported properties").
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
    refusedPatternSyntax: ["lookaround", "atomic-group", "possessive-quantifier", "unicode-property", "code-point-escape"],
    schemaFormats: ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"],
    booleanSchemas: true,
    toolChoice: "named",
    steadyRefusals: [],
    reasoningField: "none",
    effortDialect: "reasoning_effort",
    maxTokensField: "max_completion_tokens",
    betas: [],
    promptCacheKey: true,
    priorityTier: true,
    bearerInEveryFormat: false,
    billingHeader: false,
  },
};
