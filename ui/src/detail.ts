import { prettyJson } from "../../src/dashboard/pretty-json.js";
import { clientName } from "../../src/request-log/client-name.js";
import { failureCause, formatMs, modelLabel } from "../../src/request-log/request-line.js";
import type { PricedRecord, RequestDetail } from "./api.js";
import { assembleReply, type AssembledReply } from "./assemble-reply.js";
import { curlCommand, keyVariable } from "./curl-command.js";
import { el } from "./dom.js";
import { formatCount, formatDateTime, formatUsd } from "../../src/request-log/format.js";
import { arrayElements, parseJson, replyEvents, type ReplyEvent } from "./reply-events.js";

type Capture = NonNullable<RequestDetail["capture"]>;

function fields(entries: readonly [string, string | Node][]): HTMLTableElement {
  const table = el("table", undefined, "fields");
  for (const [name, value] of entries) {
    const tr = el("tr");
    const td = el("td");
    td.append(value);
    tr.append(el("th", name), td);
    table.append(tr);
  }
  return table;
}

function section(title: string, ...children: Node[]): HTMLElement {
  const s = el("section");
  s.append(el("h3", title), ...children);
  return s;
}

/** A part of the page a reader opens when they want it (events, headers). */
function disclosure(summary: string, ...children: Node[]): HTMLDetailsElement {
  const details = el("details");
  details.append(el("summary", summary), ...children);
  return details;
}

/** The record under names a person reads, each figure with its unit; fields a request lacks are left out. */
function recordFields(r: PricedRecord): [string, string][] {
  const rows: [string, string | undefined][] = [
    ["Finished", formatDateTime(r.time)],
    ["Request id", r.requestId],
    ["Client", `${clientName(r.userAgent)}${r.userAgent ? ` (${r.userAgent})` : ""}`],
    ["Request", `${r.method} ${r.path}`],
    ["API family", r.family ?? undefined],
    ["Model", r.model === undefined ? undefined : modelLabel(r)],
    ["Upstream", r.upstream],
    ["Routed by rule", r.rule],
    ["Translated", r.translated],
    ["Fell back from", r.tried?.map((t) => `${t.upstream} (${t.failure}, ${formatMs(t.durationMs)})`).join(", ")],
    ["Status", String(r.status)],
    ["Outcome", failureCause(r) ?? "complete"],
    ["Duration", formatMs(r.durationMs)],
    ["Time to first byte", r.ttfbMs === undefined ? undefined : formatMs(r.ttfbMs)],
    ["Tokens in", r.inputTokens === undefined ? undefined : `${formatCount(r.inputTokens)}${r.estimated ? " (estimated: the reply reported no usage)" : ""}`],
    ["Tokens out", r.outputTokens === undefined ? undefined : `${formatCount(r.outputTokens)}${r.estimated ? " (estimated)" : ""}`],
    ["Cache read", r.cacheReadTokens ? formatCount(r.cacheReadTokens) : undefined],
    ["Cache write", r.cacheWriteTokens ? formatCount(r.cacheWriteTokens) : undefined],
    ["Estimated cost", r.costUsd === undefined ? undefined : `${formatUsd(r.costUsd)}${r.ownLogin ? " (own login, at API prices)" : ""}`],
    ["Error code", r.errorCode],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== undefined && row[1] !== "");
}

/** Text, reasoning and tool calls (arguments pretty-printed) as the client ended up with them, then stop and usage. */
function assembled(reply: AssembledReply): HTMLElement {
  const box = el("div", undefined, "reply");
  for (const part of reply.parts) {
    if (part.kind === "tool_call") {
      const call = el("div", undefined, "tool-call");
      call.append(el("div", `${part.name || "(no name)"}${part.id ? `  ${part.id}` : ""}`, "tool-name"), el("pre", prettyJson(part.arguments) || "{}", "body"));
      box.append(call);
    } else box.append(el("div", part.text, part.kind === "reasoning" ? "reply-text reasoning" : "reply-text"));
  }
  if (reply.parts.length === 0) box.append(el("p", "(no text and no tool call)", "muted"));
  const facts: [string, string][] = [["Format", reply.format]];
  if (reply.stopReason) facts.push(["Stop reason", reply.stopReason]);
  for (const [name, value] of Object.entries(reply.usage ?? {})) facts.push([`usage.${name}`, typeof value === "object" ? JSON.stringify(value) : String(value)]);
  if (reply.error) facts.push(["Error", reply.error]);
  box.append(fields(facts));
  return box;
}

