import type { BudgetState } from "../../src/budgets/budgets.js";
import type { TeamBudgetOf } from "../../src/dashboard/dashboard-routes.js";
import { formatClock, formatDateTime, formatUsd } from "../../src/request-log/format.js";
import { el } from "./dom.js";

/** How full a budget is, in words the stylesheet colours: under 80%, from 80%, spent. */
const levelOf = (used: number): string => (used >= 1 ? "spent" : used >= 0.8 ? "near" : "ok");

/** `Daily, all upstreams` or `Monthly, openrouter`. */
const titleOf = (b: BudgetState): string => `${b.period === "daily" ? "Daily" : "Monthly"}, ${b.scope === "all" ? "all upstreams" : b.scope}`;

/** A card: its title, a bar filled to `used` of its limit (none without a limit), then its lines. */
function card(scope: string, period: string, title: string, level: string, meter: { used: number; spentUsd: number; limitUsd: number } | undefined, lines: HTMLElement[]): HTMLElement {
  const item = el("div", undefined, `budget ${level}`);
  item.dataset.scope = scope;
  item.dataset.period = period;
  item.append(el("div", title, "budget-title"));
  if (meter) {
    const bar = el("div", undefined, "bar");
    bar.setAttribute("role", "meter");
    bar.setAttribute("aria-label", title);
    bar.setAttribute("aria-valuemin", "0");
    bar.setAttribute("aria-valuemax", String(meter.limitUsd));
    bar.setAttribute("aria-valuenow", String(meter.spentUsd));
    const fill = el("div", undefined, "fill");
    fill.style.width = `${Math.min(100, meter.used * 100).toFixed(1)}%`;
    bar.append(fill);
    item.append(bar);
  }
  item.append(...lines);
  return item;
}

/** `$3.60 of $10.00 (36%)`, and ` · spent` once it is. */
const figures = (spentUsd: number, limitUsd: number, used: number, level: string): string =>
  `${formatUsd(spentUsd)} of ${formatUsd(limitUsd)} (${Math.floor(used * 100)}%)${level === "spent" ? " · spent" : ""}`;

function gatewayBudget(b: BudgetState): HTMLElement {
  const used = b.spentUsd / b.limitUsd;
  const level = levelOf(used);
  const unknown = b.unpricedRequests > 0 ? ` · ${b.unpricedRequests} at an unknown price, counted as $0` : "";
  return card(b.scope, b.period, titleOf(b), level, { used, spentUsd: b.spentUsd, limitUsd: b.limitUsd }, [
    el("div", `${figures(b.spentUsd, b.limitUsd, used, level)}${unknown}`, "budget-figures"),
    el("div", `resets ${formatDateTime(b.resetsAt).slice(0, 16)}`, "muted budget-reset"),
  ]);
}

/**
 * A team upstream's budget (SPEC 12): the team gateway's own figures for the person's key (LiteLLM's `/key/info`),
 * which the team gateway enforces, not this one; a key without a limit of its own shows its spend only.
 */
function teamBudget(t: TeamBudgetOf): HTMLElement {
  const limited = t.limitUsd !== undefined && t.limitUsd > 0;
  const used = limited ? t.spentUsd / t.limitUsd! : 0;
  const level = limited ? levelOf(used) : "ok";
  const reset = t.resetsAt ? `resets ${formatDateTime(t.resetsAt).slice(0, 16)} · ` : "";
  return card(t.upstream, "team", `Team, ${t.upstream}`, `${level} team-budget`, limited ? { used, spentUsd: t.spentUsd, limitUsd: t.limitUsd! } : undefined, [
    el("div", limited ? figures(t.spentUsd, t.limitUsd!, used, level) : `${formatUsd(t.spentUsd)} spent · no limit on this key`, "budget-figures"),
    el("div", `${reset}as the team gateway said at ${formatClock(t.readAt, false)}`, "muted budget-reset"),
  ]);
}

/**
 * Each budget's use at a glance (SPEC 11, Budgets): a bar filled to what its period has spent of its limit (green,
 * amber from 80%, red when spent: its requests are then refused or fall back), the figures, and when it resets; then
 * each team upstream's budget as its team gateway told it (SPEC 12). The section stays hidden while there is none.
 */
export function renderBudgets(container: HTMLElement, budgets: readonly BudgetState[], teams: readonly TeamBudgetOf[]): void {
  container.hidden = budgets.length + teams.length === 0;
  container.replaceChildren(...budgets.map(gatewayBudget), ...teams.map(teamBudget));
}
