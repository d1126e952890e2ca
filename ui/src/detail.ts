import { prettyJson } from "../../src/dashboard/pretty-json.js";
import type { RequestDetail } from "./api.js";

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function fields(entries: [string, unknown][]): HTMLTableElement {
  const table = el("table", undefined, "fields");
  for (const [name, value] of entries) {
    const tr = el("tr");
    const shown =
      value === undefined || value === null
        ? "-"
        : typeof value === "number" && !Number.isInteger(value)
          ? value.toFixed(1)
          : typeof value === "object"
            ? JSON.stringify(value)
            : String(value);
    tr.append(el("th", name), el("td", shown));
    table.append(tr);
  }
  return table;
}

function section(title: string, ...children: Node[]): HTMLElement {
  const s = el("section");
  s.append(el("h3", title), ...children);
  return s;
}

/** Server-sent events as they passed, one per entry with the time it arrived. */
function events(chunks: { at: number; text: string }[]): HTMLElement {
  const list = el("ol", undefined, "events");
  let pending = "";
  let lastAt = 0;
  for (const { at, text } of chunks) {
    const parts = (pending + text).split(/\r?\n\r?\n/);
    pending = parts.pop() ?? "";
    for (const part of parts) {
      if (!part.trim()) continue;
      const li = el("li");
      const data = part
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .join("\n");
      const name = /^event:\s*(.*)$/m.exec(part)?.[1];
      li.append(el("span", `+${at.toFixed(1)} ms`, "at"), el("span", name ?? "data", "name"), el("pre", prettyJson(data)));
      list.append(li);
    }
    lastAt = at;
  }
  if (pending.trim()) {
    const li = el("li");
    li.append(el("span", `+${lastAt.toFixed(1)} ms`, "at"), el("span", "(unfinished)", "name"), el("pre", pending));
    list.append(li);
  }
  return list;
}

/** Every field of the record, then, when captured, the headers and bodies that crossed the gateway. */
export function renderDetail(detail: RequestDetail): DocumentFragment {
  const out = document.createDocumentFragment();
  if (detail.record) out.append(section("Record", fields(Object.entries(detail.record))));
  const capture = detail.capture;
  if (!capture) {
    out.append(
      el(
        "p",
        detail.captureMode === "off"
          ? "Bodies were not captured: start the gateway with --capture to keep them (in memory only)."
          : "No capture is kept for this request (it was not an error, or it was dropped to stay within the limits).",
        "muted",
      ),
    );
    return out;
  }
  out.append(section("Request headers", fields(Object.entries(capture.request.headers))));
  out.append(section(`Request body (${capture.request.method} ${capture.request.path})`, el("pre", capture.request.body ? prettyJson(capture.request.body) : "(none)", "body")));
  if (capture.response) {
    out.append(section(`Reply headers (${capture.response.status})`, fields(Object.entries(capture.response.headers))));
    out.append(
      capture.response.eventStream
        ? section(`Reply events`, events(capture.chunks))
        : section("Reply body", el("pre", prettyJson(capture.chunks.map((c) => c.text).join("")), "body")),
    );
  }
  return out;
}
