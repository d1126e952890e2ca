import type { BudgetState } from "../../src/budgets/budgets.js";
import { formatDateTime, formatUsd } from "../../src/request-log/format.js";
import { el } from "./dom.js";

/** How full a budget is, in words the stylesheet colours: under 80%, from 80%, spent. */
const levelOf = (used: number): string => (used >= 1 ? "spent" : used >= 0.8 ? "near" : "ok");

/** `Daily, all upstreams` or `Monthly, openrouter`. */
const titleOf = (b: BudgetState): string => `${b.period === "daily" ? "Daily" : "Monthly"}, ${b.scope === "all" ? "all upstreams" : b.scope}`;

/**
 * Each budget's use at a glance (SPEC 11, Budgets): a bar filled to what its period has spent of its limit (green,
 * amber from 80%, red when spent: its requests are then refused or fall back), the figures, and when it resets. The
 * section stays hidden while the config has no budget.
 */
export function renderBudgets(container: HTMLElement, budgets: readonly BudgetState[]): void {
  container.hidden = budgets.length === 0;
  container.replaceChildren(
    ...budgets.map((b) => {
      const used = b.spentUsd / b.limitUsd;
      const level = levelOf(used);
      const item = el("div", undefined, `budget ${level}`);
      item.dataset.scope = b.scope;
      item.dataset.period = b.period;
      const bar = el("div", undefined, "bar");
      bar.setAttribute("role", "meter");
      bar.setAttribute("aria-label", titleOf(b));
      bar.setAttribute("aria-valuemin", "0");
      bar.setAttribute("aria-valuemax", String(b.limitUsd));
      bar.setAttribute("aria-valuenow", String(b.spentUsd));
      const fill = el("div", undefined, "fill");
      fill.style.width = `${Math.min(100, used * 100).toFixed(1)}%`;
      bar.append(fill);
      const unknown = b.unpricedRequests > 0 ? ` · ${b.unpricedRequests} at an unknown price, counted as $0` : "";
      item.append(
        el("div", titleOf(b), "budget-title"),
        bar,
        el("div", `${formatUsd(b.spentUsd)} of ${formatUsd(b.limitUsd)} (${Math.floor(used * 100)}%)${level === "spent" ? " · spent" : ""}${unknown}`, "budget-figures"),
        el("div", `resets ${formatDateTime(b.resetsAt).slice(0, 16)}`, "muted budget-reset"),
      );
      return item;
    }),
  );
}
