import type { Kind } from "./types.js";

/**
 * Google's Gemini API (AI Studio keys). Source: ai.google.dev/api (generateContent, models).
 * - Paths: `https://generativelanguage.googleapis.com/v1beta/models/{m}:generateContent`, `:streamGenerateContent`,
 *   `:countTokens`, `GET /v1beta/models` (`{"models":[{"name":"models/..."}]}`): no segment. The key as
 *   `x-goog-api-key`.
 * - Its OpenAI-compatible endpoint lives at `/v1beta/openai/chat/completions`, which a base URL plus
 *   `/v1/chat/completions` cannot name: the kind serves the Gemini format only.
 * - It bills by token: a probe only reads the model list.
 */
export const gemini: Kind = {
  name: "gemini",
  title: "Gemini",
  defaults: {
    url: "https://generativelanguage.googleapis.com",
    formats: ["gemini"],
    messagesSegment: "anthropic",
    geminiSegment: "",
    key: "keychain",
    keyHeader: undefined,
    reasoning: undefined,
    maxOutputTokens: undefined,
    retries: undefined,
  },
  modelList: { family: "gemini", contextField: undefined },
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
    betas: [],
    promptCacheKey: false,
    priorityTier: false,
    bearerInEveryFormat: false,
    billingHeader: false,
  },
};
