import type { Command } from "commander";
import ms from "ms";
import { budgetsOf, budgetStates } from "../../budgets/budgets.js";
import { spanOf } from "../../budgets/periods.js";
import { budgetWords, teamBudgetEntries } from "../../team/catalog.js";
import { readStoredCatalogs } from "../../team/catalog-store.js";
import { SpendLedger } from "../../budgets/spend-ledger.js";
import { UsageError } from "../../errors/index.js";
import { loadPricer } from "../../pricing/index.js";
import { logFilePath } from "../../request-log/log-file.js";
import { readRecords } from "../../request-log/read-log.js";
import { summarize } from "../../stats/summarize.js";
import { createContext } from "../context.js";
import { statsReport } from "../stats-report.js";
import { log, print } from "../terminal.js";

/** `90s`, `30m`, `1h`, `7d`, `2w` (anything `ms` reads), or a date such as `2026-11-01`: the start of the period, in ms. */
export function parseSince(value: string, now = Date.now()): number {
  const period = /^\d/.test(value.trim()) ? (ms(value.trim() as ms.StringValue) as number | undefined) : undefined;
  if (typeof period === "number" && period > 0 && !/^\d+$/.test(value.trim())) return now - period;
  const date = Date.parse(value);
  if (!Number.isNaN(date)) return date;
  throw new UsageError(`--since "${value}" is not a period or a date.`, { hint: "Use a number with s, m, h, d or w (30m, 1h, 7d), or a date (2026-11-01)." });
}

export function registerStats(program: Command): void {
  program
    .command("stats")
    .description("requests, errors, tokens, cost and latency per model, client and upstream, from the request log")
    .option("--since <period>", "only requests in the last period (30m, 1h, 7d) or since a date")
    .option("--json", "print the figures as JSON")
    .addHelpText(
      "after",
      "\nP50/P95 are request durations; TTFB is the time to the first byte of the reply. COST is an estimate from a\nbundled price table (or \"prices\" in config.json); ≥ means some requests had no known price and are left out.\nBUDGETS (config \"budgets\") count from the start of the local day or month, whatever --since says.\n\nExample:\n  gateway stats --since 1d\n  gateway stats --json",
    )
    .action(async (options: { since?: string; json?: boolean }) => {
      const since = options.since === undefined ? undefined : parseSince(options.since);
      const { config } = createContext();
      const budgets = budgetsOf(config);
      // The budgets count from the start of the local month, whatever --since asks to show.
      const readSince = budgets.length > 0 && since !== undefined ? Math.min(since, spanOf("monthly", Date.now()).start) : budgets.length > 0 ? undefined : since;
      const [{ records: read }, pricer] = await Promise.all([readRecords(config.stateDir, { since: readSince }), loadPricer(config)]);
      const records = since === undefined ? read : read.filter((record) => Date.parse(record.time) >= since);
      const summary = summarize(records, pricer);
      const ledger = new SpendLedger(pricer);
      if (budgets.length > 0) for (const record of read) ledger.add(record);
      const budgetUse = budgetStates(budgets, ledger);
      // Each team upstream's budget, as its team gateway last told it (SPEC 12): kept with its catalog.
      const teamUsed = config.upstreams.some((upstream) => upstream.team) ? teamBudgetEntries(readStoredCatalogs(config.stateDir)) : [];
      if (options.json) return print(JSON.stringify({ since: since === undefined ? null : new Date(since).toISOString(), ...summary, budgets: [...budgetUse, ...teamUsed] }, null, 2));
      if (summary.total.requests === 0 && budgetUse.length === 0) {
        return log.info(`No requests logged ${options.since ? `since ${options.since}` : "yet"} (${logFilePath(config.stateDir)}).`);
      }
      print(statsReport(summary, since ?? Date.parse(summary.from ?? new Date().toISOString()), process.stdout.isTTY ? process.stdout.columns : undefined, budgetUse));
      for (const entry of teamUsed) print(`${entry.scope}: ${budgetWords({ budget: { spentUsd: entry.spentUsd, limitUsd: entry.limitUsd ?? undefined, readAt: entry.readAt } })} (told by the team gateway ${entry.readAt})`);
    });
}
