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

/** Longest text from a request the line shows (SPEC 11, Status line). */
const MAX_SHOWN = 40;

/** A terminal's escape sequences: CSI (`ESC [ ... m`), OSC (`ESC ] ... BEL` or `ESC \`), and any other `ESC` + one character. */
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\s\S]?)|\x9b[0-?]*[ -/]*[@-~]/g;
/** What is left that a terminal acts on or breaks a line at: C0, DEL, C1, and Unicode's line and paragraph separators. */
const CONTROLS = /[\p{Cc}\u2028\u2029]/gu;

/**
 * Text that came from a request (a model id, a rule name), fit for a status bar: escape sequences and control
 * characters left out, so a client's model id cannot move the cursor, recolour or retitle the user's terminal or
 * break the line; cut to 40 characters (code points), the last one an ellipsis when cut.
 */
export function shownText(text: string): string {
  const clean = [...text.replace(ESCAPES, "").replace(CONTROLS, "")];
  return clean.length <= MAX_SHOWN ? clean.join("") : `${clean.slice(0, MAX_SHOWN - 1).join("")}…`;
}

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
    const route = `→ ${last.upstream ?? "-"}${model ? ` ${shownText(model)}` : ""}${last.rule ? ` (rule ${shownText(last.rule)})` : ""}${last.status >= 400 ? ` ${last.status}` : ""}`;
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
