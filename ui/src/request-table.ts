import { clientName } from "../../src/request-log/client-name.js";
import { formatTime, formatUsd } from "../../src/request-log/format.js";
import { failureCause, formatMs, modelLabel, streamed } from "../../src/request-log/request-line.js";
import type { PricedRecord } from "./api.js";
import { el } from "./dom.js";

/** The filters above the table, by the record field each one compares. */
export interface Filters {
  model: string;
  client: string;
  upstream: string;
  family: string;
  /** `ok`, `error` or empty. */
  status: string;
}

const failed = (r: PricedRecord): boolean => r.status >= 400 || r.outcome !== "complete";
const text = (value: unknown): string => (value === undefined || value === null || value === "" ? "-" : String(value));

/** A token count the gateway estimated (the reply reported no usage) reads `~12`. */
const tokens = (r: PricedRecord, value: number | undefined): string => (value !== undefined && r.estimated ? `~${value}` : text(value));

/** A cost: `~` when estimated from estimated tokens, `own` after it when the user's own login paid (at API prices). */
const cost = (r: PricedRecord): string => `${r.estimated && typeof r.costUsd === "number" ? "~" : ""}${formatUsd(r.costUsd)}${r.ownLogin ? " own" : ""}`;

/** Whether a record passes every filter that is set. */
export function matches(r: PricedRecord, f: Filters): boolean {
  if (f.model && (r.model ?? "-") !== f.model) return false;
  if (f.client && clientName(r.userAgent) !== f.client) return false;
  if (f.upstream && (r.upstream ?? "-") !== f.upstream) return false;
  if (f.family && r.family !== f.family) return false;
  return !(f.status === "ok" && failed(r)) && !(f.status === "error" && !failed(r));
}

/** Where the request went: its upstream, the rule that sent it there, `a -> b` when translated, and the upstreams it fell back from. */
function route(r: PricedRecord): string {
  const parts = [text(r.upstream)];
  if (r.rule !== undefined) parts.push(`by rule ${r.rule}`);
  if (r.translated) parts.push(`(${r.translated})`);
  if (r.tried?.length) parts.push(`after ${r.tried.map((t) => t.upstream).join(", ")}`);
  return parts.join(" ");
}

/**
 * The mark of a reply the client asked to stream (`~` in `gateway logs`), in the status cell: a word to the eye, a
 * name to a screen reader.
 */
function streamMark(): HTMLElement {
  const mark = el("span", "stream", "stream-mark");
  mark.setAttribute("role", "img");
  mark.setAttribute("aria-label", "streamed reply");
  mark.title = "The client asked for this reply as a stream";
  return mark;
}

/**
 * The columns, in order. `narrow` ones stay on a phone-width screen (time, model, status, duration); the rest are
 * hidden there by the stylesheet (`.wide`), and on a laptop-half screen the ones marked `.extra` go first.
 */
const COLUMNS: readonly { title: string; className: string; narrow?: boolean; value: (r: PricedRecord) => string }[] = [
  { title: "Time", className: "time", narrow: true, value: (r) => formatTime(r.time) },
  { title: "Client", className: "client", value: (r) => clientName(r.userAgent) },
  { title: "Family", className: "family extra", value: (r) => text(r.family) },
  { title: "Request", className: "path", value: (r) => `${r.method} ${r.path}` },
  { title: "Model", className: "model", narrow: true, value: modelLabel },
  { title: "Upstream", className: "upstream", value: route },
  { title: "Status", className: "num status", narrow: true, value: (r) => String(r.status) },
  { title: "Duration", className: "num", narrow: true, value: (r) => formatMs(r.durationMs) },
  { title: "TTFB", className: "num extra", value: (r) => formatMs(r.ttfbMs) },
  { title: "In", className: "num extra", value: (r) => tokens(r, r.inputTokens) },
  { title: "Out", className: "num extra", value: (r) => tokens(r, r.outputTokens) },
  { title: "Cache", className: "num extra", value: (r) => (r.cacheReadTokens || r.cacheWriteTokens ? `${r.cacheReadTokens ?? 0}/${r.cacheWriteTokens ?? 0}` : "-") },
  { title: "Cost", className: "num cost", value: cost },
  { title: "Outcome", className: "outcome", value: (r) => failureCause(r) ?? "complete" },
];

const classes = (column: (typeof COLUMNS)[number]): string => `${column.className}${column.narrow ? "" : " wide"}`;

/** The table's header row. */
export function headerRow(): HTMLTableRowElement {
  const tr = el("tr");
  for (const column of COLUMNS) tr.append(el("th", column.title, classes(column)));
  return tr;
}

/** One request as a row; the full text of each cell is its title, for cells the layout shortens. */
export function requestRow(r: PricedRecord): HTMLTableRowElement {
  const tr = el("tr");
  tr.tabIndex = 0;
  tr.dataset.id = r.requestId;
  if (failed(r)) tr.className = "failed";
  for (const column of COLUMNS) {
    const value = column.value(r);
    const td = el("td", value, classes(column));
    if (column.className.includes("status")) {
      td.classList.add(`s${String(r.status)[0]}`);
      if (streamed(r)) td.prepend(streamMark());
    }
    if (["client", "path", "upstream", "model"].includes(column.className)) td.title = value;
    tr.append(td);
  }
  return tr;
}
