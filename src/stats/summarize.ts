import { toMicros } from "../pricing/micros.js";
import { NO_PRICES, type Cost, type Pricer } from "../pricing/pricer.js";
import { clientName } from "../request-log/client-name.js";
import { cutShort, type RequestRecord } from "../request-log/record.js";

/** p50 and p95 in ms (nearest rank), null when no request had the figure. */
export interface Percentiles {
  p50: number | null;
  p95: number | null;
}

/** The figures of one model, one client, one upstream, or everything. */
export interface GroupStats {
  name: string;
  requests: number;
  /** Status 400 and up, or a reply cut short. */
  errors: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  durationMs: Percentiles;
  ttfbMs: Percentiles;
  /**
   * Estimated cost in US dollars of the requests whose price is known (rounded to a millionth). It leaves out the
   * `unpricedRequests`, so with any of those it is a lower bound.
   */
  costUsd: number;
  /** Requests that reported tokens for a model without a known price: their cost is unknown, not 0. */
  unpricedRequests: number;
  /**
   * What the requests through the user's own login (`ownLogin`, a `key: "client"` upstream) would cost at API
   * prices: shown apart, never in `costUsd` (SPEC 11, Budgets).
   */
  ownLoginCostUsd: number;
  /** Requests whose tokens the gateway estimated (their reply reported no usage): the token and cost figures are estimates. */
  estimatedRequests: number;
}

export interface UsageSummary {
  /** Time of the first and last record counted. */
  from: string | null;
  to: string | null;
  total: GroupStats;
  /** Busiest first. */
  models: GroupStats[];
  clients: GroupStats[];
  /** Per upstream (SPEC section 10): the one that answered, or the last one tried; `-` for requests never routed. */
  upstreams: GroupStats[];
  /** Per rule of `routes` (SPEC 11); `-` for requests no rule routed. Empty when no request was routed by a rule. */
  rules: GroupStats[];
}

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const value = sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
  return Math.round(value * 10) / 10;
}

function percentiles(values: number[]): Percentiles {
  const sorted = values.sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
}

const isError = (r: RequestRecord) => r.status >= 400 || cutShort(r);

/** A record with its cost, priced once however many groups it counts in. */
interface Priced {
  record: RequestRecord;
  cost: Cost;
}

function group(name: string, priced: readonly Priced[]): GroupStats {
  const records = priced.map((p) => p.record);
  const sum = (pick: (r: RequestRecord) => number | undefined) => records.reduce((total, r) => total + (pick(r) ?? 0), 0);
  // Summed in whole millionths (SPEC 11, Budgets), as the budgets sum them; the own login's apart.
  const micros = (own: boolean) => priced.reduce((total, p) => total + ((p.record.ownLogin === true) === own ? toMicros(p.cost ?? 0) : 0), 0);
  return {
    name,
    requests: records.length,
    errors: records.filter(isError).length,
    inputTokens: sum((r) => r.inputTokens),
    outputTokens: sum((r) => r.outputTokens),
    cacheReadTokens: sum((r) => r.cacheReadTokens),
    cacheWriteTokens: sum((r) => r.cacheWriteTokens),
    durationMs: percentiles(records.map((r) => r.durationMs)),
    ttfbMs: percentiles(records.flatMap((r) => (typeof r.ttfbMs === "number" ? [r.ttfbMs] : []))),
    costUsd: micros(false) / 1e6,
    unpricedRequests: priced.filter((p) => p.cost === null).length,
    ownLoginCostUsd: micros(true) / 1e6,
    estimatedRequests: records.filter((r) => r.estimated === true).length,
  };
}

function groupBy(priced: readonly Priced[], keyOf: (r: RequestRecord) => string | readonly string[]): GroupStats[] {
  const groups = new Map<string, Priced[]>();
  for (const entry of priced) {
    for (const key of [keyOf(entry.record)].flat()) {
      const list = groups.get(key);
      if (list) list.push(entry);
      else groups.set(key, [entry]);
    }
  }
  return [...groups].map(([name, list]) => group(name, list)).sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name));
}

/**
 * Requests, errors, tokens, latency and cost per model, per client (the tool, from its user agent), per upstream
 * and per rule of `routes`. `pricer` (from `loadPricer` in `src/pricing/`) prices each request; without one every cost is unknown.
 */
export function summarize(records: readonly RequestRecord[], pricer: Pricer = NO_PRICES): UsageSummary {
  const priced = records.map((record) => ({ record, cost: pricer(record) }));
  return {
    from: records[0]?.time ?? null,
    to: records.at(-1)?.time ?? null,
    total: group("all", priced),
    models: groupBy(priced, (r) => r.model ?? "-"),
    clients: groupBy(priced, (r) => clientName(r.userAgent)),
    // A merged model list is recorded as answered by `default,local` (names never hold a comma): it is one request
    // to each upstream it asked, so it counts in each one's row, never as an upstream of that name.
    upstreams: groupBy(priced, (r) => r.upstream?.split(",") ?? "-"),
    rules: records.some((r) => r.rule !== undefined) ? groupBy(priced, (r) => r.rule ?? "-") : [],
  };
}
