import { clientName } from "./client-name.js";
import { cutShort, type RequestRecord } from "./record.js";

/** p50 and p95 in ms (nearest rank), null when no request had the figure. */
export interface Percentiles {
  p50: number | null;
  p95: number | null;
}

/** The figures of one model, one client, or everything. */
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
}

export interface UsageSummary {
  /** Time of the first and last record counted. */
  from: string | null;
  to: string | null;
  total: GroupStats;
  /** Busiest first. */
  models: GroupStats[];
  clients: GroupStats[];
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

function group(name: string, records: readonly RequestRecord[]): GroupStats {
  const sum = (pick: (r: RequestRecord) => number | undefined) => records.reduce((total, r) => total + (pick(r) ?? 0), 0);
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
  };
}

function groupBy(records: readonly RequestRecord[], keyOf: (r: RequestRecord) => string): GroupStats[] {
  const groups = new Map<string, RequestRecord[]>();
  for (const record of records) {
    const key = keyOf(record);
    const list = groups.get(key);
    if (list) list.push(record);
    else groups.set(key, [record]);
  }
  return [...groups].map(([name, list]) => group(name, list)).sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name));
}

/** Requests, errors, tokens and latency per model and per client (the tool, from its user agent). */
export function summarize(records: readonly RequestRecord[]): UsageSummary {
  return {
    from: records[0]?.time ?? null,
    to: records.at(-1)?.time ?? null,
    total: group("all", records),
    models: groupBy(records, (r) => r.model ?? "-"),
    clients: groupBy(records, (r) => clientName(r.userAgent)),
  };
}
