import { contextLength } from "./chat-rules.js";
import type { Refusal, Rule, StrictKind } from "./core.js";
import { OPENAI_CONVERSATION_RULES, openaiKind } from "./openai.js";

/**
 * OpenRouter (`kind: "openrouter"`), in front of an OpenAI model (`openai/...`). Its own refusals are
 * `{"error": {"message", "code": 400}}`; a refusal of the provider behind it comes back as "Provider returned error"
 * with the provider's own body in `metadata.raw` and its name in `metadata.provider_name`
 * (openrouter.ai/docs/api-reference/errors). So OpenAI's rules on the conversation and its tools hold here too.
 */

/** One of OpenAI's rules, its refusal passed on the way OpenRouter passes a provider's. */
const viaOpenAI = (rule: Rule): Rule => ({
  rule: rule.rule,
  source: `${rule.source}; passed on as OpenRouter passes a provider's refusal (openrouter.ai/docs/api-reference/errors)`,
  check: (body, limits) => {
    const refused = rule.check(body, limits);
    return refused && { message: "Provider returned error", metadata: { raw: JSON.stringify(openaiKind.envelope(refused)), provider_name: "OpenAI" } };
  },
});

/** OpenRouter's overflow wording (test/fixtures/context-overflow-errors.json, case `openrouter`). */
export const openrouterOverflow = (prompt: number, completion: number, window: number): Refusal => ({
  message: `This endpoint's maximum context length is ${window} tokens. However, you requested about ${prompt + completion} tokens (${prompt} of text input, ${completion} in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.`,
});

export const openrouterKind: StrictKind = {
  name: "openrouter",
  format: "chat",
  models: {
    data: [
      {
        id: "openai/gpt-5.4",
        canonical_slug: "openai/gpt-5.4",
        name: "OpenAI: GPT-5.4",
        created: 1767000000,
        context_length: 400000,
        pricing: { prompt: "0.00000125", completion: "0.00001" },
        top_provider: { context_length: 400000, max_completion_tokens: 128000, is_moderated: true },
      },
    ],
  },
  contextWindow: 400000,
  envelope: (r) => ({ error: { message: r.message, code: r.status ?? 400, ...(r.metadata ? { metadata: r.metadata } : {}) } }),
  rules: [contextLength("test/fixtures/context-overflow-errors.json (case `openrouter`)", openrouterOverflow), ...OPENAI_CONVERSATION_RULES.map(viaOpenAI)],
};
