import type { HubRequest } from "./hub.js";

/** Chat's reasoning effort words, the only ones a translation sends upstream. */
export type Effort = NonNullable<HubRequest["reasoning_effort"]>;

/**
 * SPEC 10 rule 4's buckets for a thinking budget in tokens (Anthropic's `budget_tokens`, Gemini's `thinkingBudget`):
 * `low` <= 2048 < `medium` <= 8192 < `high`.
 */
export const effortOfBudget = (tokens: number): Effort => (tokens <= 2048 ? "low" : tokens <= 8192 ? "medium" : "high");

/**
 * Every client format's effort words in chat's three: Anthropic's `output_config.effort` (up to `xhigh` and `max`),
 * Responses' `reasoning.effort` (from `minimal`), Gemini's `thinkingLevel` (upper-case). Chat has nothing below
 * `low` or above `high`.
 */
const WORDS: Readonly<Record<string, Effort>> = { minimal: "low", low: "low", medium: "medium", high: "high", xhigh: "high", max: "high" };

/** An effort word of any client format, in any case, as chat's; undefined for `none`, an unknown word or no word. */
export function effortOfWord(word: unknown): Effort | undefined {
  const key = typeof word === "string" ? word.toLowerCase() : "";
  return Object.hasOwn(WORDS, key) ? WORDS[key] : undefined;
}
