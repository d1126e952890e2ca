/** A failed export is told at most this often (SPEC 12: a warning once a minute, not one per batch). */
export const WARNING_INTERVAL_MS = 60_000;

/** What an exporter reports of one export (`@opentelemetry/core`'s `ExportResult`, without loading it). */
export interface ExportOutcome {
  /** 0 succeeded, 1 failed (`ExportResultCode`). */
  code: number;
  error?: Error | undefined;
}

/** An error's own words for a log line, cut short: a collector's reply body never floods the gateway's output. */
const reasonOf = (error: Error | undefined): string => (error?.message ? error.message.replace(/\s+/g, " ").slice(0, 200) : "no reason given");

/**
 * Words each failed export once per `WARNING_INTERVAL_MS`: the first failure at once, then at most one a minute,
 * saying how many failed since the last warning. `warn` gets one line naming the signal and the collector's URL (never
 * its headers, which may hold a token).
 */
export function createExportWarnings(warn: (line: string) => void, now: () => number = Date.now) {
  let last = -Infinity;
  let failedSince = 0;
  return (signal: "traces" | "metrics", url: string, outcome: ExportOutcome): void => {
    if (outcome.code === 0) return;
    failedSince++;
    if (now() - last < WARNING_INTERVAL_MS) return;
    const more = failedSince > 1 ? ` (${failedSince} exports failed since the last warning)` : "";
    warn(`OTLP export of ${signal} to ${url} failed: ${reasonOf(outcome.error)}${more}. Requests are not affected; check that the collector is up, or unset the endpoint (docs/telemetry.md).`);
    last = now();
    failedSince = 0;
  };
}

export type ExportWarnings = ReturnType<typeof createExportWarnings>;
