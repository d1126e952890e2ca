import type { BudgetState } from "../budgets/budgets.js";
import { formatCount, formatDateTime, formatGroupCost, formatMs, formatUsd } from "../request-log/format.js";
import type { GroupStats, UsageSummary } from "../stats/summarize.js";
import { fitColumns, type FitRules } from "./fit-columns.js";
import { columnWidths, formatRow, type Cell, type Column } from "./table.js";

/**
 * How a `gateway stats` table gives way on a narrow terminal (the README states this order): its first column (the
 * model, client or upstream) gets narrower first, then TTFB P95, TTFB P50, CACHE R/W, P95 and ERRORS go.
 */
const statsFit = (title: string): FitRules => ({
  shrink: [[title, 14]],
  drop: ["TTFB P95", "TTFB P50", "CACHE R/W", "P95", "ERRORS"],
});

const plural = (n: number, noun: string) => `${formatCount(n)} ${noun}${n === 1 ? "" : "s"}`;

/** A figure some of whose requests the gateway estimated (their reply reported no usage): `~1,234`. */
const estimate = (g: GroupStats, figure: string): string => (g.estimatedRequests > 0 ? `~${figure}` : figure);

/** One table: a row per model, client or upstream. `withOwn`: an OWN LOGIN column, the own login's cost at API prices. */
function table(title: string, groups: readonly GroupStats[], withCache: boolean, withOwn: boolean, width: number | undefined): string {
  const columns: Column[] = [
    { title, maxWidth: 40 },
    { title: "REQUESTS", align: "right" },
    { title: "ERRORS", align: "right" },
    { title: "TOKENS IN", align: "right" },
    { title: "TOKENS OUT", align: "right" },
    ...(withCache ? [{ title: "CACHE R/W", align: "right" } as const] : []),
    { title: "COST", align: "right" },
    ...(withOwn ? [{ title: "OWN LOGIN", align: "right" } as const] : []),
    { title: "P50", align: "right" },
    { title: "P95", align: "right" },
    { title: "TTFB P50", align: "right" },
    { title: "TTFB P95", align: "right" },
  ];
  const rows: Cell[][] = groups.map((g) => [
    g.name,
    formatCount(g.requests),
    formatCount(g.errors),
    estimate(g, formatCount(g.inputTokens)),
    estimate(g, formatCount(g.outputTokens)),
    ...(withCache ? [`${formatCount(g.cacheReadTokens)}/${formatCount(g.cacheWriteTokens)}`] : []),
    estimate(g, formatGroupCost(g.costUsd, g.unpricedRequests)),
    ...(withOwn ? [g.ownLoginCostUsd > 0 ? formatUsd(g.ownLoginCostUsd) : "-"] : []),
    formatMs(g.durationMs.p50),
    formatMs(g.durationMs.p95),
    formatMs(g.ttfbMs.p50),
    formatMs(g.ttfbMs.p95),
  ]);
  const fitted = fitColumns(columns, columnWidths(columns, rows), width, statsFit(title));
  return [fitted.columns.map((c) => c.title), ...rows.map(fitted.pick)].map((row) => formatRow(fitted.columns, fitted.widths, row)).join("\n");
}

/** The first lines: how many requests since when, errors, tokens and what they cost. */
function headline(summary: UsageSummary, since: string): string[] {
  const { total } = summary;
  const cache = total.cacheReadTokens > 0 || total.cacheWriteTokens > 0 ? ` (cache: ${formatCount(total.cacheReadTokens)} read, ${formatCount(total.cacheWriteTokens)} written)` : "";
  const unknown = total.unpricedRequests > 0 ? `, ${plural(total.unpricedRequests, "request")} at an unknown price not included` : "";
  const estimated = total.estimatedRequests > 0 ? ` (~: ${plural(total.estimatedRequests, "request")} reported no usage; the gateway estimated their tokens)` : "";
  return [
    `${plural(total.requests, "request")} since ${since}, ${plural(total.errors, "error")}`,
    `Tokens: ${estimate(total, formatCount(total.inputTokens))} in, ${estimate(total, formatCount(total.outputTokens))} out${cache}${estimated}`,
    `Estimated cost: ${estimate(total, formatGroupCost(total.costUsd, total.unpricedRequests))}${unknown}`,
    ...(total.ownLoginCostUsd > 0 ? [`Own login, at API prices: ${formatUsd(total.ownLoginCostUsd)} (not in the cost above, nor in the overall budget)`] : []),
  ];
}

/** A budget's scope and period as the table names it: `all, daily`, `openrouter, monthly`. */
const budgetName = (b: BudgetState) => `${b.scope}, ${b.period}`;

/**
 * The budgets (SPEC 11): what each has counted of its limit since its period began, and when it resets. Requests at
 * an unknown price count as 0, and the line says how many.
 */
function budgetTable(budgets: readonly BudgetState[], width: number | undefined): string {
  const columns: Column[] = [{ title: "BUDGET", maxWidth: 40 }, { title: "SPENT", align: "right" }, { title: "LIMIT", align: "right" }, { title: "USED", align: "right" }, { title: "RESETS" }];
  const rows: Cell[][] = budgets.map((b) => [
    budgetName(b),
    `${formatUsd(b.spentUsd)}${b.unpricedRequests > 0 ? ` (+${plural(b.unpricedRequests, "request")} at an unknown price)` : ""}`,
    formatUsd(b.limitUsd),
    `${Math.floor((b.spentUsd / b.limitUsd) * 100)}%`,
    formatDateTime(b.resetsAt),
  ]);
  const fitted = fitColumns(columns, columnWidths(columns, rows), width, { shrink: [["BUDGET", 14]], drop: ["RESETS"] });
  return [fitted.columns.map((c) => c.title), ...rows.map(fitted.pick)].map((row) => formatRow(fitted.columns, fitted.widths, row)).join("\n");
}

/**
 * `gateway stats` as text, fitted to `width` terminal columns (undefined: no limit): the headline, then a table per
 * model and per client, per upstream when requests went to more than the one called `default`, per rule when a rule
 * of `routes` routed any; the budgets, when the config has any.
 */
export function statsReport(summary: UsageSummary, since: number, width: number | undefined, budgets: readonly BudgetState[] = []): string {
  const withCache = summary.total.cacheReadTokens > 0 || summary.total.cacheWriteTokens > 0;
  const withOwn = summary.total.ownLoginCostUsd > 0;
  // `-` groups the requests refused before routing; with one upstream besides, a table would say nothing new.
  const routed = summary.upstreams.filter((g) => g.name !== "-");
  const byUpstream = routed.length > 1 || routed.some((g) => g.name !== "default");
  return [
    ...headline(summary, formatDateTime(since)),
    "",
    table("MODEL", summary.models, withCache, withOwn, width),
    "",
    table("CLIENT", summary.clients, withCache, withOwn, width),
    ...(byUpstream ? ["", table("UPSTREAM", summary.upstreams, withCache, withOwn, width)] : []),
    ...(summary.rules.length > 0 ? ["", table("RULE", summary.rules, withCache, withOwn, width)] : []),
    ...(budgets.length > 0 ? ["", budgetTable(budgets, width)] : []),
  ].join("\n");
}
