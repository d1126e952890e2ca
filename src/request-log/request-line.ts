import type { ConsolaInstance } from "consola";
import type { RequestRecord, RequestSink } from "./record.js";

const ms = (value: number | undefined) => (value === undefined ? "-" : `${Math.round(value)}ms`);

function tokensPart(r: RequestRecord): string {
  if (r.inputTokens === undefined && r.outputTokens === undefined) return "";
  const cache = [r.cacheReadTokens ? `read ${r.cacheReadTokens}` : "", r.cacheWriteTokens ? `write ${r.cacheWriteTokens}` : ""].filter(Boolean).join(", ");
  return ` tokens ${r.inputTokens ?? "?"}/${r.outputTokens ?? "?"}${cache ? ` (cache ${cache})` : ""}`;
}

/** `POST /v1/messages claude-x 200 1234ms ttfb 80ms tokens 12/40 (cache read 100)` */
export function formatRequestLine(r: RequestRecord): string {
  const outcome = r.outcome === "complete" || r.outcome === "local_error" ? "" : ` (${r.outcome.replace("_", " ")})`;
  return `${r.method} ${r.path} ${r.model ?? "-"} ${r.status} ${ms(r.durationMs)} ttfb ${ms(r.ttfbMs)}${tokensPart(r)}${outcome}`;
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
