import type { BudgetState } from "../budgets/budgets.js";
import type { StatusLineAnswer } from "../dashboard/dashboard-routes.js";
import { formatDateTime, formatUsd } from "../request-log/format.js";
import { budgetWords } from "../team/catalog.js";

/** What Claude Code's `statusLine` command is given on stdin (the fields read here; it sends many more). */
export interface StatusLineInput {
  session_id?: unknown;
  model?: { id?: unknown; display_name?: unknown };
}

/** How the gateway was found: answering on `port`, or not at all. */
export type GatewayAnswer = { port: number; answer: StatusLineAnswer } | undefined;

/** `$1.23`, or `≥$1.23` when requests at an unknown price were counted as nothing. */
const spend = (usd: number, unpriced: number): string => `${unpriced > 0 ? "≥" : ""}${formatUsd(usd)}`;

/** The budget worth a word: the fullest one from 80% of its limit on (a spent one says when it resets). */
function budgetWord(budgets: readonly BudgetState[]): string | undefined {
  const fullest = [...budgets].sort((a, b) => b.spentUsd / b.limitUsd - a.spentUsd / a.limitUsd)[0];
  if (!fullest) return undefined;
  const used = fullest.spentUsd / fullest.limitUsd;
  const name = `${fullest.scope === "all" ? "" : `${fullest.scope} `}${fullest.period}`;
  if (used >= 1) return `${name} budget spent until ${formatDateTime(fullest.resetsAt).slice(fullest.period === "daily" ? 11 : 5, 16)}`;
  return used >= 0.8 ? `${name} budget ${Math.floor(used * 100)}%` : undefined;
}

/**
 * The one short line `gateway statusline` prints (SPEC 11, Status line): the gateway's state, where the session's
 * last request went (upstream, the model sent, the rule that routed it, its status when it failed), today's spend and
 * the session's; or, with no gateway answering, what to run.
 */
export function statusLine(found: GatewayAnswer, input: StatusLineInput): string {
  if (!found) return "gateway: not running (start it: gateway start)";
  const { port, answer } = found;
  const parts = [`gateway :${port}`];
  const session = typeof input.session_id === "string" ? answer.session : null;
  const last = session?.last;
  if (last) {
    const model = last.target ?? last.model;
    const route = `→ ${last.upstream ?? "-"}${model ? ` ${model}` : ""}${last.rule ? ` (rule ${last.rule})` : ""}${last.status >= 400 ? ` ${last.status}` : ""}`;
    parts.push(route);
  }
  parts.push(`today ${spend(answer.today.spentUsd, answer.today.unpricedRequests)}`);
  if (session) parts.push(`session ${spend(session.spentUsd, session.unpriced)}`);
  const budget = budgetWord(answer.budgets);
  if (budget) parts.push(budget);
  // A team's budget (SPEC 12) as its team gateway last told it: `team $12.30 of $50.00`.
  for (const team of answer.teams ?? []) parts.push(budgetWords({ budget: team })!);
  return parts.join(" · ");
}
