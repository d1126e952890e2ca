import type { Budgets, GatewayConfig } from "../config/index.js";
import { PERIODS, type Period } from "./periods.js";
import { toMicros } from "../pricing/micros.js";
import type { SpendLedger } from "./spend-ledger.js";

/** One configured cap (SPEC 11, Budgets): on all spending (`all`) or on one upstream's, per local day or month. */
export interface Budget {
  /** `all`, or the upstream's name. */
  scope: string;
  period: Period;
  limitUsd: number;
}

/** A budget with what has been spent against it: `stats --json`'s `budgets` entries, the dashboard's and the status line's. */
export interface BudgetState extends Budget {
  spentUsd: number;
  /** When the period ends, ISO 8601. */
  resetsAt: string;
  /** Requests it counted at 0 because their model has no known price. */
  unpricedRequests: number;
}

const capsOf = (scope: string, budgets: Budgets): Budget[] => PERIODS.flatMap((period) => (budgets[period] === undefined ? [] : [{ scope, period, limitUsd: budgets[period] }]));

/** Every configured budget: the overall ones first, then each upstream's in file order. */
export function budgetsOf(config: Pick<GatewayConfig, "budgets" | "upstreams">): Budget[] {
  return [...capsOf("all", config.budgets), ...config.upstreams.flatMap((upstream) => capsOf(upstream.name, upstream.budgets))];
}

/** Each budget with its spend and reset, from the ledger's running totals. */
export function budgetStates(budgets: readonly Budget[], ledger: SpendLedger): BudgetState[] {
  return budgets.map((budget) => stateOf(budget, ledger));
}

const stateOf = (budget: Budget, ledger: SpendLedger): BudgetState => {
  const upstream = budget.scope === "all" ? undefined : budget.scope;
  return {
    ...budget,
    spentUsd: ledger.spent(budget.period, upstream),
    resetsAt: new Date(ledger.resetsAt(budget.period)).toISOString(),
    unpricedRequests: ledger.unpriced(budget.period, upstream),
  };
};

/**
 * The budget that keeps a request from `upstream` now (its own, or the overall one), or undefined when every one
 * allows it. A budget is spent when what it counted reaches its limit; of several spent, the one that resets last is
 * named, since only its reset lets the request through. Compared in whole millionths of a dollar (SPEC 11).
 */
export function spentBudget(budgets: readonly Budget[], ledger: SpendLedger, upstream: string): BudgetState | undefined {
  let found: Budget | undefined;
  for (const budget of budgets) {
    if (budget.scope !== "all" && budget.scope !== upstream) continue;
    if (ledger.spentMicros(budget.period, budget.scope === "all" ? undefined : budget.scope) < toMicros(budget.limitUsd)) continue;
    if (!found || ledger.resetsAt(budget.period) > ledger.resetsAt(found.period)) found = budget;
  }
  return found && stateOf(found, ledger);
}
