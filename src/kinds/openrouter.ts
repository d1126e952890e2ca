import type { Kind } from "./types.js";

/**
 * OpenRouter. Sources: openrouter.ai/docs.
 * - Paths: `https://openrouter.ai/api/v1/chat/completions`, `GET /api/v1/models` (a `data` list with `id`,
 *   `context_length`, `pricing`; public). The key as `Authorization: Bearer`.
 * - Reasoning: "Reasoning tokens will appear in the `reasoning` field of each message" (and `reasoning_details`);
 *   effort goes as `reasoning: {effort}` (openrouter.ai/docs/use-cases/reasoning-tokens).
 * - `prompt_cache_key` is taken (SPEC 11).
 * - It falls back between providers on its own (openrouter.ai/docs: provider routing), so the gateway's own
 *   retries only multiply its attempts: 0.
 * - Its Anthropic-compatible endpoint (`https://openrouter.ai/api/v1/messages`, openrouter.ai/docs/guides/coding-agents/
 *   claude-code-integration) takes the key as `Authorization: Bearer` (`ANTHROPIC_AUTH_TOKEN` in that guide), which
 *   `bearerInEveryFormat` sends. The kind still serves chat by default: that guide says Claude Code through it "is only
 *   guaranteed to work with the Anthropic first-party provider", while the gateway's translation to chat works with
 *   every model; add `messages` to `formats` for Claude models. Which betas that endpoint takes is not documented:
 *   all are withheld.
 * - Tool schemas: it passes them to whichever provider serves the model (OpenAI, DeepSeek among them), so a
 *   `pattern` either of those refuses is refused (SPEC 12); formats are left to the provider.
 * - It bills by token: a probe only reads the model list.
 */
export const openrouter: Kind = {
  name: "openrouter",
  title: "OpenRouter",
  defaults: {
    url: "https://openrouter.ai/api",
    formats: ["chat"],
    messagesSegment: "",
    geminiSegment: "gemini",
    key: "keychain",
    keyHeader: undefined,
    reasoning: "effort",
    maxOutputTokens: undefined,
    retries: 0,
  },
  modelList: { family: "chat", contextField: "context_length" },
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
    reasoningField: "reasoning",
    effortDialect: "reasoning_object",
    maxTokensField: "max_tokens",
    betas: [],
    promptCacheKey: true,
    priorityTier: false,
    bearerInEveryFormat: true,
    billingHeader: false,
  },
};
