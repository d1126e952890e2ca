import type { ConsolaInstance } from "consola";
import { formatMs } from "./format.js";
import type { RequestRecord, RequestSink } from "./record.js";

// The dashboard page imported it from here first; `format.ts` is its home.
export { formatMs };

/**
 * `12/40`: tokens in and out, `?` for a side the upstream did not report; undefined when it reported neither. `~12/40`
 * when the gateway estimated them (the reply reported no usage: SPEC 11, Budgets).
 */
export function tokenPair(r: Pick<RequestRecord, "inputTokens" | "outputTokens" | "estimated">): string | undefined {
  if (r.inputTokens === undefined && r.outputTokens === undefined) return undefined;
  return `${r.estimated ? "~" : ""}${r.inputTokens ?? "?"}/${r.outputTokens ?? "?"}`;
}

function tokensPart(r: RequestRecord): string {
  const pair = tokenPair(r);
  if (pair === undefined) return "";
  const cache = [r.cacheReadTokens ? `read ${r.cacheReadTokens}` : "", r.cacheWriteTokens ? `write ${r.cacheWriteTokens}` : ""].filter(Boolean).join(", ");
  return ` tokens ${pair}${cache ? ` (cache ${cache})` : ""}`;
}

/** Why a request failed, in a word or two: `timeout`, `unreachable`, `upstream 429`, `no key`. */
export function failureCause(r: Pick<RequestRecord, "status" | "outcome" | "errorCode">): string | undefined {
  if (r.outcome === "upstream_error") return "upstream broke mid-reply";
  if (r.outcome === "client_closed") return "client closed";
  if (r.status < 400) return undefined;
  if (r.outcome === "local_error") return CAUSES[r.errorCode ?? ""] ?? r.errorCode?.replaceAll("_", " ");
  return `upstream ${r.status}`;
}

const CAUSES: Readonly<Record<string, string>> = {
  upstream_error: "upstream unreachable",
  upstream_timeout: "upstream timeout",
  invalid_api_key: "wrong local key",
  no_upstream_key: "no upstream key stored",
};

/** Whether the reply was a stream: as recorded, or for records that do not say, Gemini's streaming method. */
export const streamed = (r: Pick<RequestRecord, "stream" | "path">): boolean => r.stream ?? r.path.endsWith(":streamGenerateContent");

/** `after remote: upstream 503, local: timeout`: the upstreams a request fell back from; undefined when it fell back from none. */
const fallbackLabel = (r: Pick<RequestRecord, "tried">): string | undefined =>
  r.tried?.length ? `after ${r.tried.map((t) => `${t.upstream}: ${t.failure}`).join(", ")}` : undefined;

/** `rule background`: the rule of `routes` that routed a request; undefined when none did. */
const ruleLabel = (r: Pick<RequestRecord, "rule">): string | undefined => (r.rule === undefined ? undefined : `rule ${r.rule}`);

/** What the table of `gateway logs` says after the figures: why it failed, the rule, the translation, the upstreams fallen back from. */
export function requestNote(r: RequestRecord): string {
  return [failureCause(r), ruleLabel(r), r.translated, fallbackLabel(r)].filter(Boolean).join("; ");
}

/** `claude-x`, `alias -> target`, or `-` when the request named no model. */
export const modelLabel = (r: Pick<RequestRecord, "model" | "target">): string => (r.target ? `${r.model} -> ${r.target}` : (r.model ?? "-"));

/**
 * Where a request went, when there is more to say than "the one upstream": `via local`, `by rule background` when a
 * rule routed it, `(messages -> chat)` when it was translated, and the upstreams it fell back from. Empty for a
 * request the default upstream answered as it came.
 */
export function routeLabel(r: Pick<RequestRecord, "upstream" | "rule" | "translated" | "tried">): string {
  const parts: string[] = [];
  if (r.upstream && (r.upstream !== "default" || r.tried || r.rule)) parts.push(`via ${r.upstream}`);
  if (r.rule !== undefined) parts.push(`by ${ruleLabel(r)}`);
  if (r.translated) parts.push(`(${r.translated})`);
  const fallback = fallbackLabel(r);
  if (fallback) parts.push(fallback);
  return parts.join(" ");
}

/**
 * `POST /v1/messages claude-x 200 1234ms ttfb 80ms tokens 12/40 (cache read 100) via local (messages -> chat)`; a
 * message on Codex's WebSocket shows as `POST /v1/responses over WebSocket ...`.
 */
export function formatRequestLine(r: RequestRecord): string {
  const cause = failureCause(r);
  const route = routeLabel(r);
  return `${r.method} ${r.path}${r.transport ? " over WebSocket" : ""} ${modelLabel(r)} ${r.status} ${formatMs(r.durationMs)} ttfb ${formatMs(r.ttfbMs)}${tokensPart(r)}${cause ? ` (${cause})` : ""}${route ? ` ${route}` : ""}`;
}

/** `  > name: value` for request headers, `  < name: value` for reply headers, as curl -v shows them. */
function formatHeaders(headers: NonNullable<RequestRecord["headers"]>): string {
  const lines = (mark: string, set: Record<string, string>) => Object.entries(set).map(([name, value]) => `  ${mark} ${name}: ${value}`);
  return [...lines(">", headers.request), ...lines("<", headers.reply)].join("\n");
}

/**
 * One consola line per request, followed by its redacted headers when the record carries them. `redact` hides
 * key values wherever a header carried one under a name that does not look like a credential.
 */
export function consolaSink(logger: ConsolaInstance, redact: (text: string) => string = (text) => text): RequestSink {
  return (record) => {
    const line = record.headers ? redact(`${formatRequestLine(record)}\n${formatHeaders(record.headers)}`) : formatRequestLine(record);
    if (record.status >= 500 || record.outcome === "upstream_error") logger.error(line);
    else if (record.status >= 400) logger.warn(line);
    else logger.info(line);
  };
}
