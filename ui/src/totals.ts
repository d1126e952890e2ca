import { formatCount, formatGroupCost, formatMs } from "../../src/request-log/format.js";
import type { GroupStats, UsageSummary } from "../../src/stats/summarize.js";
import { breakable, el } from "./dom.js";

/** The figures across the top: requests, errors, tokens, estimated cost, latency. */
export function renderCards(container: HTMLElement, summary: UsageSummary): void {
  const t = summary.total;
  const cards: [string, string, string?][] = [
    ["Requests", formatCount(t.requests)],
    ["Errors", formatCount(t.errors)],
    ["Tokens in", formatCount(t.inputTokens)],
    ["Tokens out", formatCount(t.outputTokens)],
    ["Cache read", formatCount(t.cacheReadTokens)],
    ["Estimated cost", formatGroupCost(t.costUsd, t.unpricedRequests), unpricedNote(t)],
    ["Latency p50 / p95", `${formatMs(t.durationMs.p50)} / ${formatMs(t.durationMs.p95)}`],
  ];
  container.replaceChildren(
    ...cards.map(([label, value, note]) => {
      const div = el("div", undefined, "card");
      div.dataset.label = label;
      if (note) div.title = note;
      div.append(el("strong", value), el("span", label));
      return div;
    }),
  );
}

/** Why a cost is a lower bound or unknown, for its tooltip. */
function unpricedNote(g: GroupStats): string | undefined {
  if (g.unpricedRequests === 0) return undefined;
  const n = `${formatCount(g.unpricedRequests)} request${g.unpricedRequests === 1 ? "" : "s"}`;
  return `${n} for a model without a known price (add it under "prices" in config.json); not counted in the figure.`;
}

/**
 * The figures of a totals row. A phone-width screen keeps the `phone` ones (how many, what they cost, how fast);
 * the stylesheet hides the others there (`.wide`), as the request table does.
 */
const FIGURES: readonly { title: string; phone?: boolean; value: (g: GroupStats) => string; note?: (g: GroupStats) => string | undefined }[] = [
  { title: "Requests", phone: true, value: (g) => formatCount(g.requests) },
  { title: "Errors", value: (g) => formatCount(g.errors) },
  { title: "Tokens in", value: (g) => formatCount(g.inputTokens) },
  { title: "Tokens out", value: (g) => formatCount(g.outputTokens) },
  { title: "Cost", phone: true, value: (g) => formatGroupCost(g.costUsd, g.unpricedRequests), note: unpricedNote },
  { title: "P50", phone: true, value: (g) => formatMs(g.durationMs.p50) },
  { title: "P95", value: (g) => formatMs(g.durationMs.p95) },
];

const figureClass = (column: (typeof FIGURES)[number]): string => (column.phone ? "num" : "num wide");

/**
 * A totals table (per model, client or upstream). Each row is a button-like row: choosing it sets the table's filter
 * to its name through `choose`, choosing the row in effect again clears it; `active` is the name filtered on now.
 */
export function renderGroups(table: HTMLTableElement, title: string, groups: readonly GroupStats[], active: string, choose: (name: string) => void): void {
  const head = el("tr");
  head.append(el("th", title));
  for (const column of FIGURES) head.append(el("th", column.title, figureClass(column)));
  const rows = groups.map((g) => {
    const tr = el("tr", undefined, g.name === active ? "pick active" : "pick");
    tr.tabIndex = 0;
    tr.title = g.name === active ? "Show every request again" : `Show only the requests of ${g.name}`;
    tr.setAttribute("aria-pressed", String(g.name === active));
    const name = el("td", undefined, "name");
    name.append(...breakable(g.name));
    tr.append(name);
    for (const column of FIGURES) {
      const td = el("td", column.value(g), figureClass(column));
      const note = column.note?.(g);
      if (note) td.title = note;
      tr.append(td);
    }
    const pick = () => choose(g.name === active ? "" : g.name);
    tr.addEventListener("click", pick);
    tr.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        pick();
      }
    });
    return tr;
  });
  table.replaceChildren(head, ...rows);
}

/** The three totals tables' data, by the filter each one drives. */
export const groupsOf = (s: UsageSummary) => ({ model: s.models, client: s.clients, upstream: s.upstreams }) as const;
