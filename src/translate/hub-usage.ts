import type { HubUsage } from "./hub.js";

/** Chat usage split the way the messages and Gemini formats count it. */
export interface UsageParts {
  /** Prompt tokens not read from or written to a cache (messages' `input_tokens`). */
  input: number;
  /** All prompt tokens (chat's `prompt_tokens`, Gemini's `promptTokenCount`). */
  prompt: number;
  cacheRead: number;
  cacheWrite: number;
  /** All output tokens, reasoning included (chat's `completion_tokens`). */
  output: number;
  /** The part of `output` spent reasoning. */
  reasoning: number;
}

const n = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);

/** Cache fields that chat upstreams add under names of their own. */
type CacheFields = {
  prompt_tokens_details?: { cache_write_tokens?: unknown } | null;
  prompt_cache_hit_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
};

/**
 * Reads chat usage, including the cache fields upstreams name their own way: reads as OpenAI's
 * `prompt_tokens_details.cached_tokens`, DeepSeek's `prompt_cache_hit_tokens` or LiteLLM's `cache_read_input_tokens`;
 * writes as `prompt_tokens_details.cache_creation_tokens`, OpenRouter's `cache_write_tokens` or LiteLLM's
 * `cache_creation_input_tokens`. Messages' `input_tokens` excludes cached tokens (SPEC 10 rule 2).
 */
export function usageParts(usage: HubUsage | null | undefined): UsageParts {
  const raw = (usage ?? {}) as HubUsage & CacheFields;
  const details = raw.prompt_tokens_details as (HubUsage["prompt_tokens_details"] & CacheFields["prompt_tokens_details"]) | undefined;
  const prompt = n(raw.prompt_tokens);
  const cacheRead = n(details?.cached_tokens) || n(raw.prompt_cache_hit_tokens) || n(raw.cache_read_input_tokens);
  const cacheWrite = n(details?.cache_creation_tokens) || n(details?.cache_write_tokens) || n(raw.cache_creation_input_tokens);
  return {
    input: Math.max(0, prompt - cacheRead - cacheWrite),
    prompt,
    cacheRead,
    cacheWrite,
    output: n(raw.completion_tokens),
    reasoning: n(raw.completion_tokens_details?.reasoning_tokens),
  };
}
