import { isRecord } from "../../parse-json.js";
import { type Effort, effortOfBudget, effortOfWord } from "../../translate/reasoning-effort.js";
import { positive } from "./wire.js";

/**
 * The reasoning effort a messages request asks for: none unless thinking is `enabled` or `adaptive` (an absent or
 * disabled thinking asks for none, research table E row 14); then the bucket of an explicit `budget_tokens`, which
 * keeps precedence (SPEC 12), else `output_config.effort` when it names one (Claude Code sends it with adaptive
 * thinking). Thinking switched on with no amount at all is `high`, the effort Anthropic itself applies when none is
 * given.
 */
export function effortOfRequest(thinking: unknown, outputConfig: unknown): Effort | undefined {
  if (!isRecord(thinking) || (thinking.type !== "enabled" && thinking.type !== "adaptive")) return undefined;
  const budget = positive(thinking.budget_tokens);
  if (budget !== undefined) return effortOfBudget(budget);
  return (isRecord(outputConfig) ? effortOfWord(outputConfig.effort) : undefined) ?? "high";
}

/**
 * Thinking budgets for chat's effort words. Each lands in its own SPEC bucket, so a budget that comes back
 * through `effortOfBudget` names the same effort; `minimal` is Anthropic's smallest budget.
 */
const BUDGETS: Readonly<Record<string, number>> = { minimal: 1024, low: 1024, medium: 4096, high: 16384, xhigh: 16384 };

/** Anthropic refuses a smaller budget. */
const MIN_BUDGET = 1024;

/**
 * Chat's `reasoning_effort` as messages' `thinking`. The budget must stay below `max_tokens` (Anthropic 400s
 * otherwise) and thinking must leave room for the answer, so it is capped at half of `max_tokens`; when that
 * half is under Anthropic's minimum budget, the request goes without thinking. `none` and unknown words: none.
 */
export function thinkingOfEffort(effort: unknown, maxTokens: number): { type: "enabled"; budget_tokens: number } | undefined {
  const wanted = typeof effort === "string" ? BUDGETS[effort] : undefined;
  if (wanted === undefined) return undefined;
  const budget = Math.min(wanted, Math.floor(maxTokens / 2));
  return budget >= MIN_BUDGET ? { type: "enabled", budget_tokens: budget } : undefined;
}
