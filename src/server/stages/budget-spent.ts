import type { BudgetState } from "../../budgets/budgets.js";
import { apiError, type ApiError } from "../../errors/index.js";
import { formatDateTime, formatUsd } from "../../request-log/format.js";

/**
 * The answer to a request no upstream may take for its budget (SPEC 11, Budgets): 429 in the client's family shape
 * (chat: type `insufficient_quota`, OpenAI's word for a spent quota; messages: `rate_limit_error`, the type of its
 * status, as the messages envelope has no other word; gemini: `RESOURCE_EXHAUSTED`), code `budget_exceeded`,
 * `retry-after` the seconds until the reset, and a message naming the budget, the spend, the reset (local time) and
 * what to do.
 */
export function budgetSpent(budget: BudgetState, configFile: string, now = Date.now()): ApiError {
  const resets = Date.parse(budget.resetsAt);
  const which = budget.scope === "all" ? `The overall ${budget.period} budget` : `The ${budget.period} budget of the upstream ${budget.scope}`;
  const field = budget.scope === "all" ? `budgets.${budget.period}` : `upstreams.${budget.scope}.budgets.${budget.period}`;
  return apiError(
    429,
    `${which} (${formatUsd(budget.limitUsd)}) is spent: ${formatUsd(budget.spentUsd)} estimated since the ${budget.period === "daily" ? "day" : "month"} began, so the request was not sent. It resets at ${formatDateTime(resets)} (local time). Wait until then, or raise "${field}" in ${configFile} and restart the gateway.`,
    { type: "insufficient_quota", code: "budget_exceeded", retryAfterSeconds: Math.max(1, Math.ceil((resets - now) / 1000)) },
  );
}
