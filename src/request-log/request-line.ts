import type { ConsolaInstance } from "consola";
import { cutShort, type RequestRecord, type RequestSink } from "./record.js";

/** `1234ms`, or `-` when the figure is missing (records read back from JSON may lack it). */
export const formatMs = (value: number | null | undefined): string => (typeof value === "number" ? `${Math.round(value)}ms` : "-");

/** `12/40`: tokens in and out, `?` for a side the upstream did not report; undefined when it reported neither. */
export function tokenPair(r: Pick<RequestRecord, "inputTokens" | "outputTokens">): string | undefined {
  if (r.inputTokens === undefined && r.outputTokens === undefined) return undefined;
  return `${r.inputTokens ?? "?"}/${r.outputTokens ?? "?"}`;
}

function tokensPart(r: RequestRecord): string {
  const pair = tokenPair(r);
  if (pair === undefined) return "";
  const cache = [r.cacheReadTokens ? `read ${r.cacheReadTokens}` : "", r.cacheWriteTokens ? `write ${r.cacheWriteTokens}` : ""].filter(Boolean).join(", ");
  return ` tokens ${pair}${cache ? ` (cache ${cache})` : ""}`;
}

/** `POST /v1/messages claude-x 200 1234ms ttfb 80ms tokens 12/40 (cache read 100)` */
export function formatRequestLine(r: RequestRecord): string {
  const outcome = cutShort(r) ? ` (${r.outcome.replace("_", " ")})` : "";
  return `${r.method} ${r.path} ${r.model ?? "-"} ${r.status} ${formatMs(r.durationMs)} ttfb ${formatMs(r.ttfbMs)}${tokensPart(r)}${outcome}`;
}

/** `  > name: value` for request headers, `  < name: value` for reply headers, as curl -v shows them. */
function formatHeaders(headers: NonNullable<RequestRecord["headers"]>): string {
  const lines = (mark: string, set: Record<string, string>) => Object.entries(set).map(([name, value]) => `  ${mark} ${name}: ${value}`);
  return [...lines(">", headers.request), ...lines("<", headers.reply)].join("\n");
}

/** One consola line per request, followed by its redacted headers when the record carries them. */
export function consolaSink(logger: ConsolaInstance): RequestSink {
  return (record) => {
    const line = record.headers ? `${formatRequestLine(record)}\n${formatHeaders(record.headers)}` : formatRequestLine(record);
    if (record.status >= 500 || record.outcome === "upstream_error") logger.error(line);
    else if (record.status >= 400) logger.warn(line);
    else logger.info(line);
  };
}
