/**
 * How the CLI and the dashboard write times, durations, counts and money: one style everywhere (issue 26, item 13).
 * Times are local, 24-hour, in ISO order (`2026-11-23 14:03:07`), and tables leave out the date of today's times
 * (`14:03:07`); machine output (`--json`, requests.jsonl) keeps ISO 8601 in UTC. No Node module is imported: the
 * dashboard page bundles this file.
 */

const two = (n: number) => String(n).padStart(2, "0");

/** `2026-11-23`: the local date of `time`. */
const localDate = (d: Date) => `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;

/** `14:03:07`, or `14:03` without `seconds`: the local time of day of `d`, 24-hour. */
const localClock = (d: Date, seconds = true) => `${two(d.getHours())}:${two(d.getMinutes())}${seconds ? `:${two(d.getSeconds())}` : ""}`;

/** `2026-11-23 14:03:07`, local time: when something happened, in full. */
export function formatDateTime(time: string | number | Date): string {
  const d = new Date(time);
  return `${localDate(d)} ${localClock(d)}`;
}

/** `14:03:07`, or `14:03` without `seconds`: a local time of day, 24-hour (the dashboard's chart axes). */
export const formatClock = (time: string | number | Date, seconds = true): string => localClock(new Date(time), seconds);

/** `14:03:07` for a time of the day `now` is in (local), else `2026-11-22 14:03:07`: a table row's time. */
export function formatTime(time: string | number | Date, now: Date = new Date()): string {
  const d = new Date(time);
  return localDate(d) === localDate(now) ? localClock(d) : formatDateTime(d);
}

/** `1234ms`, or `-` when the figure is missing (records read back from JSON may lack it). */
export const formatMs = (value: number | null | undefined): string => (typeof value === "number" ? `${Math.round(value)}ms` : "-");

/** `12,345`. */
export const formatCount = (n: number): string => n.toLocaleString("en-US");

/** The least amount of dollars written as a figure: below it, `<$0.0001`. */
const LEAST_USD = 0.0001;

/**
 * US dollars: `$1.23`, `$0.0042` below a cent (two significant digits), `<$0.0001` below that, `$0.00` for
 * nothing; `unknown` for a cost that is not known (`null`), `-` where there was nothing to price (`undefined`).
 */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === undefined) return "-";
  if (usd === null) return "unknown";
  if (usd === 0) return "$0.00";
  if (usd < LEAST_USD) return "<$0.0001";
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/**
 * The cost of a group of requests: `$1.23`; `≥$1.23` when some of them had no known price (the figure leaves
 * them out); `unknown` when what the priced ones cost is below `$0.0001` (or nothing): a lower bound too small to
 * write says nothing (`≥<$0.0001`).
 */
export function formatGroupCost(costUsd: number, unpricedRequests: number): string {
  if (unpricedRequests === 0) return formatUsd(costUsd);
  return costUsd < LEAST_USD ? "unknown" : `≥${formatUsd(costUsd)}`;
}
