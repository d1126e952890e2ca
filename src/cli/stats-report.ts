import { formatCount, formatDateTime, formatGroupCost, formatMs } from "../request-log/format.js";
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

/** One table: a row per model, client or upstream. */
function table(title: string, groups: readonly GroupStats[], withCache: boolean, width: number | undefined): string {
  const columns: Column[] = [
    { title, maxWidth: 40 },
    { title: "REQUESTS", align: "right" },
    { title: "ERRORS", align: "right" },
    { title: "TOKENS IN", align: "right" },
    { title: "TOKENS OUT", align: "right" },
    ...(withCache ? [{ title: "CACHE R/W", align: "right" } as const] : []),
    { title: "COST", align: "right" },
    { title: "P50", align: "right" },
    { title: "P95", align: "right" },
    { title: "TTFB P50", align: "right" },
    { title: "TTFB P95", align: "right" },
  ];
  const rows: Cell[][] = groups.map((g) => [
    g.name,
    formatCount(g.requests),
    formatCount(g.errors),
    formatCount(g.inputTokens),
    formatCount(g.outputTokens),
    ...(withCache ? [`${formatCount(g.cacheReadTokens)}/${formatCount(g.cacheWriteTokens)}`] : []),
    formatGroupCost(g.costUsd, g.unpricedRequests),
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
  return [
    `${plural(total.requests, "request")} since ${since}, ${plural(total.errors, "error")}`,
    `Tokens: ${formatCount(total.inputTokens)} in, ${formatCount(total.outputTokens)} out${cache}`,
    `Estimated cost: ${formatGroupCost(total.costUsd, total.unpricedRequests)}${unknown}`,
  ];
}

/**
 * `gateway stats` as text, fitted to `width` terminal columns (undefined: no limit): the headline, then a table per
 * model and per client, per upstream when requests went to more than the one called `default`, and per rule when a
 * rule of `routes` routed any.
 */
export function statsReport(summary: UsageSummary, since: number, width: number | undefined): string {
  const withCache = summary.total.cacheReadTokens > 0 || summary.total.cacheWriteTokens > 0;
  // `-` groups the requests refused before routing; with one upstream besides, a table would say nothing new.
  const routed = summary.upstreams.filter((g) => g.name !== "-");
  const byUpstream = routed.length > 1 || routed.some((g) => g.name !== "default");
  return [
    ...headline(summary, formatDateTime(since)),
    "",
    table("MODEL", summary.models, withCache, width),
    "",
    table("CLIENT", summary.clients, withCache, width),
    ...(byUpstream ? ["", table("UPSTREAM", summary.upstreams, withCache, width)] : []),
    ...(summary.rules.length > 0 ? ["", table("RULE", summary.rules, withCache, width)] : []),
  ].join("\n");
}
