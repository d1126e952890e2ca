import type { HubUsage } from "../../translate/hub.js";
import { usageParts } from "../../translate/hub-usage.js";
import type { MessagesUsage } from "./wire.js";

/**
 * Chat usage as messages counts it: `input_tokens` excludes the tokens read from or written to a cache (SPEC 10
 * rule 2), and both cache keys are always present. Without any usage from the upstream, `estimate` stands in
 * for the input so Claude Code's context meter never reads 0 (research B2 invariant 2).
 */
export function messagesUsageOf(usage: HubUsage | undefined, estimate: number): MessagesUsage {
  if (!usage) return { input_tokens: estimate, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const parts = usageParts(usage);
  return {
    input_tokens: parts.input,
    output_tokens: parts.output,
    cache_creation_input_tokens: parts.cacheWrite,
    cache_read_input_tokens: parts.cacheRead,
  };
}

const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);

/**
 * Messages usage as chat counts it: `prompt_tokens` holds every input token, cached or not, and the cache reads
 * are `prompt_tokens_details.cached_tokens`. Cache writes are kept as `cache_creation_tokens` (the name
 * `usageParts` reads) only when there were some, so a chat client sees the standard shape otherwise.
 */
export function hubUsageOf(usage: Partial<Record<keyof MessagesUsage, unknown>>): HubUsage {
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  const prompt = count(usage.input_tokens) + cacheRead + cacheWrite;
  const completion = count(usage.output_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: cacheWrite ? { cached_tokens: cacheRead, cache_creation_tokens: cacheWrite } : { cached_tokens: cacheRead },
  };
}
