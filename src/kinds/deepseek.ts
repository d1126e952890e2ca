import type { Kind } from "./types.js";

/**
 * DeepSeek's API. Sources: api-docs.deepseek.com.
 * - Paths: chat at `https://api.deepseek.com/v1/chat/completions` ("base_url ... or https://api.deepseek.com/v1"),
 *   `GET /v1/models` (OpenAI's list shape); messages at `https://api.deepseek.com/anthropic/v1/messages`
 *   (guides/anthropic_api: "the base_url being https://api.deepseek.com/anthropic"), the key as `x-api-key` there.
 * - Reasoning: `reasoning_content` (guides/reasoning_model), which thinking mode with tools needs back on the next
 *   request (400 otherwise: research translation.md A1, JohnnyZ93/oai-compatible-copilot#215); thinking is switched
 *   on with `thinking: {"type": "enabled"}` (guides/thinking_mode), which takes no effort level.
 * - Output: V4 models take up to 384K output tokens (the V4 model card), more than coding tools ask; the 8K cap of
 *   the retired `deepseek-chat` no longer applies.
 * - Messages (guides/anthropic_api, compatibility table): `anthropic-beta` is ignored, `image` and `document` blocks
 *   are not supported, and unknown body fields are refused by Anthropic-compatible endpoints of its kind (research
 *   tools-2026.md (c)): no beta is known to be taken.
 * - Tool schemas: it refuses Claude Code's Artifact `pattern` as OpenAI does, and even `^[^\u0000]*$`
 *   (research tools-2026-12.md 1: QuantumNous/new-api#7303, lidge-jun/opencodex#5658), so `\uXXXX` escapes go too.
 * - It bills by token: a probe only reads the model list.
 */
export const deepseek: Kind = {
  name: "deepseek",
  title: "DeepSeek",
  defaults: {
    url: "https://api.deepseek.com",
    formats: ["chat", "messages"],
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
    refusedPatternSyntax: ["lookaround", "atomic-group", "possessive-quantifier", "unicode-property", "code-point-escape", "unicode-escape"],
    schemaFormats: "any",
    booleanSchemas: true,
    toolChoice: "named",
    steadyRefusals: [],
    reasoningField: "reasoning_content",
    effortDialect: "thinking_switch",
    maxTokensField: "max_tokens",
    betas: [],
    promptCacheKey: false,
    priorityTier: false,
    bearerInEveryFormat: false,
    billingHeader: false,
  },
};