/** Each event with its arrival time and name, its data pretty-printed. */
function eventList(events: readonly ReplyEvent[], unfinished: string): HTMLOListElement {
  const list = el("ol", undefined, "events");
  for (const event of events) {
    const li = el("li");
    li.append(el("span", `+${event.at.toFixed(1)} ms`, "at"), el("span", event.name ?? "data", "name"), el("pre", prettyJson(event.data)));
    list.append(li);
  }
  if (unfinished) {
    const li = el("li");
    li.append(el("span", "", "at"), el("span", "(unfinished)", "name"), el("pre", unfinished));
    list.append(li);
  }
  return list;
}

/** The reply: assembled first when it was a stream (or Gemini's JSON array of chunks), its events on demand. */
function replySections(capture: Capture): Node[] {
  const response = capture.response!;
  const headers = disclosure(`Reply headers (${Object.keys(response.headers).length})`, fields(Object.entries(response.headers)));
  if (response.eventStream) {
    const { events, unfinished } = replyEvents(capture.chunks);
    const reply = assembleReply(events.map((e) => parseJson(e.data)));
    return [
      section(`Reply ${response.status}`, ...(reply ? [assembled(reply)] : []), disclosure(`Events (${events.length})`, eventList(events, unfinished)), headers),
    ];
  }
  const text = capture.chunks.map((c) => c.text).join("");
  const elements = arrayElements(text);
  const reply = elements && assembleReply(elements);
  const raw = el("pre", prettyJson(text) || "(empty)", "body");
  return [section(`Reply ${response.status}`, ...(reply ? [assembled(reply), disclosure(`Chunks (${elements.length})`, raw)] : [raw]), headers)];
}

/** "Copy as curl": the command in a box the reader can select, and a button that puts it on the clipboard. */
function curlBlock(capture: Capture, family: PricedRecord["family"]): HTMLElement {
  const command = curlCommand(capture.request, location.origin, family);
  const button = el("button", "Copy as curl", "copy");
  button.type = "button";
  const status = el("span", "", "muted copy-status");
  button.addEventListener("click", () => {
    navigator.clipboard.writeText(command).then(
      () => (status.textContent = `Copied. It reads the local key from $${keyVariable(family)}, which eval "$(gateway env)" sets.`),
      () => (status.textContent = "The browser refused the clipboard: select the command below."),
    );
  });
  const row = el("div", undefined, "copy-row");
  row.append(button, status);
  const wrap = el("div");
  wrap.append(row, disclosure("curl command", el("pre", command, "body curl")));
  return wrap;
}

/** Each request the gateway made upstream for this one, retries and fallbacks included: what answered, how fast. */
function attemptsSection(attempts: Capture["attempts"]): HTMLElement {
  const rows = attempts.map((a, i): [string, string] => [`${i + 1}. ${a.upstream}`, `${a.status ?? a.failure ?? "?"} after ${formatMs(a.ms)}`]);
  return section(`Upstream attempts (${attempts.length})`, fields(rows));
}

/**
 * The detail of one request: with a capture, the reply (assembled, events on demand), the upstream attempts and the
 * request (copy as curl, headers on demand, the body in full); then the record's fields under human names.
 */
export function renderDetail(detail: RequestDetail): DocumentFragment {
  const out = document.createDocumentFragment();
  const capture = detail.capture;
  if (capture) {
    if (capture.response) out.append(...replySections(capture));
    if (capture.attempts.length > 0) out.append(attemptsSection(capture.attempts));
    out.append(
      section(
        `Request ${capture.request.method} ${capture.request.path}`,
        curlBlock(capture, detail.record?.family ?? null),
        disclosure(`Request headers (${Object.keys(capture.request.headers).length})`, fields(Object.entries(capture.request.headers))),
        el("pre", capture.request.body ? prettyJson(capture.request.body) : "(no body)", "body"),
      ),
    );
  } else {
    out.append(
      el(
        "p",
        detail.captureMode === "off"
          ? "Bodies were not captured: start the gateway with --capture to keep them (in memory only)."
          : "No capture is kept for this request (it was not an error, or it was dropped to stay within the limits).",
        "muted",
      ),
    );
  }
  if (detail.record) out.append(section("Record", fields(recordFields(detail.record))));
  return out;
}
