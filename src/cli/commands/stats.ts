import type { Command } from "commander";
import ms from "ms";
import { UsageError } from "../../errors/index.js";
import { logFilePath } from "../../request-log/log-file.js";
import { readRecords } from "../../request-log/read-log.js";
import { formatMs } from "../../request-log/request-line.js";
import { summarize, type GroupStats, type UsageSummary } from "../../request-log/summarize.js";
import { createContext } from "../context.js";
import { formatTable, type Column } from "../table.js";
import { log, print } from "../terminal.js";

/** `90s`, `30m`, `1h`, `7d`, `2w` (anything `ms` reads), or a date such as `2026-11-01`: the start of the period, in ms. */
export function parseSince(value: string, now = Date.now()): number {
  const period = /^\d/.test(value.trim()) ? (ms(value.trim() as ms.StringValue) as number | undefined) : undefined;
  if (typeof period === "number" && period > 0 && !/^\d+$/.test(value.trim())) return now - period;
  const date = Date.parse(value);
  if (!Number.isNaN(date)) return date;
  throw new UsageError(`--since "${value}" is not a period or a date.`, { hint: "Use a number with s, m, h, d or w (30m, 1h, 7d), or a date (2026-11-01)." });
}

const count = (n: number) => n.toLocaleString("en-US");
const plural = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? "" : "s"}`;

function table(title: string, groups: readonly GroupStats[], withCache: boolean): string {
  const columns: Column[] = [
    { title, maxWidth: 40 },
    { title: "REQUESTS", align: "right" },
    { title: "ERRORS", align: "right" },
    { title: "TOKENS IN", align: "right" },
    { title: "TOKENS OUT", align: "right" },
    ...(withCache ? [{ title: "CACHE R/W", align: "right" } as const] : []),
    { title: "P50", align: "right" },
    { title: "P95", align: "right" },
    { title: "TTFB P50", align: "right" },
    { title: "TTFB P95", align: "right" },
  ];
  const rows = groups.map((g) => [
    g.name,
    count(g.requests),
    count(g.errors),
    count(g.inputTokens),
    count(g.outputTokens),
    ...(withCache ? [`${count(g.cacheReadTokens)}/${count(g.cacheWriteTokens)}`] : []),
    formatMs(g.durationMs.p50),
    formatMs(g.durationMs.p95),
    formatMs(g.ttfbMs.p50),
    formatMs(g.ttfbMs.p95),
  ]);
  return formatTable(columns, rows);
}

function report(summary: UsageSummary, period: string): string {
  const { total } = summary;
  const withCache = total.cacheReadTokens > 0 || total.cacheWriteTokens > 0;
  return [
    `${plural(total.requests, "request")} ${period}, ${plural(total.errors, "error")}, ${plural(total.inputTokens, "token")} in, ${count(total.outputTokens)} out`,
    "",
    table("MODEL", summary.models, withCache),
    "",
    table("CLIENT", summary.clients, withCache),
  ].join("\n");
}

export function registerStats(program: Command): void {
  program
    .command("stats")
    .description("requests, errors, tokens and latency per model and per client, from the request log")
    .option("--since <period>", "only requests in the last period (30m, 1h, 7d) or since a date")
    .option("--json", "print the figures as JSON")
    .addHelpText("after", "\nP50/P95 are request durations; TTFB is the time to the first byte of the reply.\n\nExample:\n  gateway stats --since 1d\n  gateway stats --json")
    .action(async (options: { since?: string; json?: boolean }) => {
      const since = options.since === undefined ? undefined : parseSince(options.since);
      const { stateDir } = createContext().config;
      const summary = summarize((await readRecords(stateDir, { since })).records);
      if (options.json) return print(JSON.stringify({ since: since === undefined ? null : new Date(since).toISOString(), ...summary }, null, 2));
      if (summary.total.requests === 0) {
        return log.info(`No requests logged ${options.since ? `since ${options.since}` : "yet"} (${logFilePath(stateDir)}).`);
      }
      const start = new Date(since ?? Date.parse(summary.from!)).toISOString();
      print(report(summary, `since ${start.slice(0, 16).replace("T", " ")} UTC`));
    });
}
