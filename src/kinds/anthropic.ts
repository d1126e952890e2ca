import type { Kind } from "./types.js";

/**
 * Anthropic's own API. Sources: docs.anthropic.com/en/api (messages, count_tokens, models, beta headers);
 * anthropics/anthropic-sdk-typescript@bfa9197 `src/resources/beta/beta.ts` (the `AnthropicBeta` list).
 * - Paths: `https://api.anthropic.com/v1/messages`, `/v1/messages/count_tokens` (free), `/v1/models` (its own list
 *   shape, `has_more`/`first_id`/`last_id`): no segment. The key as `x-api-key` with `anthropic-version`.
 * - Betas: every value and body field goes as it came (SPEC 11: "a first-party anthropic upstream ... gets the
 *   request as it came"), as Anthropic's gateway contract asks of a proxy in front of it.
 * - It bills by token: a probe only reads the model list.
 */
export const anthropic: Kind = {
  name: "anthropic",
  title: "Anthropic",
  defaults: {
    url: "https://api.anthropic.com",
    formats: ["messages"],
    messagesSegment: "",
    geminiSegment: "gemini",
    key: "keychain",
    keyHeader: undefined,
    reasoning: undefined,
    maxOutputTokens: undefined,
    retries: undefined,
  },
  modelList: { family: "messages", contextField: undefined },
  local: false,
  probe: { mayGenerate: false, recognise: undefined },
  quirks: {
    systemFirst: false,
    refusedSchemaKeywords: [],
    refusedPatternSyntax: [],
    schemaFormats: "any",
    booleanSchemas: true,
    toolChoice: "named",
    steadyRefusals: [],
    reasoningField: "none",
    effortDialect: "reasoning_effort",
    maxTokensField: "max_tokens",
    betas: "all",
    promptCacheKey: false,
    priorityTier: false,
    bearerInEveryFormat: false,
    billingHeader: true,
  },
};
